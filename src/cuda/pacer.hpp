// Device work that can give way to more urgent work within a few milliseconds.
//
// The host issues a proof's kernels far ahead of the device: an MSM's whole window loop is
// queued in a millisecond and then runs for 100 ms or more. A pause asked for "between
// window groups" at issue time therefore comes after everything is already queued, and a
// CRITICAL proof that arrives meanwhile shares the SMs with all of it (on the H200 its
// kernel region grew from 33 ms alone to 136-150 ms beside a stream of 2^24 proofs).
//
// A Pacer keeps the host at most one segment ahead of the device on its stream. The caller
// cuts its work into segments of a few milliseconds and calls boundary() between them: it
// records an event, waits until the device has reached the boundary before (so at most the
// segment just issued and the one running are queued), then asks the pauses. A pause thus
// leaves the device within about one segment. Without pauses (an in-process proof, a
// CRITICAL one) a Pacer does nothing, and the work is issued as before, all at once.
#pragma once

#include <optional>

#include "core/phase_pauses.hpp"
#include "core/status.hpp"
#include "cuda/stream.hpp"

namespace cuzk::cuda {

class Pacer {
 public:
  Pacer(PhasePauses* pauses, const Stream& stream) : pauses_(pauses), stream_(stream) {}
  Pacer(const Pacer&) = delete;
  Pacer& operator=(const Pacer&) = delete;

  // Whether the caller should cut its work into segments at all.
  bool active() const { return pauses_ != nullptr; }

  // Between two segments issued on the stream.
  Status boundary() {
    if (pauses_ == nullptr) return Status::ok();
    std::optional<Event>& mark = marks_[next_];
    if (!mark) {
      CUZK_ASSIGN_OR_RETURN(Event e, Event::create(false));
      mark.emplace(std::move(e));
    }
    CUZK_RETURN_IF_ERROR(mark->record(stream_));
    next_ ^= 1;
    if (marks_[next_]) CUZK_RETURN_IF_ERROR(marks_[next_]->synchronize());  // the boundary before
    return pause_at_boundary(pauses_, [&] { return stream_.synchronize(); });
  }

 private:
  PhasePauses* pauses_;
  const Stream& stream_;
  std::optional<Event> marks_[2];
  int next_ = 0;
};

}  // namespace cuzk::cuda
