// The CUB scan of the batched-affine rounds (see msm_affine.hpp), compiled once.
#include <cub/device/device_scan.cuh>

#include "cuda/cuda_status.hpp"
#include "cuda/msm/msm_affine.hpp"

namespace cuzk::cuda::msm_detail {

size_t inclusive_sum_temp_bytes(size_t n) {
  size_t bytes = 0;
  (void)cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const uint32_t*>(nullptr),
                                      static_cast<uint32_t*>(nullptr), int64_t(n));
  return bytes;
}

Status inclusive_sum(const uint32_t* in, uint32_t* out, size_t n, void* temp, size_t temp_bytes, cudaStream_t s) {
  if (n == 0) return Status::ok();
  size_t bytes = temp_bytes;
  CUZK_CUDA_RETURN_IF_ERROR(cub::DeviceScan::InclusiveSum(temp, bytes, in, out, int64_t(n), s),
                            "msm: scanning the affine rounds' output counts");
  return check_launch("msm.affine_scan");
}

}  // namespace cuzk::cuda::msm_detail
