#include "engine/cpu_device.hpp"

#include "core/thread_pool.hpp"
#include "ec/curves.hpp"
#include "groth16/backend.hpp"

#include <fstream>
#include <string>

namespace cuzk::engine {

struct CpuDevice::Backends {
  explicit Backends(unsigned threads)
      : pool(threads == 0 ? ThreadPool::default_threads() : threads), bn254(pool), bls12_381(pool) {}
  ThreadPool pool;
  groth16::CpuBackend<bn254::Curve> bn254;
  groth16::CpuBackend<bls12_381::Curve> bls12_381;
};

CpuDevice::CpuDevice(size_t index, uint64_t memory_bytes, unsigned threads)
    : Device(index, "cpu:" + std::to_string(index),
             std::make_unique<MemoryBudget>("cpu:" + std::to_string(index), memory_bytes)),
      b_(std::make_unique<Backends>(threads)) {
  set_baseline(measured_in_use());
}

CpuDevice::~CpuDevice() = default;

std::string CpuDevice::backend_name() const { return b_->bn254.name(); }
groth16::Backend<bn254::Curve>& CpuDevice::bn254_backend() { return b_->bn254; }
groth16::Backend<bls12_381::Curve>& CpuDevice::bls12_381_backend() { return b_->bls12_381; }
ThreadPool& CpuDevice::host_pool() { return b_->pool; }

std::string CpuDevice::name() const {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "host CPU";
}

// The CPU backend reports no device bytes (it works in host memory), so the budget counts
// the host prover's working set instead: a, b, c over the domain, held from pre-staging on,
// and the H scalars in the kernel region; the fallback path holds them only in the region.
DeviceStageBytes CpuDevice::stage_bytes(const KeyShape& key, uint64_t backend_upload, uint64_t backend_compute) const {
  const uint64_t n = key.domain_bytes();
  DeviceStageBytes b;
  b.upload = backend_upload + 3 * n;
  b.kernel = backend_compute + n;
  b.fallback_kernel = b.upload + b.kernel - n;
  b.readback = 4096;
  return b;
}

}  // namespace cuzk::engine
