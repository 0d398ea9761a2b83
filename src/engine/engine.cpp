#include "engine/engine.hpp"

#include "engine/memory_job_table.hpp"
#include "engine/stages.hpp"

namespace cuzk::engine {

namespace {

EngineConfig with_defaults(EngineConfig c) {
  const uint64_t ram = physical_memory_bytes();
  if (c.host_memory_bytes == 0) c.host_memory_bytes = ram / 2;
  if (c.key_cache_bytes == 0) c.key_cache_bytes = ram / 2;
  if (c.synthesis_threads == 0) c.synthesis_threads = 1;
  if (c.gpu_workers_per_device == 0) c.gpu_workers_per_device = 1;
  if (c.finalize_threads == 0) c.finalize_threads = 1;
  if (c.batch_max == 0) c.batch_max = 1;
  return c;
}

std::vector<Device*> raw(const std::vector<std::unique_ptr<Device>>& d) {
  std::vector<Device*> out;
  for (const auto& x : d) out.push_back(x.get());
  return out;
}

}  // namespace

Engine::Engine(EngineConfig config, std::vector<std::unique_ptr<Device>> devices, LogSink log,
               std::unique_ptr<JobTable> jobs)
    : config_(with_defaults(config)),
      owned_devices_(std::move(devices)),
      host_("host", config_.host_memory_bytes, config_.critical_reserve_bytes),
      keys_(config_.key_cache_bytes, raw(owned_devices_)),
      jobs_(jobs ? std::move(jobs) : std::make_unique<MemoryJobTable>(config_.result_ttl, config_.max_results)),
      scheduler_(owned_devices_.size(), config_.queue_capacity),
      pipeline_(config_, raw(owned_devices_), host_, keys_, *jobs_, scheduler_, metrics_, std::move(log)),
      recovery_(pipeline_),
      admission_(pipeline_) {
  pipeline_.recovery = &recovery_;
  for (Device* d : pipeline_.devices) metrics_.count("device_resets", "device", d->id(), 0);
  for (unsigned i = 0; i < config_.synthesis_threads; ++i)
    synthesis_.emplace_back([this] { run_synthesis_stage(pipeline_); });
  prestage_.emplace_back([this] { run_prestage_stage(pipeline_); });
  for (Device* d : pipeline_.devices) {
    for (unsigned w = 0; w < config_.gpu_workers_per_device; ++w) {
      device_workers_.emplace_back([this, d] { run_device_worker(pipeline_, *d); });
    }
    // One more worker takes CRITICAL proofs only: when every other worker is busy (one inside
    // the kernel region, the rest waiting at its lock with a proof each), a CRITICAL proof
    // still finds a worker, which takes it into the region's critical lane (kernel_lock.hpp).
    device_workers_.emplace_back([this, d] { run_device_worker(pipeline_, *d, Priority::kCritical); });
  }
  for (unsigned i = 0; i < config_.finalize_threads; ++i)
    finalize_.emplace_back([this] { run_finalize_stage(pipeline_); });
}

Engine::~Engine() { shutdown(std::chrono::milliseconds(0)); }

Result<JobState> Engine::cancel(const std::string& job_id) {
  CUZK_ASSIGN_OR_RETURN(JobRecord rec, jobs_->get(job_id));
  if (is_terminal(rec.state)) return rec.state;
  jobs_->finish(job_id, JobState::kCancelled, Status::ok(), rec.timings, {});
  if (ProofPtr p = pipeline_.find(job_id)) p->cancel.request_stop();
  for (ProofPtr& p : scheduler_.remove(job_id)) pipeline_.retire(std::move(p), JobState::kCancelled, Status::ok());
  return JobState::kCancelled;
}

Status Engine::self_test(const std::string& circuit_id, std::span<const uint8_t> wtns,
                         std::chrono::milliseconds timeout) {
  for (Device* d : pipeline_.devices) {
    SubmitRequest r;
    r.circuit_id = circuit_id;
    r.priority = Priority::kCritical;
    r.wtns = wtns;
    r.pinned_device = d->index();
    CUZK_ASSIGN_OR_RETURN(Submitted s, admission_.submit(r));
    CUZK_ASSIGN_OR_RETURN(JobRecord rec, jobs_->await(s.job_id, timeout));
    if (rec.state != JobState::kCompleted) {
      return internal_error(d->id() + ": self-test proof " + job_state_name(rec.state) +
                            (rec.error.is_ok() ? std::string() : ": " + rec.error.message()));
    }
  }
  ready_ = true;
  return Status::ok();
}

size_t Engine::live_devices() const {
  size_t n = 0;
  for (const Device* d : pipeline_.devices) n += d->dead() ? 0 : 1;
  return n;
}

EngineStatus Engine::status() const {
  EngineStatus s;
  s.ready = ready();
  s.draining = admission_.draining();
  s.queues = scheduler_.depths();
  for (Device* d : pipeline_.devices) {
    DeviceState ds;
    ds.id = d->id();
    ds.name = d->name();
    ds.backend = d->backend_name();
    ds.workers = config_.gpu_workers_per_device;
    ds.busy_workers = d->counters().busy_workers.load();
    ds.total_bytes = d->memory().limit();
    ds.free_bytes = d->memory().free();
    ds.baseline_bytes = d->baseline_bytes();
    ds.reserved_bytes = d->memory().in_use();
    ds.completed = d->counters().completed.load();
    ds.failed = d->counters().failed.load();
    ds.prestage_fallbacks = d->counters().prestage_fallbacks.load();
    ds.baseline_mismatches = d->counters().baseline_mismatches.load();
    ds.resets = d->counters().resets.load();
    ds.poisoned = d->poisoned();
    ds.dead = d->dead();
    ds.cache = d->cache_stats();
    s.devices.push_back(ds);
  }
  s.circuits = keys_.circuits();
  s.host_limit = host_.limit();
  s.host_in_use = host_.in_use();
  s.host_peak = host_.peak();
  s.key_cache_limit = keys_.budget();
  s.key_cache_bytes = keys_.loaded_bytes();
  s.jobs_in_flight = jobs_->in_flight();
  return s;
}

std::string Engine::metrics_text() const {
  std::string out = metrics_.render();
  EngineStatus s = status();
  write_gauge(out, "cuzk_ready", "1 when keys are loaded and the self-test proof passed on every device",
              {{"", s.ready ? 1.0 : 0.0}});
  write_gauge(out, "cuzk_jobs_in_flight", "Jobs admitted and not finished", {{"", double(s.jobs_in_flight)}});
  write_gauge(out, "cuzk_host_memory_limit_bytes", "Host memory budget", {{"", double(s.host_limit)}});
  write_gauge(out, "cuzk_host_memory_in_flight_bytes", "Host memory reserved by proofs in flight",
              {{"", double(s.host_in_use)}});
  write_gauge(out, "cuzk_key_cache_bytes", "Bytes of loaded proving keys", {{"", double(s.key_cache_bytes)}});
  std::vector<GaugeSample> depth;
  for (const auto& q : s.queues) {
    for (Priority p : kPrioritiesHighFirst) {
      depth.push_back({"stage=\"" + q.stage + "\",priority=\"" + priority_name(p) + "\"", double(q.depth[size_t(p)])});
    }
  }
  write_gauge(out, "cuzk_queue_depth", "Proofs waiting in a stage queue", depth);
  std::vector<GaugeSample> total, free, reserved, baseline, busy, up, cached, hits, misses, trims;
  for (const auto& d : s.devices) {
    std::string l = "device=\"" + d.id + "\"";
    up.push_back({l, d.dead ? 0.0 : 1.0});
    total.push_back({l, double(d.total_bytes)});
    free.push_back({l, double(d.free_bytes)});
    reserved.push_back({l, double(d.reserved_bytes)});
    baseline.push_back({l, double(d.baseline_bytes)});
    busy.push_back({l, double(d.busy_workers)});
    cached.push_back({l, double(d.cache.cached_bytes)});
    hits.push_back({l, double(d.cache.hits)});
    misses.push_back({l, double(d.cache.misses)});
    trims.push_back({l, double(d.cache.trims)});
  }
  write_gauge(out, "cuzk_device_memory_total_bytes", "Device memory budget", total);
  write_gauge(out, "cuzk_device_memory_free_bytes", "Device memory not reserved", free);
  write_gauge(out, "cuzk_device_memory_reserved_bytes", "Device memory reserved by proofs in flight", reserved);
  write_gauge(out, "cuzk_device_memory_baseline_bytes", "Device memory in use when idle", baseline);
  write_gauge(out, "cuzk_device_busy_workers", "Workers in or waiting for the kernel region", busy);
  write_gauge(out, "cuzk_device_alloc_cached_bytes", "Freed device blocks kept for reuse (outside every budget)",
              cached);
  write_counter(out, "cuzk_device_alloc_cache_hits_total", "Device allocations served by a kept block", hits);
  write_counter(out, "cuzk_device_alloc_cache_misses_total", "Device allocations that needed a cudaMalloc", misses);
  write_counter(out, "cuzk_device_alloc_trims_total",
                "Times kept blocks were freed for real (cudaFree: waits for all work on the device)", trims);
  write_gauge(out, "cuzk_device_up",
              "0 once a device could not be reset after a sticky fault (it takes no more work in this process)", up);
  return out;
}

void Engine::shutdown(std::chrono::milliseconds grace) {
  if (stopped_.exchange(true)) return;
  admission_.stop_admitting();
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (jobs_->in_flight() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (const JobRecord& j : jobs_->list(std::nullopt, 0)) {
    if (!is_terminal(j.state)) {
      if (ProofPtr p = pipeline_.find(j.job_id)) p->cancel.request_stop();
      jobs_->finish(j.job_id, JobState::kFailed, Status(StatusCode::kUnavailable, "the daemon shut down"), j.timings,
                    {});
    }
  }
  auto stop = [](ProofQueue& q, std::vector<std::thread>& threads) {
    q.close();
    for (auto& t : threads) t.join();
    threads.clear();
  };
  stop(scheduler_.synthesis(), synthesis_);
  stop(scheduler_.prestage(), prestage_);
  for (size_t i = 0; i < scheduler_.device_count(); ++i) scheduler_.device(i).close();
  for (auto& t : device_workers_) t.join();
  device_workers_.clear();
  stop(scheduler_.finalize(), finalize_);
  recovery_.stop();
}

}  // namespace cuzk::engine
