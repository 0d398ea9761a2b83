#include "cuda/cuda_status.hpp"
#include "cuda/prover/synthesis.hpp"
#include "ff/fields.hpp"

namespace cuzk::cuda {
namespace {

template <class Fr>
__device__ __forceinline__ Fr row_sum(const DeviceRows<Fr>& m, const typename Fr::Int* w, size_t i) {
  Fr acc = Fr::zero();
  const uint32_t end = m.row_start[i + 1];
  for (uint32_t k = m.row_start[i]; k < end; ++k) acc += m.coef[k] * Fr::from_mont(w[m.signal[k]]);
  return acc;
}

template <class Fr>
__global__ void synthesize_kernel(DeviceRows<Fr> A, DeviceRows<Fr> B, const typename Fr::Int* w, Fr* a, Fr* b, Fr* c,
                                  size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const Fr x = row_sum(A, w, i);
    const Fr y = row_sum(B, w, i);
    a[i] = x;
    b[i] = y;
    c[i] = x * y;
  }
}

}  // namespace

template <class Fr>
Status synthesize_abc(const DeviceRows<Fr>& A, const DeviceRows<Fr>& B, const typename Fr::Int* w, Fr* a, Fr* b,
                      Fr* c, size_t n, const Stream& s) {
  if (n == 0) return Status::ok();
  constexpr unsigned kThreads = 256;
  const size_t blocks = std::min<size_t>((n + kThreads - 1) / kThreads, size_t(1) << 20);
  synthesize_kernel<Fr><<<unsigned(blocks), kThreads, 0, s.get()>>>(A, B, w, a, b, c, n);
  return check_launch("prover.synthesize_abc");
}

template Status synthesize_abc<bn254::Fr>(const DeviceRows<bn254::Fr>&, const DeviceRows<bn254::Fr>&,
                                          const bn254::Fr::Int*, bn254::Fr*, bn254::Fr*, bn254::Fr*, size_t,
                                          const Stream&);
template Status synthesize_abc<bls12_381::Fr>(const DeviceRows<bls12_381::Fr>&, const DeviceRows<bls12_381::Fr>&,
                                              const bls12_381::Fr::Int*, bls12_381::Fr*, bls12_381::Fr*,
                                              bls12_381::Fr*, size_t, const Stream&);

}  // namespace cuzk::cuda
