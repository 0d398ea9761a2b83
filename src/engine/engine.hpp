// The proving engine: wires the pipeline's stages, queues, budgets, key cache and job
// table together and exposes what the gRPC service calls. No logic of its own beyond
// wiring, cancellation and status; the stages live in their own files.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/admission.hpp"
#include "engine/device.hpp"
#include "engine/device_recovery.hpp"
#include "engine/engine_config.hpp"
#include "engine/job_table.hpp"
#include "engine/key_cache.hpp"
#include "engine/log_sink.hpp"
#include "engine/metrics.hpp"
#include "engine/pipeline.hpp"
#include "engine/scheduler.hpp"

namespace cuzk::engine {

struct DeviceState {
  std::string id, name, backend;
  uint32_t workers = 0, busy_workers = 0;
  uint64_t total_bytes = 0, free_bytes = 0, baseline_bytes = 0, reserved_bytes = 0;
  uint64_t completed = 0, failed = 0, prestage_fallbacks = 0, baseline_mismatches = 0;
  uint64_t resets = 0;  // after sticky faults
  bool poisoned = false, dead = false;
  DeviceCacheStats cache;
};

struct EngineStatus {
  bool ready = false, draining = false;
  std::vector<QueueDepth> queues;
  std::vector<DeviceState> devices;
  std::vector<CircuitInfo> circuits;
  uint64_t host_limit = 0, host_in_use = 0, host_peak = 0;
  uint64_t key_cache_limit = 0, key_cache_bytes = 0;
  size_t jobs_in_flight = 0;
};

class Engine {
 public:
  // Starts the stage threads. `devices` are proved on in this order (device i has index i).
  Engine(EngineConfig config, std::vector<std::unique_ptr<Device>> devices, LogSink log,
         std::unique_ptr<JobTable> jobs = nullptr);
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  // shutdown() with no grace period, if it has not run.
  ~Engine();

  Result<CircuitInfo> register_circuit(const std::string& id, const std::string& zkey_path, bool preload) {
    return keys_.register_circuit(id, zkey_path, preload);
  }
  std::vector<CircuitInfo> circuits() const { return keys_.circuits(); }
  Result<bool> evict(const std::string& id, bool unregister) { return keys_.evict(id, unregister); }
  Result<double> preload(const std::string& id) { return keys_.preload(id); }
  Result<CircuitInfo> circuit(const std::string& id) const { return keys_.info(id); }

  Result<Submitted> submit(const SubmitRequest& r) { return admission_.submit(r); }
  // Threads a caller may use to take a witness in before submit (reading its file).
  ThreadPool* intake_pool() const { return admission_.intake_pool(); }
  // The job when it is terminal, or as it stands when `timeout` passes.
  Result<JobRecord> await(const std::string& job_id, std::chrono::milliseconds timeout) const {
    return jobs_->await(job_id, timeout);
  }
  // Cancels a queued or running job: it leaves its queue at once (a running one when its
  // kernel region returns) and everything it holds is freed. The job's state afterwards.
  Result<JobState> cancel(const std::string& job_id);
  std::vector<JobRecord> jobs(std::optional<JobState> state, size_t limit) const { return jobs_->list(state, limit); }

  // One proof of `circuit_id` on every device, verified: readiness needs it to pass.
  Status self_test(const std::string& circuit_id, std::span<const uint8_t> wtns, std::chrono::milliseconds timeout);
  // Ready: the self-test passed, the engine admits, and some device can still prove.
  bool ready() const { return ready_ && !admission_.draining() && live_devices() > 0; }
  // Devices not buried (a device being reset counts: it may come back).
  size_t live_devices() const;
  // Called (on the recovery thread) for each device that could not be reset after a
  // sticky fault and takes no more work in this process (device_recovery.hpp).
  void on_device_dead(DeviceRecovery::DeadHandler h) { recovery_.on_dead(std::move(h)); }

  EngineStatus status() const;
  std::string metrics_text() const;
  const MemoryBudget& host_memory() const { return host_; }
  const std::vector<Device*>& devices() const { return pipeline_.devices; }

  // Stops admitting (UNAVAILABLE), lets jobs in flight finish for up to `grace`, cancels
  // what is left, then stops every stage thread.
  void shutdown(std::chrono::milliseconds grace);

 private:
  EngineConfig config_;
  std::vector<std::unique_ptr<Device>> owned_devices_;
  MemoryBudget host_;
  KeyCache keys_;
  std::unique_ptr<JobTable> jobs_;
  Scheduler scheduler_;
  Metrics metrics_;
  Pipeline pipeline_;
  DeviceRecovery recovery_;  // before the stage threads, after what it works on
  Admission admission_;
  std::vector<std::thread> synthesis_, prestage_, device_workers_, finalize_;
  std::atomic<bool> ready_{false}, stopped_{false};
};

}  // namespace cuzk::engine
