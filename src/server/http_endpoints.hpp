// The HTTP side, on its own port: /metrics (Prometheus text format), /healthz (the process
// answers), /readyz (200 only when keys are loaded and the self-test proof passed).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/status.hpp"
#include "engine/engine.hpp"

namespace httplib {
class Server;
}

namespace cuzk::server {

class HttpEndpoints {
 public:
  // Listens on host:port (port 0: any free port; port() says which).
  static Result<std::unique_ptr<HttpEndpoints>> start(const engine::Engine& engine, const std::string& host, int port);
  ~HttpEndpoints();
  int port() const { return port_; }
  void stop();

 private:
  HttpEndpoints() = default;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace cuzk::server
