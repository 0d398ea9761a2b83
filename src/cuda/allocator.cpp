#include "cuda/allocator.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "cuda/cuda_status.hpp"
#include "cuda/fault.hpp"
#include "cuda/stream.hpp"

namespace cuzk::cuda {
namespace {

// Per-thread stack reserved for every kernel of the context (see measure()).
constexpr size_t kThreadStackBytes = 3072;

std::string mib(size_t bytes) {
  const double m = double(bytes) / double(1 << 20);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MiB", m);
  return buf;
}

// Makes `device` current for the scope and restores the caller's device after.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) {
    if (cudaGetDevice(&prev_) == cudaSuccess && prev_ != device) {
      ok_ = cudaSetDevice(device);
      restore_ = true;
    }
  }
  ~ScopedDevice() {
    if (restore_) cudaSetDevice(prev_);
  }
  cudaError_t status() const { return ok_; }

 private:
  int prev_ = 0;
  bool restore_ = false;
  cudaError_t ok_ = cudaSuccess;
};

// A kept-block cache's size class: `bytes` rounded up to an eighth of its power of two
// (at least 64 KiB), so sizes that drift from call to call share blocks, at most 12.5% over.
size_t size_class(size_t bytes) {
  constexpr size_t kMinStep = size_t(64) << 10;
  size_t pow2 = 1;
  while (pow2 <= bytes / 2) pow2 <<= 1;  // the greatest power of two <= bytes
  const size_t step = std::max(kMinStep, pow2 / 8);
  return (bytes + step - 1) / step * step;
}

}  // namespace

Reservation& Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    release();
    state_ = std::move(o.state_);
  }
  return *this;
}

size_t Reservation::unused_bytes() const {
  if (!state_) return 0;
  std::lock_guard lock(state_->owner->mu_);
  return state_->unused;
}

void Reservation::release() {
  if (!state_) return;
  state_->owner->release_reservation(*state_);
  state_.reset();
}

void DeviceAllocator::release_reservation(detail::ReservationState& s) {
  std::lock_guard lock(mu_);
  reserved_ -= s.unused;
  s.unused = 0;
  s.open = false;
}

Result<DeviceAllocator*> DeviceAllocator::for_device(int device, const BudgetOptions& options) {
  static std::mutex registry_mu;
  static auto* registry = new std::map<int, DeviceAllocator*>;  // per device, for the process's life
  std::lock_guard lock(registry_mu);
  if (auto it = registry->find(device); it != registry->end()) return it->second;
  auto* a = new DeviceAllocator(device);
  Status st = a->measure(options);
  if (!st.is_ok()) {
    delete a;
    return st;
  }
  registry->emplace(device, a);
  return a;
}

Result<DeviceAllocator*> DeviceAllocator::current() {
  int device = 0;
  CUZK_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device), "cudaGetDevice");
  return for_device(device);
}

Status DeviceAllocator::measure(const BudgetOptions& options) {
  ScopedDevice scope(device_);
  CUZK_RETURN_IF_ERROR(cuda_status(scope.status(), "cudaSetDevice(" + std::to_string(device_) + ")"));
  // The context's local memory for thread stacks is sized for every resident thread by the
  // largest stack launched so far, and it never shrinks: the G2 MSM kernels (their Fq2
  // products are calls) need up to ~2.8 KiB a thread (BLS12-381), beyond the default 1 KiB,
  // so their first launch took 110-330 MiB more on the H200, after the baseline. Reserve it
  // before measuring (3 KiB x every resident thread: ~0.8 GiB on an H200).
  // Never below what is reserved already (a re-measure after larger stacks ran).
  size_t stack = 0;
  CUZK_CUDA_RETURN_IF_ERROR(cudaDeviceGetLimit(&stack, cudaLimitStackSize),
                            "cudaDeviceGetLimit(cudaLimitStackSize, device " + std::to_string(device_) + ")");
  if (stack < kThreadStackBytes) {
    CUZK_CUDA_RETURN_IF_ERROR(cudaDeviceSetLimit(cudaLimitStackSize, kThreadStackBytes),
                              "cudaDeviceSetLimit(cudaLimitStackSize, device " + std::to_string(device_) + ")");
  }
  size_t free_bytes = 0, total = 0;
  CUZK_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total),
                            "cudaMemGetInfo(device " + std::to_string(device_) + ")");
  options_ = options;
  total_ = total;
  peak_ = allocated_ + reserved_;
  baseline_used_ = total - free_bytes;
  budget_ = free_bytes > options.safety_margin_bytes ? free_bytes - options.safety_margin_bytes : 0;
  if (options.cap_bytes != 0) budget_ = std::min(budget_, options.cap_bytes);
  return Status::ok();
}

