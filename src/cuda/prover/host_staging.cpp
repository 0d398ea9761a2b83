#include "cuda/prover/host_staging.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include "cuda/cuda_status.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fault.hpp"

namespace cuzk::cuda {

// Two pinned chunks and, for each, the event of the last DMA that read it.
struct HostStaging::Set {
  PinnedBuffer<std::byte> chunk[2];
  std::optional<Event> read[2];
};

HostStaging::HostStaging(size_t chunk_bytes, ThreadPool& pool)
    : chunk_bytes_(std::max<size_t>(chunk_bytes, size_t(1) << 16)), pool_(pool) {}

HostStaging::~HostStaging() = default;

size_t HostStaging::pinned_bytes() const {
  std::lock_guard lock(mu_);
  return pinned_;
}

Result<std::unique_ptr<HostStaging::Set>> HostStaging::acquire() {
  {
    std::lock_guard lock(mu_);
    if (!free_.empty()) {
      auto set = std::move(free_.back());
      free_.pop_back();
      return Result<std::unique_ptr<Set>>(std::move(set));
    }
  }
  auto set = std::make_unique<Set>();
  for (int i = 0; i < 2; ++i) {
    CUZK_RETURN_IF_ERROR(inject_fault(FaultKind::kAlloc, "prover.staging.pinned"));
    CUZK_ASSIGN_OR_RETURN(set->chunk[i], PinnedBuffer<std::byte>::allocate(chunk_bytes_));
    CUZK_ASSIGN_OR_RETURN(Event e, Event::create(false));
    set->read[i].emplace(std::move(e));
  }
  std::lock_guard lock(mu_);
  pinned_ += 2 * chunk_bytes_;
  return Result<std::unique_ptr<Set>>(std::move(set));
}

void HostStaging::give_back(std::unique_ptr<Set> set) {
  std::lock_guard lock(mu_);
  free_.push_back(std::move(set));
}

Status HostStaging::copy_to_device(void* dst, const void* src, size_t bytes, const Stream& s, const char* site,
                                   Split* split) {
  if (bytes == 0) return Status::ok();
  using Clock = std::chrono::steady_clock;
  Split local;
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  const auto t_acquire = Clock::now();
  CUZK_ASSIGN_OR_RETURN(std::unique_ptr<Set> set, acquire());
  local.acquire = since(t_acquire);
  auto* out = static_cast<std::byte*>(dst);
  const auto* in = static_cast<const std::byte*>(src);
  constexpr size_t kMemcpyPiece = size_t(1) << 20;  // per host thread and task
  const size_t chunks = (bytes + chunk_bytes_ - 1) / chunk_bytes_;
  Status st = Status::ok();
  for (size_t k = 0; k < chunks && st.is_ok(); ++k) {
    const int b = int(k % 2);
    const size_t lo = k * chunk_bytes_, len = std::min(chunk_bytes_, bytes - lo);
    // The DMA of chunk k-2 read this chunk last.
    auto t0 = Clock::now();
    st = set->read[b]->synchronize();
    local.link_wait += since(t0);
    if (!st.is_ok()) break;
    std::byte* pinned = set->chunk[b].data();
    t0 = Clock::now();
    pool_.parallel_for(
        0, len, [&](size_t a, size_t e) { std::memcpy(pinned + a, in + lo + a, e - a); }, kMemcpyPiece);
    local.host_copy += since(t0);
    t0 = Clock::now();
    st = copy_async(out + lo, pinned, len, cudaMemcpyHostToDevice, s.get(), site);
    if (st.is_ok()) st = set->read[b]->record(s);
    local.issue += since(t0);
  }
  // Whatever happened, nothing may still read a chunk once the set is back in the pool.
  const auto t0 = Clock::now();
  for (int b = 0; b < 2; ++b) {
    Status done = set->read[b]->synchronize();
    if (st.is_ok()) st = done;
  }
  local.link_wait += since(t0);
  if (split != nullptr) *split = local;
  give_back(std::move(set));
  return st;
}

}  // namespace cuzk::cuda
