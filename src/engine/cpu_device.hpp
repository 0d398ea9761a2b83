// The CPU device: groth16::CpuBackend on a host thread pool. Its "device memory" is a
// share of host memory with its own budget, sized like the host prover's working set, so
// the engine's pre-staging and fallback decisions run (and are tested) without a GPU.
//
// It also models a device context, so that the engine's failure containment runs without
// a GPU: arm_faults() fails chosen backend calls the way a GPU fails them, and a sticky
// fault loses the context (every later call on its backends fails with kDeviceLost) until
// reset() makes new backends.
#pragma once

#include <memory>
#include <string>

#include "engine/device.hpp"

namespace cuzk::engine {

struct CpuFaultRules;  // the armed rules and their counts (cpu_device.cpp), kept across resets

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
  Status health() override;
  Status reset() override;
  ~CpuDevice() override;

  // Injected faults, "kind:N[@site]" rules like CUZK_FAULT (core/fault_spec.hpp), counted
  // from arming over this device's backend calls: alloc:N fails the Nth upload with
  // kResourceExhausted, copy:N the Nth read-back and kernel:N the Nth compute with
  // kInternal; sticky:N loses the context at the Nth compute; reset:N fails the Nth reset
  // (the context stays lost, as a GPU's does when cudaDeviceReset cannot bring it back).
  // Replaces earlier rules; an empty spec disarms. INVALID_ARGUMENT for a malformed spec.
  Status arm_faults(const std::string& spec);

 private:
  struct Backends;  // one context: a CpuBackend per curve behind its fault checks
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<CpuFaultRules> faults_;
  std::unique_ptr<Backends> b_;
  std::string backend_name_;  // status reads it while a reset replaces the backends
};

}  // namespace cuzk::engine
