// CUDA runtime errors as Status values. Every CUDA call in cuzk goes through
// cuda_status() so that a failure names the call, the CUDA error and what it was doing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "core/status.hpp"

namespace cuzk::cuda {

// Ok for cudaSuccess; otherwise "<what>: <cudaErrorName> (<description>)" with a code that
// says what the caller can do: out of memory -> kResourceExhausted, no usable device ->
// kUnavailable, a sticky error (is_sticky_error) -> kDeviceLost, anything else -> kInternal.
Status cuda_status(cudaError_t err, const std::string& what);

// True for errors that leave the CUDA context unusable (every later call fails the same way):
// the device must be reset before it can serve again.
bool is_sticky_error(cudaError_t err);

// The error of the last kernel launch on this thread, as a Status naming the kernel. Call
// it after every launch: it is also where kernel faults are injected (cuda/fault.hpp).
Status check_launch(const char* kernel);

// cudaMemcpyAsync through the fault injector, for copies that are not a DeviceBuffer's
// upload/download (device-to-device, or into part of a buffer). `site` names it in errors.
Status copy_async(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream,
                  const char* site);

}  // namespace cuzk::cuda

// Evaluates a CUDA runtime call and returns its error as a Status from the enclosing function.
#define CUZK_CUDA_RETURN_IF_ERROR(call, what) CUZK_RETURN_IF_ERROR(::cuzk::cuda::cuda_status((call), (what)))