Status DeviceAllocator::configure(const BudgetOptions& options) {
  {
    std::lock_guard lock(mu_);
    if (allocated_ != 0 || reserved_ != 0) {
      return failed_precondition("device " + std::to_string(device_) + " allocator: cannot re-measure with " +
                                 mib(allocated_) + " allocated and " + mib(reserved_) + " reserved");
    }
  }
  CUZK_RETURN_IF_ERROR(trim());
  std::lock_guard lock(mu_);
  return measure(options);
}

Status DeviceAllocator::out_of_budget(const char* what, size_t bytes, const char* site) const {
  const size_t held = allocated_ + reserved_;
  return {StatusCode::kResourceExhausted,
          std::string(site) + ": cannot " + what + " " + mib(bytes) + " on device " + std::to_string(device_) +
              ": budget " + mib(budget_) + ", " + mib(allocated_) + " allocated, " + mib(reserved_) +
              " reserved, " + mib(held < budget_ ? budget_ - held : 0) + " available"};
}

Result<Reservation> DeviceAllocator::reserve(size_t bytes, const char* site) {
  std::lock_guard lock(mu_);
  if (allocated_ + reserved_ + bytes > budget_ || bytes > budget_) return out_of_budget("reserve", bytes, site);
  reserved_ += bytes;
  peak_ = std::max(peak_, allocated_ + reserved_);
  auto s = std::make_shared<detail::ReservationState>();
  s->owner = this;
  s->unused = bytes;
  s->site = site;
  return Reservation(std::move(s));
}

bool DeviceAllocator::fits(size_t bytes) const {
  std::lock_guard lock(mu_);
  return bytes <= budget_ && allocated_ + reserved_ + bytes <= budget_;
}

Result<Allocation> DeviceAllocator::allocate(size_t bytes, const char* site, Reservation* from) {
  if (from != nullptr && from->state_ && from->state_->owner != this) {
    return invalid_argument(std::string(site) + ": reservation of device " + std::to_string(from->state_->owner->device_) +
                            " used on device " + std::to_string(device_));
  }
  CUZK_RETURN_IF_ERROR(inject_fault(FaultKind::kAlloc, site));
  Allocation a;
  a.bytes = bytes;
  a.block = bytes;
  a.device = device_;
  {
    std::lock_guard lock(mu_);
    if (from != nullptr && from->state_) {
      auto& s = *from->state_;
      if (bytes > s.unused) {
        return Status{StatusCode::kResourceExhausted,
                      std::string(site) + ": " + mib(bytes) + " exceeds the " + mib(s.unused) +
                          " left in its reservation (" + s.site + ")"};
      }
      s.unused -= bytes;
      reserved_ -= bytes;
      a.from = from->state_;
    } else if (allocated_ + reserved_ + bytes > budget_ || bytes > budget_) {
      return out_of_budget("allocate", bytes, site);
    }
    allocated_ += bytes;
    ++count_;
    peak_ = std::max(peak_, allocated_ + reserved_);
    a.epoch = epoch_;
  }
  if (bytes != 0) {
    std::lock_guard lock(mu_);
    const size_t limit = block_size(bytes);
    a.ptr = take_cached(bytes, limit, &a.block);
    if (a.ptr == nullptr) {
      a.block = limit;
      if (options_.cache_freed) ++cache_misses_;
    }
    rounding_ += a.block - bytes;
  }
  ScopedDevice scope(device_);
  cudaError_t err = scope.status();
  if (err == cudaSuccess && bytes != 0 && a.ptr == nullptr) {
    err = cudaMalloc(&a.ptr, a.block);
    if (err == cudaErrorMemoryAllocation && cached_bytes_now() != 0) {  // kept blocks in the way
      (void)cudaGetLastError();
      (void)trim();
      err = cudaMalloc(&a.ptr, a.block);
    }
  }
  if (err != cudaSuccess) {
    Status st = cuda_status(err, std::string(site) + ": cudaMalloc(" + mib(bytes) + " on device " +
                                     std::to_string(device_) + ")");
    a.ptr = nullptr;
    (void)free(a);  // return the accounting
    return st;
  }
  return a;
}

Status DeviceAllocator::free(Allocation& a) {
  cudaError_t err = cudaSuccess;
  bool kept = false, live_context = false;
  if (a.ptr != nullptr) {
    std::lock_guard lock(mu_);
    live_context = a.epoch == epoch_;  // a block of a reset context is gone: nothing to free or keep
    if (live_context && options_.cache_freed) {
      cache_.emplace(a.block, a.ptr);
      cached_ += a.block;
      kept = true;
    }
  }
  if (a.ptr != nullptr && live_context && !kept) {
    ScopedDevice scope(device_);
    err = cudaFree(a.ptr);
  }
  {
    std::lock_guard lock(mu_);
    allocated_ -= a.bytes;
    rounding_ -= a.block - a.bytes;
    --count_;
    if (a.from && a.from->open) {  // back to its reservation, which is still claimed
      a.from->unused += a.bytes;
      reserved_ += a.bytes;
    }
  }
  a = Allocation{};
  return cuda_status(err, "cudaFree");
}

