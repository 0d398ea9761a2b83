#include "server/http_endpoints.hpp"

#include <httplib.h>

namespace cuzk::server {

Result<std::unique_ptr<HttpEndpoints>> HttpEndpoints::start(const engine::Engine& engine, const std::string& host,
                                                            int port) {
  std::unique_ptr<HttpEndpoints> h(new HttpEndpoints());
  h->http_ = std::make_unique<httplib::Server>();
  h->http_->Get("/metrics", [&engine](const httplib::Request&, httplib::Response& res) {
    res.set_content(engine.metrics_text(), "text/plain; version=0.0.4; charset=utf-8");
  });
  h->http_->Get("/healthz",
                [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });
  h->http_->Get("/readyz", [&engine](const httplib::Request&, httplib::Response& res) {
    bool ready = engine.ready();
    res.status = ready ? 200 : 503;
    const char* why = engine.live_devices() == 0 ? "not ready: no device left to prove on (each was lost)\n"
                      : engine.status().draining ? "not ready: draining\n"
                                                 : "not ready: keys loading or self-test not passed\n";
    res.set_content(ready ? "ready\n" : why, "text/plain");
  });
  if (port == 0) {
    h->port_ = h->http_->bind_to_any_port(host);
    if (h->port_ <= 0) return Status(StatusCode::kUnavailable, "metrics: cannot listen on " + host);
  } else {
    if (!h->http_->bind_to_port(host, port)) {
      return Status(StatusCode::kUnavailable, "metrics: cannot listen on " + host + ":" + std::to_string(port));
    }
    h->port_ = port;
  }
  h->thread_ = std::thread([srv = h->http_.get()] { srv->listen_after_bind(); });
  return h;
}

void HttpEndpoints::stop() {
  if (!http_) return;
  http_->stop();
  if (thread_.joinable()) thread_.join();
  http_.reset();
}

HttpEndpoints::~HttpEndpoints() { stop(); }

}  // namespace cuzk::server
