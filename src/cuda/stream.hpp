// Owned CUDA streams and events. Work in cuzk is issued on explicit streams, never on the
// legacy default stream, so that one worker's copies and kernels do not serialise another's.
//
// Streams and events are reused: one that is released idle (its work done) goes back to a
// per-device pool, and the next create() takes it. Creating one takes the driver's
// context-wide lock, which a thread issuing work to a full launch queue can hold for as long
// as the GPU takes to drain it: on the H200, beside a stream of 2^24 proofs, creating a
// CRITICAL proof's two streams and an event took 110-160 ms (the proof itself: 55 ms of
// kernels), and a large proof's 6-214 ms. After a device reset the pooled handles belong
// to a destroyed context: forget_pooled() drops them without a CUDA call.
#pragma once

#include <cuda_runtime_api.h>

#include "core/status.hpp"

namespace cuzk::cuda {

class Event;

// While one is alive on a thread, the streams that thread creates get the device's greatest
// stream priority: as SMs free up, their blocks are scheduled ahead of other streams' (a
// deadline-critical proof beside a running large one). Scopes nest.
class UrgentStreams {
 public:
  explicit UrgentStreams(bool on = true);
  ~UrgentStreams();
  UrgentStreams(const UrgentStreams&) = delete;
  UrgentStreams& operator=(const UrgentStreams&) = delete;
  static bool active();

 private:
  bool prev_;
};

class Stream {
 public:
  // A stream that does not synchronise with the legacy default stream (of the greatest
  // priority inside an UrgentStreams scope).
  static Result<Stream> create();

  Stream(Stream&& o) noexcept : s_(o.s_), device_(o.device_), urgent_(o.urgent_), generation_(o.generation_) {
    o.s_ = nullptr;
  }
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { (void)destroy(); }

  cudaStream_t get() const { return s_; }
  // Waits for everything issued so far; a kernel fault surfaces here as an error.
  Status synchronize() const;
  // Later work on this stream waits until `e` has completed.
  Status wait(const Event& e) const;
  // Gives the stream up now and reports the result (the destructor has to drop it): back
  // to its device's pool when its work is done, else destroyed (which lets that work finish).
  Status destroy();

 private:
  Stream(cudaStream_t s, int device, bool urgent, uint64_t generation)
      : s_(s), device_(device), urgent_(urgent), generation_(generation) {}
  cudaStream_t s_ = nullptr;
  int device_ = 0;
  bool urgent_ = false;
  uint64_t generation_ = 0;  // of its device's pool, when it was made
};

class Event {
 public:
  // `timing` = false makes a lighter event usable only for ordering.
  static Result<Event> create(bool timing = true);

  Event(Event&& o) noexcept : e_(o.e_), device_(o.device_), timing_(o.timing_), generation_(o.generation_) {
    o.e_ = nullptr;
  }
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { (void)destroy(); }

  cudaEvent_t get() const { return e_; }
  Status record(const Stream& s);
  Status synchronize() const;
  // Milliseconds between two recorded, completed timing events.
  static Result<float> elapsed_ms(const Event& start, const Event& end);
  // Gives the event up now: back to the pool when complete (or never recorded), else destroyed.
  Status destroy();

 private:
  Event(cudaEvent_t e, int device, bool timing, uint64_t generation)
      : e_(e), device_(device), timing_(timing), generation_(generation) {}
  cudaEvent_t e_ = nullptr;
  int device_ = 0;
  bool timing_ = true;
  uint64_t generation_ = 0;
};

// Idle streams and events kept for reuse, per device (see the top of this file).
struct PoolStats {
  size_t idle_streams = 0, idle_events = 0;
  uint64_t reused = 0, created = 0;  // streams and events together
};
PoolStats pool_stats(int device);
// Fills the current device's pools up to `urgent_streams` greatest-priority streams,
// `streams` others and `events` events of each kind, so that the first proofs (a first
// CRITICAL one among them) create none.
Status warm_pools(size_t urgent_streams, size_t streams, size_t events);
// Drops `device`'s pooled streams and events without destroying them, and makes those still
// held return nothing to the pool: for after cudaDeviceReset, which destroyed them all.
void forget_pooled(int device);

}  // namespace cuzk::cuda
