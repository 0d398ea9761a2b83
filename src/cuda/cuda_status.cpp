#include "cuda/cuda_status.hpp"

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
  return cuda_status(cudaGetLastError(), std::string("launch of ") + kernel);
}

}  // namespace cuzk::cuda
