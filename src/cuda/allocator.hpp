// The one accounted allocator of each device. Every device allocation in cuzk goes
// through it (DeviceBuffer::allocate does), so that what the engine holds is always known:
// nothing else calls cudaMalloc, and cudaMallocAsync pools are not used at all (memory
// freed to a pool is invisible to cudaMalloc).
//
// At creation it measures the device (cudaMemGetInfo): the used bytes then are the idle
// baseline; the budget is the free bytes minus a safety margin (default 512 MiB), capped
// by an optional limit (a test can pretend the card has 16 GiB). An allocation that would
// take the allocator past its budget fails before cudaMalloc is called, with a Status that
// names the site, the size, and what is reserved and free.
//
// Freed blocks may be kept for reuse (BudgetOptions::cache_freed, the daemon turns it on):
// cudaFree synchronizes the whole device, so a proof that frees its buffers would wait for
// every other proof's kernels on the card (the kernel region's critical lane, a second
// worker's stages); measured on the H200 behind a busy kernel: cudaFree 395 ms, cudaMalloc
// 0.3 ms. With the cache on, a block is cudaMalloc'ed at its size class (the size rounded up
// to 1/8 of its power of two, at least 64 KiB: at most 12.5% more), so scratch whose size
// follows the data (an MSM's, after the 0/1 split) finds a kept block of its class instead
// of growing the cache by a block of a new size each proof until cudaMalloc runs short and
// a trim (cudaFree, a device-wide wait) follows. The rounding is taken only while the live
// blocks, rounding included, stay within the budget, so what the budget admits always fits;
// it is counted in `rounding_bytes`, outside allocated and reserved. Kept blocks are freed
// for real (trim) when cudaMalloc runs short, on configure(), and on trim(); they are counted
// in `cached_bytes` and are never part of a budget's allocated or reserved bytes.
//
// Reservations: a stage that knows how many bytes it will need reserves them first (an
// RAII Reservation), then allocates from the reservation; a reservation that cannot fit
// fails at once instead of part-way through the stage.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.hpp"

namespace cuzk::cuda {

struct BudgetOptions {
  size_t safety_margin_bytes = size_t(512) << 20;
  size_t cap_bytes = 0;  // 0: no cap; else the budget is at most this many bytes
  bool cache_freed = false;  // keep freed blocks for reuse by allocations of the same size
};

struct AllocatorStats {
  int device = 0;
  size_t total_bytes = 0;     // the card's memory
  size_t baseline_used = 0;   // used (by anyone) when the allocator was created or re-based
  size_t budget_bytes = 0;    // what this allocator may hand out
  size_t allocated_bytes = 0; // live allocations
  size_t reserved_bytes = 0;  // held by reservations and not yet allocated from them
  size_t peak_bytes = 0;      // max of allocated + reserved since creation or reset_peak()
  size_t allocations = 0;     // live allocation count
  size_t cached_bytes = 0;    // freed blocks kept for reuse (cache_freed), not in allocated
  size_t cache_hits = 0;      // allocations served from kept blocks since creation
  size_t cache_misses = 0;    // allocations (cache on) that needed a cudaMalloc
  size_t trims = 0;           // times kept blocks were freed for real (cudaFree: a device-wide wait)
  size_t rounding_bytes = 0;  // live blocks' bytes beyond what was asked (size classes, cache on)
  size_t available_bytes() const {
    const size_t held = allocated_bytes + reserved_bytes;
    return held < budget_bytes ? budget_bytes - held : 0;
  }
};

class DeviceAllocator;

namespace detail {
// Bytes a reservation holds; shared by the Reservation handle and the allocations made
// from it, so either may go first.
struct ReservationState {
  DeviceAllocator* owner = nullptr;
  size_t unused = 0;  // reserved, not yet allocated
  bool open = true;   // false once the handle is gone: freed bytes then return to the pool
  std::string site;
};
}  // namespace detail

// A claim on `bytes()` of a device's budget. Allocations made with it draw on the claim;
// when the handle is destroyed its unused bytes return to the budget, and bytes still held
// by allocations return as those are freed.
class Reservation {
 public:
  Reservation() = default;
  Reservation(Reservation&&) noexcept = default;
  Reservation& operator=(Reservation&& o) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() { release(); }