size_t DeviceAllocator::block_size(size_t bytes) const {
  if (!options_.cache_freed) return bytes;
  const size_t rounded = size_class(bytes);
  // allocated_ already counts `bytes`: the rounding must fit beside everything held.
  return allocated_ + reserved_ + rounding_ + (rounded - bytes) <= budget_ ? rounded : bytes;
}

void* DeviceAllocator::take_cached(size_t bytes, size_t limit, size_t* block) {
  auto it = cache_.lower_bound(bytes);
  if (it == cache_.end() || it->first > limit) return nullptr;
  void* p = it->second;
  *block = it->first;
  cached_ -= it->first;
  cache_.erase(it);
  ++cache_hits_;
  return p;
}

size_t DeviceAllocator::cached_bytes_now() const {
  std::lock_guard lock(mu_);
  return cached_;
}

Status DeviceAllocator::trim() {
  std::multimap<size_t, void*> blocks;
  {
    std::lock_guard lock(mu_);
    blocks.swap(cache_);
    cached_ = 0;
  }
  if (blocks.empty()) return Status::ok();
  {
    std::lock_guard lock(mu_);
    ++trims_;
  }
  ScopedDevice scope(device_);
  cudaError_t first = scope.status();
  for (auto& [bytes, ptr] : blocks) {
    cudaError_t err = cudaFree(ptr);
    if (first == cudaSuccess) first = err;
  }
  return cuda_status(first, "cudaFree (trimming kept blocks on device " + std::to_string(device_) + ")");
}

void DeviceAllocator::forget_cache() {
  std::lock_guard lock(mu_);
  cache_.clear();
  cached_ = 0;
}

Status DeviceAllocator::reset_device() {
  const std::string dev = "device " + std::to_string(device_);
  // A lost context may fail cudaSetDevice with its sticky error; the device is still made
  // current, which is all cudaDeviceReset needs.
  (void)cudaSetDevice(device_);
  {
    std::lock_guard lock(mu_);
    ++epoch_;
    cache_.clear();  // kept blocks go with the context
    cached_ = 0;
  }
  forget_pooled(device_);  // the context's streams and events go with it
  CUZK_CUDA_RETURN_IF_ERROR(cudaDeviceReset(), "cudaDeviceReset(" + dev + ")");
  (void)cudaGetLastError();
  CUZK_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_), "cudaSetDevice(" + dev + ") after reset");
  std::lock_guard lock(mu_);
  return measure(options_);
}

uint64_t DeviceAllocator::resets() const {
  std::lock_guard lock(mu_);
  return epoch_;
}

AllocatorStats DeviceAllocator::stats() const {
  std::lock_guard lock(mu_);
  AllocatorStats s;
  s.device = device_;
  s.total_bytes = total_;
  s.baseline_used = baseline_used_;
  s.budget_bytes = budget_;
  s.allocated_bytes = allocated_;
  s.reserved_bytes = reserved_;
  s.peak_bytes = peak_;
  s.allocations = count_;
  s.cached_bytes = cached_;
  s.cache_hits = cache_hits_;
  s.cache_misses = cache_misses_;
  s.trims = trims_;
  s.rounding_bytes = rounding_;
  return s;
}

void DeviceAllocator::reset_peak() {
  std::lock_guard lock(mu_);
  peak_ = allocated_ + reserved_;
}

Status DeviceAllocator::check_baseline(size_t expected_allocated, size_t slack_bytes) const {
  const AllocatorStats s = stats();
  if (s.allocated_bytes != expected_allocated) {
    return internal_error("device " + std::to_string(device_) + ": " + mib(s.allocated_bytes) + " in " +
                          std::to_string(s.allocations) + " allocations still held, expected " +
                          mib(expected_allocated));
  }
  ScopedDevice scope(device_);
  CUZK_RETURN_IF_ERROR(cuda_status(scope.status(), "cudaSetDevice(" + std::to_string(device_) + ")"));
  size_t free_bytes = 0, total = 0;
  CUZK_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  const size_t used = total - free_bytes;
  const size_t expected = s.baseline_used + expected_allocated + s.rounding_bytes + s.cached_bytes;
  if (used > expected + slack_bytes) {
    return internal_error("device " + std::to_string(device_) + ": " + mib(used) + " in use, baseline " +
                          mib(s.baseline_used) + " + " + mib(expected_allocated) + " allocated + " +
                          mib(s.cached_bytes) + " kept expected (" +
                          mib(used - expected) + " over)");
  }
  return Status::ok();
}

}  // namespace cuzk::cuda
