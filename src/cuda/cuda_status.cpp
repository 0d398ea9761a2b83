#include "cuda/cuda_status.hpp"

#include "cuda/fault.hpp"

namespace cuzk::cuda {

Status cuda_status(cudaError_t err, const std::string& what) {
  if (err == cudaSuccess) return Status::ok();
  StatusCode code = StatusCode::kInternal;
  switch (err) {
    case cudaErrorMemoryAllocation:
      code = StatusCode::kResourceExhausted;
      break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInvalidDevice:
      code = StatusCode::kUnavailable;
      break;
    default:
      if (is_sticky_error(err)) code = StatusCode::kDeviceLost;
      break;
  }
  std::string message = what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
  if (is_sticky_error(err)) message += "; the CUDA context is unusable until the device is reset";
  return {code, std::move(message)};
}

bool is_sticky_error(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

Status check_launch(const char* kernel) {
  CUZK_RETURN_IF_ERROR(cuda_status(cudaGetLastError(), std::string("launch of ") + kernel));
  CUZK_RETURN_IF_ERROR(inject_fault(FaultKind::kKernel, kernel));
  return inject_fault(FaultKind::kSticky, kernel);
}

Status copy_async(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream,
                  const char* site) {
  if (bytes == 0) return Status::ok();
  CUZK_RETURN_IF_ERROR(inject_fault(FaultKind::kCopy, site));
  return cuda_status(cudaMemcpyAsync(dst, src, bytes, kind, stream),
                     std::string(site) + ": cudaMemcpyAsync(" + std::to_string(bytes) + " bytes)");
}

}  // namespace cuzk::cuda