  size_t unused_bytes() const;
  bool valid() const { return state_ != nullptr; }
  void release();

 private:
  friend class DeviceAllocator;
  explicit Reservation(std::shared_ptr<detail::ReservationState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::ReservationState> state_;
};

// One live device allocation as the allocator sees it; DeviceBuffer owns one.
struct Allocation {
  void* ptr = nullptr;
  size_t bytes = 0;  // asked for, and charged to the budget
  size_t block = 0;  // the block's size: bytes, or its size class (kept-block cache on)
  int device = 0;
  std::shared_ptr<detail::ReservationState> from;  // null: charged to the budget directly
  uint64_t epoch = 0;                              // the allocator's reset count when it was made (reset_device)
};

class DeviceAllocator {
 public:
  // The allocator of `device`, created on first use with `options` (later calls ignore
  // them; use configure()). Creation measures the baseline, so create it before loading
  // anything on the device.
  static Result<DeviceAllocator*> for_device(int device, const BudgetOptions& options = {});
  // The allocator of the calling thread's current device.
  static Result<DeviceAllocator*> current();

  // Re-measures the device and recomputes the budget with new options (kept blocks are
  // freed first). Fails if anything is allocated or reserved (the baseline would be wrong).
  Status configure(const BudgetOptions& options);

  // cudaMalloc of `bytes` within the budget (or within `from`, when given).
  Result<Allocation> allocate(size_t bytes, const char* site, Reservation* from = nullptr);
  // Frees an allocation made here (or keeps its block, with cache_freed); a failure can only
  // follow a sticky error.
  Status free(Allocation& a);
  // Frees every kept block (cudaFree). Returns the first error, having tried them all.
  Status trim();
  // Forgets every kept block without freeing it: after cudaDeviceReset they no longer exist.
  void forget_cache();

  // After a sticky error: destroys the device's CUDA context (cudaDeviceReset), then
  // re-measures the baseline and budget with the current options. Call it from one thread
  // once nothing uses the device. Allocations still live are abandoned: their memory went
  // with the context, so freeing them later returns only their accounting (never a
  // cudaFree of an address the new context may have handed out again).
  Status reset_device();
  // How many times reset_device() has run.
  uint64_t resets() const;

  // Claims `bytes` of the budget, or fails with kResourceExhausted naming `site`.
  Result<Reservation> reserve(size_t bytes, const char* site);
  // Whether `bytes` could be reserved now (no claim is made).
  bool fits(size_t bytes) const;

  AllocatorStats stats() const;
  void reset_peak();
  const BudgetOptions& options() const { return options_; }
  int device() const { return device_; }

  // The device's memory use right now (cudaMemGetInfo) against the baseline: ok when the
  // device is back at its baseline within `slack_bytes` and this allocator holds nothing
  // beyond `expected_allocated`; otherwise a Status saying how much is left over.
  Status check_baseline(size_t expected_allocated = 0, size_t slack_bytes = size_t(64) << 20) const;

 private:
  friend class Reservation;
  explicit DeviceAllocator(int device) : device_(device) {}
  Status measure(const BudgetOptions& options);
  Status out_of_budget(const char* what, size_t bytes, const char* site) const;
  void release_reservation(detail::ReservationState& s);
  // A kept block of `bytes`' size class (at least `bytes`, at most `limit`), or null; sets
  // *block to its size. Needs mu_.
  void* take_cached(size_t bytes, size_t limit, size_t* block);
  // The size of a new block for `bytes`: its size class when the cache is on and the
  // rounding fits the budget, else `bytes`. Needs mu_.
  size_t block_size(size_t bytes) const;
  size_t cached_bytes_now() const;

  const int device_;
  BudgetOptions options_;
  mutable std::mutex mu_;
  size_t total_ = 0, baseline_used_ = 0, budget_ = 0;
  size_t allocated_ = 0, reserved_ = 0, peak_ = 0, count_ = 0;
  std::multimap<size_t, void*> cache_;  // kept blocks by size
  size_t cached_ = 0, cache_hits_ = 0, cache_misses_ = 0, trims_ = 0, rounding_ = 0;
  uint64_t epoch_ = 0;
};

}  // namespace cuzk::cuda
