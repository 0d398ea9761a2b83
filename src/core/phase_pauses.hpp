// How a caller pauses long device work at its natural boundaries (between a proof's phases,
// between an MSM's window groups) so that more urgent work has the device to itself there:
// the engine pauses a lower-priority proof while a CRITICAL one is in the kernel region's
// critical lane. Called from whichever threads run the work.
#pragma once

#include "core/status.hpp"

namespace cuzk {

class PhasePauses {
 public:
  virtual ~PhasePauses() = default;
  // True when the work should pause now; cheap, asked at every boundary.
  virtual bool wanted() const = 0;
  // Blocks until the urgent work has gone (bounded by the implementation).
  virtual void pause() = 0;
};

// At a boundary: when `p` asks for a pause, first `drain()` (wait for the work already queued
// on the device, so the pause leaves the device free), then pause. Null `p`: nothing.
template <class Drain>
Status pause_at_boundary(PhasePauses* p, Drain&& drain) {
  if (p == nullptr || !p->wanted()) return Status::ok();
  CUZK_RETURN_IF_ERROR(drain());
  p->pause();
  return Status::ok();
}

}  // namespace cuzk
