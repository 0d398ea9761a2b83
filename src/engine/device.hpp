// A proving device: its memory budget, the lock around its kernel region, its prover
// backends, and the byte needs of the three device stages of one proof, which the engine
// runs through the backend (groth16::Backend upload / compute / read_back):
//   (a) upload   the witness onto the device, outside the lock (pre-staging);
//   (b) kernel   synthesis, the H pipeline and the MSMs, under the device's lock;
//   (c) readback the MSM sums back to the host, outside the lock.
// When (a) does not fit when the proof is pre-staged, the proof takes the fallback path:
// it holds no device memory while it waits, and uploads inside the kernel region, which
// needs fallback_kernel bytes then. The CPU device runs everything on the host; a CUDA
// device gives its backends and its allocator's budget.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/status.hpp"
#include "engine/kernel_lock.hpp"
#include "engine/key_shape.hpp"
#include "engine/memory_budget.hpp"

// Declared only: engine headers stay free of the MSM and NTT templates (device.cpp files
// that implement a backend include them).
namespace cuzk {
class ThreadPool;
namespace bn254 {
struct Curve;
}
namespace bls12_381 {
struct Curve;
}
namespace groth16 {
template <class C>
class Backend;
}
}  // namespace cuzk

namespace cuzk::engine {

struct DeviceStageBytes {
  uint64_t upload = 0;           // (a): inputs resident on the device
  uint64_t kernel = 0;           // (b) with the inputs resident
  uint64_t fallback_kernel = 0;  // (b) streaming the inputs in (no pre-staging)
  uint64_t readback = 0;         // (c)

  uint64_t prestaged_path() const { return upload + kernel + readback; }
  uint64_t fallback_path() const { return fallback_kernel + readback; }
};

// Counters a device keeps for GetStatus and /metrics.
struct DeviceCounters {
  std::atomic<uint64_t> completed{0}, failed{0}, prestage_fallbacks{0}, baseline_mismatches{0};
  std::atomic<uint64_t> resets{0}, reset_failures{0};  // after sticky faults (device_recovery.hpp)
  std::atomic<uint64_t> batches{0};                    // holds of the kernel region
  std::atomic<uint32_t> busy_workers{0};
};

// A device allocator's kept-block cache (cuda::AllocatorStats); zero where there is none.
struct DeviceCacheStats {
  uint64_t cached_bytes = 0, rounding_bytes = 0;
  uint64_t hits = 0, misses = 0, trims = 0;
};

class Device {
 public:
  virtual ~Device() = default;

  const std::string& id() const { return id_; }  // "cpu:0", "cuda:1": unambiguous
  size_t index() const { return index_; }        // position in the engine's device list
  virtual std::string name() const = 0;          // what the hardware calls itself
  virtual std::string backend_name() const = 0;

  // The device's memory, as reservations: every stage reserves before it touches it.
  MemoryBudget& memory() { return *memory_; }
  const MemoryBudget& memory() const { return *memory_; }
  // Bytes in use when no proof runs, measured when the device came up.
  uint64_t baseline_bytes() const { return baseline_; }
  // Bytes in use now as the device itself reports them (a CUDA device: total - free from
  // cudaMemGetInfo); compared against the baseline after failures.
  virtual uint64_t measured_in_use() const = 0;
  // Freed device blocks kept for reuse (a CUDA device's allocator), for status and metrics.
  virtual DeviceCacheStats cache_stats() const { return {}; }
  // Bytes in use beyond the idle baseline and the live reservations: what an error path
  // left behind. Zero on a healthy device.
  int64_t unaccounted_bytes() const {
    return int64_t(measured_in_use()) - int64_t(memory_->in_use()) - int64_t(baseline_);
  }

  // The bytes each stage reserves for a proof of `key`, given what the key's backend says
  // upload and compute take on this device (groth16::Backend::upload_bytes/compute_bytes).
  virtual DeviceStageBytes stage_bytes(const KeyShape& key, uint64_t backend_upload,
                                       uint64_t backend_compute) const = 0;

  // A scope (on the calling thread) inside which the device work a proof issues is urgent:
  // a CUDA device gives its streams the greatest priority (cuda::UrgentStreams); others
  // nothing. The engine opens one around a CRITICAL proof's device stages.
  virtual std::shared_ptr<void> urgent_scope() { return nullptr; }

  // The kernel region's lock, shared by the device's workers, granted by priority.
  KernelLock& kernel_lock() { return kernel_lock_; }

  // The prover backend and host thread pool that proofs on this device use.
  virtual groth16::Backend<bn254::Curve>& bn254_backend() = 0;
  virtual groth16::Backend<bls12_381::Curve>& bls12_381_backend() = 0;
  virtual ThreadPool& host_pool() = 0;
  template <class C>
  groth16::Backend<C>& backend();

  // Ok, or kDeviceLost when a sticky fault has lost the device's context (a CUDA device
  // asks the driver; the CPU device its injected-fault state).
  virtual Status health() = 0;
  // Makes the device new after a sticky fault: its context (cudaDeviceReset on a GPU) and
  // its backends, then re-measures the idle baseline. Only once nothing uses the device:
  // no Use is held and every object made by its backends (prepared keys, jobs) is gone.
  virtual Status reset() = 0;

  // Sticky-fault state: a poisoned device takes no new work until it has been reset; a
  // dead one is one whose reset failed, for good.
  bool poisoned() const { return poisoned_.load(); }
  bool dead() const { return dead_.load(); }
  // Marks the device poisoned; true for the call that did (it reports the fault).
  bool poison();
  // Serves again after a reset (heal), or never (bury).
  void heal();
  void bury();
  // Waits until the device is not poisoned, up to `max`; true when it is healthy.
  bool wait_healthy(std::chrono::milliseconds max);

  // Held by every stage while it runs backend calls on the device or owns a proof's device
  // state (pre-staging to the push into the device's queue, a worker from pop to read-back).
  // Not granted on a poisoned device, so after poison() the users only drain.
  class Use {
   public:
    Use() = default;
    Use(Use&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
    Use& operator=(Use&& o) noexcept {
      if (this != &o) {
        release();
        d_ = std::exchange(o.d_, nullptr);
      }
      return *this;
    }
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    ~Use() { release(); }
    explicit operator bool() const { return d_ != nullptr; }
    void release();

   private:
    friend class Device;
    explicit Use(Device* d) : d_(d) {}
    Device* d_ = nullptr;
  };
  // A Use, or an empty one when the device is poisoned.
  Use enter();
  // Waits until no Use is held (the drain after a sticky fault).
  void wait_idle();

  DeviceCounters& counters() { return counters_; }
  const DeviceCounters& counters() const { return counters_; }

 protected:
  Device(size_t index, std::string id, std::unique_ptr<MemoryBudget> memory)
      : index_(index), id_(std::move(id)), memory_(std::move(memory)) {}
  void set_baseline(uint64_t bytes) { baseline_ = bytes; }

 private:
  std::mutex state_mu_;
  std::condition_variable state_cv_;
  std::atomic<bool> poisoned_{false}, dead_{false};
  uint32_t users_ = 0;

  size_t index_;
  std::string id_;
  std::unique_ptr<MemoryBudget> memory_;
  uint64_t baseline_ = 0;
  KernelLock kernel_lock_;
  DeviceCounters counters_;
};

template <>
inline groth16::Backend<bn254::Curve>& Device::backend<bn254::Curve>() {
  return bn254_backend();
}
template <>
inline groth16::Backend<bls12_381::Curve>& Device::backend<bls12_381::Curve>() {
  return bls12_381_backend();
}

}  // namespace cuzk::engine
