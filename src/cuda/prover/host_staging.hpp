// Host-to-device copies from pageable host memory at PCIe speed. A copy from pageable
// memory goes through the driver's own small staging buffer, one piece at a time, at about
// half the link's rate; here the source is copied by the host threads into page-locked
// chunks (two per copy: the memcpy of chunk k+1 runs while the DMA of chunk k does), and
// the copy engine reads those.
//
// The pinned chunks are allocated once and reused: a small pool of staging sets (two
// chunks each), one taken by each copy in flight, so that several uploads (the daemon runs
// one proof's upload while another computes) never share a chunk. The pool grows to the
// largest number of copies that were ever in flight at once; pinned_bytes() says what it
// holds. Freed by the destructor.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "cuda/stream.hpp"

namespace cuzk::cuda {

class HostStaging {
 public:
  // `chunk_bytes` per pinned chunk; the memcpy into a chunk runs on `pool`'s threads.
  HostStaging(size_t chunk_bytes, ThreadPool& pool);
  ~HostStaging();
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;

  // Copies `bytes` from host memory `src` (any kind) to device memory `dst`, issued on `s`;
  // returns once the data is on the device (or, on an error, once nothing issued here is
  // still reading a chunk). Every DMA passes the fault injector as a copy named `site`.
  // A failure to pin a chunk is an allocation fault site "prover.staging.pinned".
  // `split`, when given, receives the seconds spent copying into the pinned chunks and
  // waiting for the DMA of earlier chunks (the two add up to about the call's time).
  struct Split {
    double acquire = 0;    // taking a set of pinned chunks (pinning new ones when none is free)
    double host_copy = 0;  // copying into the chunks
    double issue = 0;      // issuing the DMAs and their events
    double link_wait = 0;  // waiting for the DMA of earlier chunks
  };
  Status copy_to_device(void* dst, const void* src, size_t bytes, const Stream& s, const char* site,
                        Split* split = nullptr);

  // Page-locked host bytes held by the pool (its sets, in use or not).
  size_t pinned_bytes() const;
  size_t chunk_bytes() const { return chunk_bytes_; }

 private:
  struct Set;
  Result<std::unique_ptr<Set>> acquire();
  void give_back(std::unique_ptr<Set> set);

  const size_t chunk_bytes_;
  ThreadPool& pool_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Set>> free_;
  size_t pinned_ = 0;
};

}  // namespace cuzk::cuda
