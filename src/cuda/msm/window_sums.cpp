#include "cuda/msm/window_sums.hpp"

#include "ec/curves.hpp"

namespace cuzk::cuda::msm_detail {

template <class G>
ec::Jacobian<G> combine_window_sums(std::span<const ec::Xyzz<G>> window, unsigned shift) {
  ec::Xyzz<G> total = ec::Xyzz<G>::infinity();
  for (size_t w = window.size(); w-- > 1;) {
    for (unsigned i = 0; i < shift; ++i) total = total.dbl();
    total += window[w];
  }
  if (!window.empty()) total += window[0];
  return total.to_jacobian();
}

template ec::Jacobian<bn254::G1Config> combine_window_sums(std::span<const ec::Xyzz<bn254::G1Config>>, unsigned);
template ec::Jacobian<bn254::G2Config> combine_window_sums(std::span<const ec::Xyzz<bn254::G2Config>>, unsigned);
template ec::Jacobian<bls12_381::G1Config> combine_window_sums(std::span<const ec::Xyzz<bls12_381::G1Config>>,
                                                               unsigned);
template ec::Jacobian<bls12_381::G2Config> combine_window_sums(std::span<const ec::Xyzz<bls12_381::G2Config>>,
                                                               unsigned);

}  // namespace cuzk::cuda::msm_detail
