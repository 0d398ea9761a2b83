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
// Points per inversion: the kernel keeps a group's Jacobian results and prefix products in
// local memory, so the group is sized to keep its stack frame near 1.5 KiB, below the
// 3 KiB per thread the allocator reserves before measuring its baseline (a larger frame
// makes the driver grow the context's local memory at first launch, for good: 16 BLS12-381
// G2 points took 6.5 KiB per thread, ~1.7 GiB over the card).
template <class G>
constexpr unsigned group_size() {
  constexpr size_t per = sizeof(ec::Jacobian<G>) + sizeof(typename G::Base);
  return unsigned(std::clamp<size_t>(1536 / per, 2, 16));
}
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
  constexpr unsigned kGroup = group_size<G>();
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
FixedBaseMul<G>::FixedBaseMul(DeviceBuffer<ec::Affine<G>> table, unsigned windows, Stream stream,
                              DeviceBuffer<Scalar> scalars)
    : table_(std::move(table)), windows_(windows), stream_(std::move(stream)), scalars_(std::move(scalars)) {}

template <class G>
Result<FixedBaseMul<G>> FixedBaseMul<G>::create(const ec::Affine<G>& base, ThreadPool& pool) {
  using A = ec::Affine<G>;
  const unsigned windows = (Scalar::BITS + kWindow - 1) / kWindow;
  const std::vector<A> host_table = setup_detail::fixed_base_table<G>(base, windows, kWindow, pool);
  CUZK_ASSIGN_OR_RETURN(Stream s, Stream::create());
  CUZK_ASSIGN_OR_RETURN(auto table, DeviceBuffer<A>::allocate(host_table.size(), "setup.fixed_base.table"));
  CUZK_RETURN_IF_ERROR(table.upload(host_table, s));
  CUZK_ASSIGN_OR_RETURN(auto scalars, DeviceBuffer<Scalar>::allocate(kChunk, "setup.fixed_base.scalars"));
  CUZK_RETURN_IF_ERROR(s.synchronize());  // host_table goes out of scope
  return FixedBaseMul(std::move(table), windows, std::move(s), std::move(scalars));
}

template <class G>
Status FixedBaseMul<G>::to_device(std::span<const Scalar> scalars, ec::Affine<G>* out) {
  Status st = issue(scalars, out);
  if (!st.is_ok()) {
    (void)stream_.synchronize();  // what was issued finishes before the caller frees `out`
    return st;
  }
  return stream_.synchronize();
}

template <class G>
Status FixedBaseMul<G>::issue(std::span<const Scalar> scalars, ec::Affine<G>* out) {
  constexpr unsigned kThreads = 128;
  for (size_t lo = 0; lo < scalars.size(); lo += kChunk) {
    const size_t len = std::min(kChunk, scalars.size() - lo);
    // The copy waits (in stream order) for the previous chunk's kernel to read the buffer.
    CUZK_RETURN_IF_ERROR(scalars_.upload(scalars.subspan(lo, len), stream_));
    const size_t groups = (len + group_size<G>() - 1) / group_size<G>();
    fixed_base_kernel<G><<<unsigned((groups + kThreads - 1) / kThreads), kThreads, 0, stream_.get()>>>(
        table_.data(), windows_, scalars_.data(), out + lo, len);
    CUZK_RETURN_IF_ERROR(check_launch("setup.fixed_base"));
  }
  return Status::ok();
}

template <class G>
Result<DeviceBuffer<ec::Affine<G>>> FixedBaseMul<G>::to_device(std::span<const Scalar> scalars, const char* site,
                                                               Reservation* from) {
  CUZK_ASSIGN_OR_RETURN(auto out, DeviceBuffer<ec::Affine<G>>::allocate(scalars.size(), site, from));
  CUZK_RETURN_IF_ERROR(to_device(scalars, out.data()));
  return Result<DeviceBuffer<ec::Affine<G>>>(std::move(out));
}

template <class G>
Status FixedBaseMul<G>::to_host(std::span<const Scalar> scalars, std::span<ec::Affine<G>> out) {
  using A = ec::Affine<G>;
  if (scalars.size() != out.size()) {
    return invalid_argument("fixed_base_mul: " + std::to_string(scalars.size()) + " scalars for " +
                            std::to_string(out.size()) + " outputs");
  }
  if (scalars.empty()) return Status::ok();
  const size_t chunk = std::min(kChunk, scalars.size());
  CUZK_ASSIGN_OR_RETURN(auto d_out, DeviceBuffer<A>::allocate(chunk, "setup.fixed_base.points"));
  for (size_t lo = 0; lo < scalars.size(); lo += chunk) {
    const size_t len = std::min(chunk, scalars.size() - lo);
    CUZK_RETURN_IF_ERROR(to_device(scalars.subspan(lo, len), d_out.data()));
    CUZK_RETURN_IF_ERROR(d_out.download(out.subspan(lo, len), stream_));
    CUZK_RETURN_IF_ERROR(stream_.synchronize());
  }
  return Status::ok();
}

template <class G>
Status fixed_base_mul(const ec::Affine<G>& base, std::span<const typename G::Scalar> scalars,
                      std::span<ec::Affine<G>> out, ThreadPool& pool) {
  if (scalars.size() != out.size()) {
    return invalid_argument("fixed_base_mul: " + std::to_string(scalars.size()) + " scalars for " +
                            std::to_string(out.size()) + " outputs");
  }
  if (scalars.empty()) return Status::ok();
  CUZK_ASSIGN_OR_RETURN(FixedBaseMul<G> mul, FixedBaseMul<G>::create(base, pool));
  return mul.to_host(scalars, out);
}

template class FixedBaseMul<bn254::G1Config>;
template class FixedBaseMul<bn254::G2Config>;
template class FixedBaseMul<bls12_381::G1Config>;
template class FixedBaseMul<bls12_381::G2Config>;
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
