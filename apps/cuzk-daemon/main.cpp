// cuzk-daemon: the persistent proving service. Loads its config (or the defaults), brings
// up the devices and the engine, registers the configured circuits, proves a self-test on
// every device, serves gRPC and the HTTP endpoints, and on SIGTERM/SIGINT stops admitting,
// lets jobs in flight finish within the grace period, and exits 0. A device lost for good
// (its reset failed after a sticky fault) drains the same way and exits 75, for the
// supervisor to restart the daemon ([devices] on_device_lost).
#include <pthread.h>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "cuzk-daemon/config.hpp"
#include "cuzk-daemon/selftest_circuit.hpp"
#include "engine/cpu_device.hpp"
#ifdef CUZK_WITH_CUDA
#include "engine/cuda_device.hpp"
#endif
#include "engine/engine.hpp"
#include "server/grpc_server.hpp"
#include "server/http_endpoints.hpp"
#include "server/proving_service.hpp"

namespace {

using namespace cuzk;

constexpr const char* kSelftestCircuit = "cuzk-selftest";

engine::LogSink spdlog_sink(std::shared_ptr<spdlog::logger> log) {
  return [log](engine::LogLevel level, const std::string& line) {
    switch (level) {
      case engine::LogLevel::kDebug:
        log->debug("{}", line);
        break;
      case engine::LogLevel::kInfo:
        log->info("{}", line);
        break;
      case engine::LogLevel::kWarn:
        log->warn("{}", line);
        break;
      case engine::LogLevel::kError:
        log->error("{}", line);
        break;
    }
  };
}

// Why the daemon stops, set once by the first of: a signal (exit 0), a lost device (exit 75).
class StopRequest {
 public:
  void set(std::string why, int exit_code) {
    {
      std::lock_guard lock(mu_);
      if (set_) return;
      set_ = true;
      why_ = std::move(why);
      exit_code_ = exit_code;
    }
    cv_.notify_all();
  }
  // Blocks until set; the reason and the exit status.
  std::pair<std::string, int> wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return set_; });
    return {why_, exit_code_};
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool set_ = false;
  std::string why_;
  int exit_code_ = 0;
};

// "127.0.0.1:9464" -> host, port.
bool split_host_port(const std::string& addr, std::string& host, int& port) {
  auto colon = addr.rfind(':');
  if (colon == std::string::npos) return false;
  host = addr.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  try {
    port = std::stoi(addr.substr(colon + 1));
  } catch (...) {
    return false;
  }
  return port >= 0 && port < 65536;
}

