// cuzk-daemon's configuration: a TOML file (deploy/cuzk-daemon.toml documents every key),
// every key optional; with no file at all the defaults make a working CPU daemon on the
// per-user Unix socket.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "engine/engine_config.hpp"
#include "server/grpc_server.hpp"
#include "server/proving_service.hpp"

namespace cuzk::daemon {

struct CircuitConfig {
  std::string id, zkey;
  bool preload = true;
};

struct DaemonConfig {
  server::ListenConfig listen;
  std::string bearer_token_file;
  server::ServiceLimits limits;
  unsigned shutdown_grace_seconds = 60;
  std::string metrics_address = "127.0.0.1:9464";  // empty: no HTTP endpoints
  engine::EngineConfig engine;
  bool cuda_devices = true;               // every visible GPU, when this build has CUDA
  uint64_t cuda_safety_margin_bytes = uint64_t(512) << 20;
  uint64_t cuda_memory_cap_bytes = 0;     // 0: free memory minus the margin
  std::string cuda_precompute = "auto";   // precomputed MSM bases: auto, off or sections (h,b2,a,b1,l)
  uint64_t cuda_precompute_max_bytes = 0; // per key; 0: half of the budget left after the key
  std::optional<bool> cpu_device;         // unset: only when there is no GPU
  unsigned cpu_threads = 0;
  uint64_t cpu_memory_bytes = 0;  // 0: the host budget
  // A device that cannot be reset after a sticky fault: "restart" drains and exits with
  // kExitDeviceLost at once; "continue" serves on the other devices and exits when none is left.
  std::string on_device_lost = "restart";
  bool selftest = true;
  uint32_t selftest_constraints = 59;
  std::vector<CircuitConfig> circuits;
  std::string log_level = "info";
};

// The exit status for "a device was lost, restart me" (EX_TEMPFAIL): systemd's
// Restart=on-failure restarts the daemon, whose fresh process gets a fresh device context.
constexpr int kExitDeviceLost = 75;

// The defaults, then `path` on top when non-empty. Unknown keys are errors (typos would
// otherwise pass silently).
Result<DaemonConfig> load_config(const std::string& path);

// "512MiB", "4 GiB", "1000000": bytes.
Result<uint64_t> parse_bytes(const std::string& s);

}  // namespace cuzk::daemon
