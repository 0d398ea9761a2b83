#include "cuda/device.hpp"

#include <cuda_runtime_api.h>

#include "cuda/cuda_status.hpp"

namespace cuzk::cuda {

Result<int> device_count() {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
    cudaGetLastError();  // these are not sticky; clear them so later calls start clean
    return 0;
  }
  CUZK_CUDA_RETURN_IF_ERROR(err, "cudaGetDeviceCount");
  return n;
}

Result<DeviceInfo> device_info(int ordinal) {
  cudaDeviceProp prop{};
  CUZK_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, ordinal),
                            "cudaGetDeviceProperties(device " + std::to_string(ordinal) + ")");
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.total_bytes = prop.totalGlobalMem;
  // The UUID names a GPU unambiguously, whatever order CUDA and nvidia-smi list them in.
  static const char* hex = "0123456789abcdef";
  info.uuid = "GPU-";
  for (int i = 0; i < 16; ++i) {
    const auto b = static_cast<unsigned char>(prop.uuid.bytes[i]);
    info.uuid += hex[b >> 4];
    info.uuid += hex[b & 15];
    if (i == 3 || i == 5 || i == 7 || i == 9) info.uuid += '-';
  }
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), ordinal) == cudaSuccess) info.pci_bus_id = bus;
  return info;
}

Status set_device(int ordinal) {
  return cuda_status(cudaSetDevice(ordinal), "cudaSetDevice(" + std::to_string(ordinal) + ")");
}

Result<MemoryInfo> memory_info() {
  MemoryInfo m;
  CUZK_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&m.free_bytes, &m.total_bytes), "cudaMemGetInfo");
  return m;
}

}  // namespace cuzk::cuda