int run(daemon::DaemonConfig cfg, std::shared_ptr<spdlog::logger> log, sigset_t signals) {
  if (!cfg.bearer_token_file.empty()) {
    std::ifstream in(cfg.bearer_token_file);
    if (!in || !std::getline(in, cfg.listen.bearer_token) || cfg.listen.bearer_token.empty()) {
      log->error("bearer_token_file {} cannot be read or is empty", cfg.bearer_token_file);
      return 1;
    }
  }
  cfg.listen.max_message_bytes = cfg.limits.max_witness_bytes + (1 << 20);

  std::vector<std::unique_ptr<engine::Device>> devices;
  engine::EngineConfig ecfg = cfg.engine;
  if (ecfg.host_memory_bytes == 0) ecfg.host_memory_bytes = engine::physical_memory_bytes() / 2;
#ifdef CUZK_WITH_CUDA
  if (cfg.cuda_devices) {
    engine::CudaDeviceOptions opts;
    opts.safety_margin_bytes = cfg.cuda_safety_margin_bytes;
    opts.cap_bytes = cfg.cuda_memory_cap_bytes;
    opts.precompute = cfg.cuda_precompute;
    opts.precompute_max_bytes = cfg.cuda_precompute_max_bytes;
    opts.log = spdlog_sink(log);
    opts.host_threads = cfg.cpu_threads;
    auto gpus = engine::cuda_devices(devices.size(), opts);
    if (!gpus.is_ok()) {
      log->warn("no CUDA device: {}", gpus.status().message());
    } else {
      for (auto& g : *gpus) devices.push_back(std::move(g));
    }
  }
#endif
  if (cfg.cpu_device.value_or(devices.empty())) {
    uint64_t mem = cfg.cpu_memory_bytes != 0 ? cfg.cpu_memory_bytes : ecfg.host_memory_bytes;
    auto cpu = std::make_unique<engine::CpuDevice>(devices.size(), mem, cfg.cpu_threads);
    // Fault injection for tests: CUZK_FAULT (kind:N rules) fails the CPU device's stage
    // calls the way it fails a GPU's (cuda/fault.hpp), sticky faults included.
    if (const char* spec = std::getenv("CUZK_FAULT"); spec != nullptr && *spec != '\0') {
      if (Status st = cpu->arm_faults(spec); !st.is_ok()) {
        log->error("CUZK_FAULT: {}", st.message());
        return 1;
      }
      log->warn("{}: fault injection armed: {}", cpu->id(), spec);
    }
    devices.push_back(std::move(cpu));
  }
  if (devices.empty()) {
    log->error("no device to prove on: no GPU was found and [devices] cpu = false");
    return 1;
  }
  for (const auto& d : devices) {
    log->info("device {}: {} ({}), budget {}", d->id(), d->name(), d->backend_name(),
              engine::format_bytes(d->memory().limit()));
  }
  engine::Engine eng(ecfg, std::move(devices), spdlog_sink(log));
  // Shared with the signal thread, which outlives run() (it stays in sigwait until exit).
  auto stop = std::make_shared<StopRequest>();
  std::thread([stop, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    stop->set(sig == SIGTERM ? "SIGTERM" : "SIGINT", 0);
  }).detach();
  eng.on_device_dead([&eng, stop, log, policy = cfg.on_device_lost](const engine::Device& d, const Status& why) {
    const size_t left = eng.live_devices();
    if (policy == "continue" && left > 0) {
      log->error("{} is lost for this process ({}); serving on {} other device(s) (on_device_lost = \"continue\")",
                 d.id(), why.message(), left);
      return;
    }
    stop->set(d.id() + " could not be reset after a sticky fault (" + why.message() +
                  "); exiting with status 75 for the supervisor to restart the daemon",
              daemon::kExitDeviceLost);
  });

  for (const auto& c : cfg.circuits) {
    auto r = eng.register_circuit(c.id, c.zkey, c.preload);
    if (!r.is_ok()) {
      log->error("circuit {}: {}", c.id, r.status().message());
      return 1;
    }
    log->info("circuit {}: {} ({} wires, domain {}), {}", c.id, r->zkey_path, r->shape.n_vars, r->shape.domain_size,
              engine::key_tier_name(r->tier));
  }

  server::ServiceLimits limits = cfg.limits;
  limits.version = "cuzk-daemon " CUZK_VERSION;
  server::ProvingService service(eng, limits);
  auto grpc_server = server::GrpcServer::start(service, cfg.listen);
  if (!grpc_server.is_ok()) {
    log->error("{}", grpc_server.status().message());
    return 1;
  }
  if (!cfg.listen.unix_socket.empty()) log->info("gRPC on unix:{} (0600)", cfg.listen.unix_socket);
  if (!cfg.listen.tcp_address.empty()) log->info("gRPC on {} (TLS, bearer token)", cfg.listen.tcp_address);

  std::unique_ptr<server::HttpEndpoints> http;
  if (!cfg.metrics_address.empty()) {
    std::string host;
    int port = 0;
    if (!split_host_port(cfg.metrics_address, host, port)) {
      log->error("[metrics] address \"{}\" is not host:port", cfg.metrics_address);
      return 1;
    }
    auto h = server::HttpEndpoints::start(eng, host, port);
    if (!h.is_ok()) {
      log->error("{}", h.status().message());
      return 1;
    }
    http = std::move(*h);
    log->info("metrics on http://{}:{}/metrics (also /healthz, /readyz)", host, http->port());
  }

  if (cfg.selftest) {
    auto t0 = std::chrono::steady_clock::now();
    auto circuit = daemon::SelftestCircuit::create(cfg.selftest_constraints);
    Status st =
        circuit.is_ok() ? eng.register_circuit(kSelftestCircuit, circuit->zkey(), true).status() : circuit.status();
    if (st.is_ok()) st = eng.self_test(kSelftestCircuit, circuit->wtns(), std::chrono::minutes(5));
    if (circuit.is_ok()) (void)eng.evict(kSelftestCircuit, true);
    if (!st.is_ok()) {
      log->error("self-test failed, not ready: {}", st.message());
    } else {
      log->info("self-test passed on every device in {:.0f} ms: ready",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  } else {
    log->warn("self-test disabled: /readyz stays 503");
  }

  auto [why, exit_code] = stop->wait();
  if (exit_code == 0) {
    log->info("{}: draining (grace {} s)", why, cfg.shutdown_grace_seconds);
  } else {
    log->error("{}: draining (grace {} s)", why, cfg.shutdown_grace_seconds);
  }
  eng.shutdown(std::chrono::seconds(cfg.shutdown_grace_seconds));
  (*grpc_server)->shutdown(2000);
  if (http) http->stop();
  log->info("stopped (exit status {})", exit_code);
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuzk-daemon: the persistent Groth16 proving service (gRPC on a Unix socket, /metrics over HTTP)"};
  std::string config_path, socket, metrics, level;
  app.add_option("-c,--config", config_path, "TOML config (default: none, built-in defaults)")
      ->check(CLI::ExistingFile);
  app.add_option("--socket", socket, "Unix socket to listen on (overrides [server] unix_socket)");
  app.add_option("--metrics-address", metrics, "host:port for /metrics, /healthz, /readyz; \"\" disables");
  app.add_option("--log-level", level, "trace, debug, info, warn, error");
  CLI11_PARSE(app, argc, argv);

  // Signals are taken by sigwait in main only: every thread started later inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  auto log = spdlog::stderr_color_mt("cuzk");
  log->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  auto cfg = cuzk::daemon::load_config(config_path);
  if (!cfg.is_ok()) {
    log->error("{}", cfg.status().message());
    return 1;
  }
  if (!socket.empty()) cfg->listen.unix_socket = socket;
  if (app.count("--metrics-address")) cfg->metrics_address = metrics;
  if (!level.empty()) cfg->log_level = level;
  log->set_level(spdlog::level::from_str(cfg->log_level));
  return run(std::move(*cfg), log, signals);
}
