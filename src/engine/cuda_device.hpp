// A CUDA device as the engine sees it: the CUDA backend of each curve on one GPU, whose
// memory budget is the device allocator's (cuda/allocator.hpp) and whose memory in use is
// what the driver reports (cudaMemGetInfo), so a leak on an error path shows as
// unaccounted bytes against the idle baseline.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "engine/device.hpp"
#include "engine/log_sink.hpp"

namespace cuzk::engine {

struct CudaDeviceOptions {
  int ordinal = 0;
  uint64_t safety_margin_bytes = uint64_t(512) << 20;
  uint64_t cap_bytes = 0;  // 0: the whole free memory minus the margin
  unsigned host_threads = 0;
  // Precomputed MSM bases of resident keys (cuda::CudaBackendOptions::precompute): "auto",
  // "off" or a list of sections (groth16/precompute_spec.hpp), and the most bytes the
  // tables of one key may add (0: half of the budget left after the key).
  std::string precompute = "auto";
  uint64_t precompute_max_bytes = 0;
  LogSink log;  // where each key's preparation says what it chose; may be empty
};

class CudaDevice final : public Device {
 public:
  // Fails with UNAVAILABLE when the ordinal names no usable device.
  static Result<std::unique_ptr<CudaDevice>> create(size_t index, const CudaDeviceOptions& options);
  ~CudaDevice() override;

  std::string name() const override;
  std::string backend_name() const override;
  uint64_t measured_in_use() const override;
  DeviceCacheStats cache_stats() const override;
  DeviceStageBytes stage_bytes(const KeyShape& key, uint64_t backend_upload, uint64_t backend_compute) const override;

  groth16::Backend<bn254::Curve>& bn254_backend() override;
  groth16::Backend<bls12_381::Curve>& bls12_381_backend() override;
  ThreadPool& host_pool() override;
  std::shared_ptr<void> urgent_scope() override;
  // cudaMemGetInfo on the device: a lost context answers with its sticky error.
  Status health() override;
  // New backends on a new CUDA context: the allocator resets the device (cudaDeviceReset)
  // and re-measures its baseline and budget.
  Status reset() override;

 private:
  struct Parts;  // the host pool and a CudaBackend per curve (cuda_device.cpp)
  CudaDevice(size_t index, std::unique_ptr<MemoryBudget> memory, std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> p_;
};

// Every CUDA device of the host (as CUDA_VISIBLE_DEVICES shows them), in CUDA's order;
// empty when there is none or this build has no CUDA.
Result<std::vector<std::unique_ptr<Device>>> cuda_devices(size_t first_index, const CudaDeviceOptions& options);

}  // namespace cuzk::engine
