#include "engine/cuda_device.hpp"

#include "core/thread_pool.hpp"
#include "cuda/allocator.hpp"
#include "cuda/device.hpp"
#include "cuda/prover/cuda_backend.hpp"
#include "cuda/stream.hpp"
#include "ec/curves.hpp"

namespace cuzk::engine {

struct CudaDevice::Parts {
  cuda::DeviceInfo info;
  cuda::DeviceAllocator* alloc = nullptr;
  std::unique_ptr<ThreadPool> pool;
  std::unique_ptr<cuda::CudaBackend<bn254::Curve>> bn254;
  std::unique_ptr<cuda::CudaBackend<bls12_381::Curve>> bls12_381;
};

CudaDevice::CudaDevice(size_t index, std::unique_ptr<MemoryBudget> memory, std::unique_ptr<Parts> parts)
    : Device(index, "cuda:" + std::to_string(parts->info.ordinal), std::move(memory)), p_(std::move(parts)) {
  set_baseline(measured_in_use());
}

CudaDevice::~CudaDevice() = default;

Result<std::unique_ptr<CudaDevice>> CudaDevice::create(size_t index, const CudaDeviceOptions& options) {
  auto parts = std::make_unique<Parts>();
  CUZK_ASSIGN_OR_RETURN(parts->info, cuda::device_info(options.ordinal));
  CUZK_RETURN_IF_ERROR(cuda::set_device(options.ordinal));
  cuda::BudgetOptions budget;
  budget.safety_margin_bytes = options.safety_margin_bytes;
  budget.cap_bytes = options.cap_bytes;
  budget.cache_freed = true;  // no cudaFree (a device-wide sync) between proofs: allocator.hpp
  CUZK_ASSIGN_OR_RETURN(parts->alloc, cuda::DeviceAllocator::for_device(options.ordinal, budget));
  CUZK_RETURN_IF_ERROR(parts->alloc->configure(budget));
  parts->pool = std::make_unique<ThreadPool>(options.host_threads == 0 ? ThreadPool::default_threads()
                                                                       : options.host_threads);
  cuda::CudaBackendOptions bo;
  bo.device = options.ordinal;
  CUZK_ASSIGN_OR_RETURN(parts->bn254, cuda::CudaBackend<bn254::Curve>::create(bo, *parts->pool));
  CUZK_ASSIGN_OR_RETURN(parts->bls12_381, cuda::CudaBackend<bls12_381::Curve>::create(bo, *parts->pool));
  // The engine's budget for this device is the allocator's: what the stages reserve here
  // they then take from the allocator (each backend stage reserves its stated bytes).
  auto memory = std::make_unique<MemoryBudget>("cuda:" + std::to_string(options.ordinal),
                                               parts->alloc->stats().budget_bytes);
  return std::unique_ptr<CudaDevice>(new CudaDevice(index, std::move(memory), std::move(parts)));
}

std::string CudaDevice::name() const {
  return p_->info.name + " " + p_->info.uuid + " pci " + p_->info.pci_bus_id;
}
std::string CudaDevice::backend_name() const { return p_->bn254->name(); }
groth16::Backend<bn254::Curve>& CudaDevice::bn254_backend() { return *p_->bn254; }
groth16::Backend<bls12_381::Curve>& CudaDevice::bls12_381_backend() { return *p_->bls12_381; }
ThreadPool& CudaDevice::host_pool() { return *p_->pool; }

// From the allocator, which every device byte goes through: exact, where the driver's
// figure moves by what the context itself allocates. Resident keys are reserved in the
// engine's budget (circuit_key.cpp), so what is left beyond the budget's reservations is
// what an error path leaked.
std::shared_ptr<void> CudaDevice::urgent_scope() { return std::make_shared<cuda::UrgentStreams>(); }

uint64_t CudaDevice::measured_in_use() const {
  const cuda::AllocatorStats s = p_->alloc->stats();
  return s.baseline_used + s.allocated_bytes;
}

DeviceStageBytes CudaDevice::stage_bytes(const KeyShape&, uint64_t backend_upload, uint64_t backend_compute) const {
  DeviceStageBytes b;
  b.upload = backend_upload;
  b.kernel = backend_compute;
  b.fallback_kernel = backend_upload + backend_compute;
  b.readback = 0;
  return b;
}

Result<std::vector<std::unique_ptr<Device>>> cuda_devices(size_t first_index, const CudaDeviceOptions& options) {
  std::vector<std::unique_ptr<Device>> out;
  CUZK_ASSIGN_OR_RETURN(int count, cuda::device_count());
  for (int i = 0; i < count; ++i) {
    CudaDeviceOptions o = options;
    o.ordinal = i;
    CUZK_ASSIGN_OR_RETURN(auto d, CudaDevice::create(first_index + out.size(), o));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace cuzk::engine
