#include "engine/cuda_device.hpp"

#include "core/thread_pool.hpp"
#include "cuda/allocator.hpp"
#include "cuda/device.hpp"
#include "cuda/prover/cuda_backend.hpp"
#include "cuda/stream.hpp"
#include "ec/curves.hpp"
#include "groth16/precompute_spec.hpp"

namespace cuzk::engine {

struct CudaDevice::Parts {
  cuda::DeviceInfo info;
  cuda::DeviceAllocator* alloc = nullptr;
  std::unique_ptr<ThreadPool> pool;
  std::unique_ptr<cuda::CudaBackend<bn254::Curve>> bn254;
  std::unique_ptr<cuda::CudaBackend<bls12_381::Curve>> bls12_381;
  std::string backend_name;  // set once at creation: status reads it while a reset runs
  cuda::CudaBackendOptions backend_options;  // also for the backends made after a reset

  Status make_backends() {
    cuda::CudaBackendOptions bo = backend_options;
    bo.device = info.ordinal;
    CUZK_ASSIGN_OR_RETURN(bn254, cuda::CudaBackend<bn254::Curve>::create(bo, *pool));
    CUZK_ASSIGN_OR_RETURN(bls12_381, cuda::CudaBackend<bls12_381::Curve>::create(bo, *pool));
    if (backend_name.empty()) backend_name = bn254->name();
    return Status::ok();
  }
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
  // Enough pooled streams and events for a proof's stages, so the first proofs (the
  // start-up self-test, a first CRITICAL proof) do not create any beside running work.
  CUZK_RETURN_IF_ERROR(cuda::warm_pools(16, 32, 32));
  cuda::BudgetOptions budget;
  budget.safety_margin_bytes = options.safety_margin_bytes;
  budget.cap_bytes = options.cap_bytes;
  budget.cache_freed = true;  // no cudaFree (a device-wide sync) between proofs: allocator.hpp
  CUZK_ASSIGN_OR_RETURN(parts->alloc, cuda::DeviceAllocator::for_device(options.ordinal, budget));
  CUZK_RETURN_IF_ERROR(parts->alloc->configure(budget));
  CUZK_ASSIGN_OR_RETURN(parts->backend_options.precompute,
                        groth16::parse_precompute_spec(options.precompute, "precompute"));
  parts->backend_options.precompute_max_bytes = options.precompute_max_bytes;
  if (options.log) {
    const std::string id = "cuda:" + std::to_string(options.ordinal);
    parts->backend_options.log = [log = options.log, id](const std::string& line) {
      log(LogLevel::kInfo, id + ": " + line);
    };
  }
  parts->pool = std::make_unique<ThreadPool>(options.host_threads == 0 ? ThreadPool::default_threads()
                                                                       : options.host_threads);
  CUZK_RETURN_IF_ERROR(parts->make_backends());
  // The engine's budget for this device is the allocator's: what the stages reserve here
  // they then take from the allocator (each backend stage reserves its stated bytes).
  auto memory = std::make_unique<MemoryBudget>("cuda:" + std::to_string(options.ordinal),
                                               parts->alloc->stats().budget_bytes);
  return std::unique_ptr<CudaDevice>(new CudaDevice(index, std::move(memory), std::move(parts)));
}

std::string CudaDevice::name() const {
  return p_->info.name + " " + p_->info.uuid + " pci " + p_->info.pci_bus_id;
}
std::string CudaDevice::backend_name() const { return p_->backend_name; }
groth16::Backend<bn254::Curve>& CudaDevice::bn254_backend() { return *p_->bn254; }
groth16::Backend<bls12_381::Curve>& CudaDevice::bls12_381_backend() { return *p_->bls12_381; }
ThreadPool& CudaDevice::host_pool() { return *p_->pool; }

Status CudaDevice::health() {
  CUZK_RETURN_IF_ERROR(cuda::set_device(p_->info.ordinal));
  return cuda::memory_info().status();
}

Status CudaDevice::reset() {
  p_->bn254.reset();
  p_->bls12_381.reset();
  CUZK_RETURN_IF_ERROR(p_->alloc->reset_device());  // the pools' streams and events went with the context
  CUZK_RETURN_IF_ERROR(cuda::warm_pools(16, 32, 32));
  CUZK_RETURN_IF_ERROR(p_->make_backends());
  set_baseline(measured_in_use());
  return Status::ok();
}

// From the allocator, which every device byte goes through: exact, where the driver's
// figure moves by what the context itself allocates. Resident keys are reserved in the
// engine's budget (circuit_key.cpp), so what is left beyond the budget's reservations is
// what an error path leaked.
std::shared_ptr<void> CudaDevice::urgent_scope() { return std::make_shared<cuda::UrgentStreams>(); }

uint64_t CudaDevice::measured_in_use() const {
  const cuda::AllocatorStats s = p_->alloc->stats();
  return s.baseline_used + s.allocated_bytes;
}

DeviceCacheStats CudaDevice::cache_stats() const {
  const cuda::AllocatorStats s = p_->alloc->stats();
  return {s.cached_bytes, s.rounding_bytes, s.cache_hits, s.cache_misses, s.trims};
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
