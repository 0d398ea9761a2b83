#include <algorithm>
#include <vector>

#include "cuda/cuda_status.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/setup/fixed_base.hpp"
#include "cuda/setup/fixed_base_table.hpp"
#include "cuda/stream.hpp"
#include "ec/curves.hpp"
#include "ec/jacobian.hpp"

namespace cuzk::cuda {
namespace {

constexpr unsigned kWindow = 12;
constexpr unsigned kRow = (1u << kWindow) - 1;
constexpr unsigned kGroup = 16;  // points per inversion
constexpr size_t kChunk = size_t(1) << 22;

template <size_t N>
__device__ __forceinline__ uint32_t window_digit(const ff::BigInt<N>& k, unsigned offset) {
  const unsigned limb = offset / 64, shift = offset % 64;
  uint64_t v = k.limb[limb] >> shift;
  if (shift + kWindow > 64 && limb + 1 < N) v |= k.limb[limb + 1] << (64 - shift);
  return uint32_t(v & kRow);
}

// One thread per group of kGroup scalars: the multiples, then their affine forms with one
// inversion (Montgomery's trick).
template <class G>
__global__ void fixed_base_kernel(const ec::Affine<G>* table, unsigned windows, const typename G::Scalar* scalars,
                                  ec::Affine<G>* out, size_t n) {
  using Jac = ec::Jacobian<G>;
  using Base = typename G::Base;
  const size_t lo = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * kGroup;
  if (lo >= n) return;
  const unsigned count = unsigned(min(size_t(kGroup), n - lo));
  Jac p[kGroup];
  for (unsigned j = 0; j < count; ++j) {
    const auto k = scalars[lo + j].to_canonical();
    Jac acc = Jac::infinity();
    for (unsigned w = 0; w < windows; ++w) {
      const uint32_t d = window_digit(k, w * kWindow);
      if (d != 0) acc += table[size_t(w) * kRow + d - 1];
    }
    p[j] = acc;
  }
  Base prefix[kGroup];
  Base acc = Base::one();
  for (unsigned j = 0; j < count; ++j) {
    prefix[j] = acc;
    if (!p[j].is_infinity()) acc = acc * p[j].z;
  }
  Base inv = acc.inverse();
  for (unsigned j = count; j-- > 0;) {
    if (p[j].is_infinity()) {
      out[lo + j] = ec::Affine<G>::infinity();
      continue;
    }
    const Base zi = inv * prefix[j];
    inv = inv * p[j].z;
    const Base zi2 = zi.square();
    out[lo + j] = {p[j].x * zi2, p[j].y * zi2 * zi};
  }
}

}  // namespace

template <class G>
Status fixed_base_mul(const ec::Affine<G>& base, std::span<const typename G::Scalar> scalars,
                      std::span<ec::Affine<G>> out, ThreadPool& pool) {
  using A = ec::Affine<G>;
  using Scalar = typename G::Scalar;
  if (scalars.size() != out.size()) {
    return invalid_argument("fixed_base_mul: " + std::to_string(scalars.size()) + " scalars for " +
                            std::to_string(out.size()) + " outputs");
  }
  if (scalars.empty()) return Status::ok();
  const unsigned windows = (Scalar::BITS + kWindow - 1) / kWindow;
  const std::vector<A> host_table = setup_detail::fixed_base_table<G>(base, windows, kWindow, pool);
  CUZK_ASSIGN_OR_RETURN(Stream s, Stream::create());
  CUZK_ASSIGN_OR_RETURN(auto table, DeviceBuffer<A>::allocate(host_table.size(), "setup.fixed_base.table"));
  CUZK_RETURN_IF_ERROR(table.upload(host_table, s));
  const size_t chunk = std::min(kChunk, scalars.size());
  CUZK_ASSIGN_OR_RETURN(auto d_scalars, DeviceBuffer<Scalar>::allocate(chunk, "setup.fixed_base.scalars"));
  CUZK_ASSIGN_OR_RETURN(auto d_out, DeviceBuffer<A>::allocate(chunk, "setup.fixed_base.points"));
  constexpr unsigned kThreads = 128;
  for (size_t lo = 0; lo < scalars.size(); lo += chunk) {
    const size_t len = std::min(chunk, scalars.size() - lo);
    CUZK_RETURN_IF_ERROR(d_scalars.upload(scalars.subspan(lo, len), s));
    const size_t groups = (len + kGroup - 1) / kGroup;
    fixed_base_kernel<G><<<unsigned((groups + kThreads - 1) / kThreads), kThreads, 0, s.get()>>>(
        table.data(), windows, d_scalars.data(), d_out.data(), len);
    CUZK_RETURN_IF_ERROR(check_launch("setup.fixed_base"));
    CUZK_RETURN_IF_ERROR(d_out.download(out.subspan(lo, len), s));
    CUZK_RETURN_IF_ERROR(s.synchronize());
  }
  return Status::ok();
}

template Status fixed_base_mul<bn254::G1Config>(const ec::Affine<bn254::G1Config>&, std::span<const bn254::Fr>,
                                                std::span<ec::Affine<bn254::G1Config>>, ThreadPool&);
template Status fixed_base_mul<bn254::G2Config>(const ec::Affine<bn254::G2Config>&, std::span<const bn254::Fr>,
                                                std::span<ec::Affine<bn254::G2Config>>, ThreadPool&);
template Status fixed_base_mul<bls12_381::G1Config>(const ec::Affine<bls12_381::G1Config>&,
                                                    std::span<const bls12_381::Fr>,
                                                    std::span<ec::Affine<bls12_381::G1Config>>, ThreadPool&);
template Status fixed_base_mul<bls12_381::G2Config>(const ec::Affine<bls12_381::G2Config>&,
                                                    std::span<const bls12_381::Fr>,
                                                    std::span<ec::Affine<bls12_381::G2Config>>, ThreadPool&);

}  // namespace cuzk::cuda
