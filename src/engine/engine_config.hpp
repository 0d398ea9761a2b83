// The engine's knobs (the daemon's [engine] TOML table maps onto these one to one).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace cuzk::engine {

struct EngineConfig {
  uint64_t host_memory_bytes = 0;       // host budget for witnesses and a, b, c; 0 = half of RAM
  uint64_t critical_reserve_bytes = 0;  // of the host and device budgets, kept for CRITICAL proofs
  uint64_t key_cache_bytes = 0;         // loaded keys; 0 = half of RAM
  unsigned synthesis_threads = 1;
  unsigned gpu_workers_per_device = 2;
  unsigned finalize_threads = 1;
  size_t queue_capacity = 1024;  // per stage; a full admission queue answers RESOURCE_EXHAUSTED
  // Same-circuit batching at each device: a worker takes up to batch_max queued proofs of
  // one circuit and priority (and waits up to batch_wait for more; 0: what is queued then)
  // and runs them back to back under one hold of the kernel region. 1 turns batching off;
  // CRITICAL goes alone.
  unsigned batch_max = 4;
  std::chrono::milliseconds batch_wait{0};
  std::chrono::seconds result_ttl{3600};
  size_t max_results = 10000;
};

// Physical memory of this host in bytes (sysconf), for the 0 = auto defaults.
uint64_t physical_memory_bytes();

}  // namespace cuzk::engine
