// Which CUDA devices exist and how much memory they have free.
#pragma once

#include <cstddef>
#include <string>

#include "core/status.hpp"

namespace cuzk::cuda {

// Number of usable CUDA devices; 0 (not an error) when there is no device or no driver,
// so that callers can fall back to the CPU.
Result<int> device_count();

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int sm_count = 0;
  int compute_major = 0, compute_minor = 0;
  size_t total_bytes = 0;
  std::string uuid;        // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it
  std::string pci_bus_id;  // "0000:18:00.0"
};
Result<DeviceInfo> device_info(int ordinal);

// Makes `ordinal` the current device of the calling thread.
Status set_device(int ordinal);

struct MemoryInfo {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  std::string uuid;        // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it
  std::string pci_bus_id;  // "0000:18:00.0"
};
// Free and total memory of the current device (cudaMemGetInfo).
Result<MemoryInfo> memory_info();

}  // namespace cuzk::cuda
