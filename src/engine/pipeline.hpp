// What the stages share: the queues, budgets, key cache, job table, devices and metrics,
// and retire(), the one way a proof leaves the pipeline. The Engine owns and wires these;
// each stage (admission.cpp, synthesis_stage.cpp, prestage_stage.cpp, device_worker.cpp,
// finalize_stage.cpp) reads only this.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/device.hpp"
#include "engine/engine_config.hpp"
#include "engine/job_table.hpp"
#include "engine/key_cache.hpp"
#include "engine/log_sink.hpp"
#include "engine/memory_budget.hpp"
#include "engine/metrics.hpp"
#include "engine/scheduler.hpp"

namespace cuzk::engine {

class DeviceRecovery;

struct Pipeline {
  Pipeline(EngineConfig c, std::vector<Device*> d, MemoryBudget& h, KeyCache& k, JobTable& j, Scheduler& s, Metrics& m,
           LogSink l)
      : config(c), devices(std::move(d)), host(h), keys(k), jobs(j), scheduler(s), metrics(m), log(std::move(l)) {}

  EngineConfig config;
  std::vector<Device*> devices;
  MemoryBudget& host;
  KeyCache& keys;
  JobTable& jobs;
  Scheduler& scheduler;
  Metrics& metrics;
  LogSink log;
  DeviceRecovery* recovery = nullptr;  // set by the Engine once it exists

  // Ends a proof: records the outcome in the job table, the metrics and the log (one
  // timing line per proof), and drops the pipeline's hold on it, which frees its memory.
  void retire(ProofPtr proof, JobState state, Status error, ProofResult result = {});
  // retire() with FAILED, or CANCELLED when the job was cancelled (the usual reason a
  // wait inside a stage returns early).
  void fail(ProofPtr proof, Status error);
  // Fails a proof whose device stage failed (INTERNAL unless it was out of memory), counts
  // it, and checks the device against its idle baseline once the proof's memory is freed.
  // A sticky fault (kDeviceLost, or a device whose health() says lost) poisons the device
  // and reports it to the recovery. Call it while still holding the stage's Device::Use.
  void fail_on_device(ProofPtr proof, Device& device, const Status& error);
  // Sends a proof back to pre-staging without its device state (its device was poisoned
  // before it ran): it is placed again, on a healthy device or on this one once it is back.
  void requeue(ProofPtr proof);
  // requeue() for every proof waiting in the device's queue.
  void requeue_from(Device& device);

  // Jobs admitted and not yet retired, for cancellation of running ones.
  void track(const ProofPtr& p);
  void untrack(const std::string& job_id);
  ProofPtr find(const std::string& job_id);

 private:
  std::mutex active_mu_;
  std::map<std::string, std::weak_ptr<PendingProof>> active_;
};

}  // namespace cuzk::engine
