// Owned CUDA streams and events. Work in cuzk is issued on explicit streams, never on the
// legacy default stream, so that one worker's copies and kernels do not serialise another's.
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

  Stream(Stream&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { (void)destroy(); }

  cudaStream_t get() const { return s_; }
  // Waits for everything issued so far; a kernel fault surfaces here as an error.
  Status synchronize() const;
  // Later work on this stream waits until `e` has completed.
  Status wait(const Event& e) const;
  // Destroys the stream now and reports the result (the destructor has to drop it).
  Status destroy();

 private:
  explicit Stream(cudaStream_t s) : s_(s) {}
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  // `timing` = false makes a lighter event usable only for ordering.
  static Result<Event> create(bool timing = true);

  Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { (void)destroy(); }

  cudaEvent_t get() const { return e_; }
  Status record(const Stream& s);
  Status synchronize() const;
  // Milliseconds between two recorded, completed timing events.
  static Result<float> elapsed_ms(const Event& start, const Event& end);
  Status destroy();

 private:
  explicit Event(cudaEvent_t e) : e_(e) {}
  cudaEvent_t e_ = nullptr;
};

}  // namespace cuzk::cuda
