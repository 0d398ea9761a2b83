// The sticky fault of cuda/fault.hpp: a kernel that traps. A trap aborts the kernel with an
// error that the CUDA context keeps (every later call on the device returns it), which is
// what a real out-of-bounds access or hardware fault does to a long-lived process.
#include <cuda_runtime_api.h>

#include "cuda/cuda_status.hpp"
#include "cuda/fault.hpp"

namespace cuzk::cuda {
namespace {

__global__ void trapping_kernel() { __trap(); }

}  // namespace

Status launch_trapping_kernel(const std::string& site) {
  cudaStream_t s = nullptr;
  CUZK_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), site + ": cudaStreamCreateWithFlags");
  trapping_kernel<<<1, 1, 0, s>>>();
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  (void)cudaStreamDestroy(s);  // fails once the context is lost; nothing to free then
  if (err == cudaSuccess) return internal_error(site + ": the trapping kernel returned without an error");
  return cuda_status(err, site);
}

}  // namespace cuzk::cuda
