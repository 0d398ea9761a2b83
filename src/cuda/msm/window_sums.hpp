// The host end of the device MSM (cuda/msm/msm.hpp): the window sums copied back from the
// device, combined by Horner's rule. Plain C++ in window_sums.cpp rather than in the .cu
// files: nvcc's host pass compiles without the host field fast paths (ff/fp.hpp), and these
// few formulas were most of its time there.
#pragma once

#include <span>

#include "ec/jacobian.hpp"
#include "ec/xyzz.hpp"

namespace cuzk::cuda::msm_detail {

// window[0] + sum_w 2^(shift·w)·window[w] over window[1 ..]: window[0] is the ones' sum,
// window[1 + w] window w's (shift 0 when every window shares one bucket set).
template <class G>
ec::Jacobian<G> combine_window_sums(std::span<const ec::Xyzz<G>> window, unsigned shift);

}  // namespace cuzk::cuda::msm_detail
