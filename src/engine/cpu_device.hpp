// The CPU device: groth16::CpuBackend on a host thread pool. Its "device memory" is a
// share of host memory with its own budget, sized like the host prover's working set, so
// the engine's pre-staging and fallback decisions run (and are tested) without a GPU.
#pragma once

#include <memory>

#include "engine/device.hpp"

namespace cuzk::engine {

class CpuDevice final : public Device {
 public:
  // `memory_bytes`: the budget for proofs on this device; `threads`: 0 = all cores.
  CpuDevice(size_t index, uint64_t memory_bytes, unsigned threads);

  std::string name() const override;
  std::string backend_name() const override;
  uint64_t measured_in_use() const override { return memory().in_use(); }
  DeviceStageBytes stage_bytes(const KeyShape& key, uint64_t backend_upload, uint64_t backend_compute) const override;

  groth16::Backend<bn254::Curve>& bn254_backend() override;
  groth16::Backend<bls12_381::Curve>& bls12_381_backend() override;
  ThreadPool& host_pool() override;
  ~CpuDevice() override;

 private:
  struct Backends;  // the thread pool and a CpuBackend per curve (cpu_device.cpp)
  std::unique_ptr<Backends> b_;
};

}  // namespace cuzk::engine
