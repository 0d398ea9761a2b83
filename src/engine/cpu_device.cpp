#include "engine/cpu_device.hpp"

#include <atomic>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/fault_spec.hpp"
#include "core/thread_pool.hpp"
#include "ec/curves.hpp"
#include "groth16/backend.hpp"

namespace cuzk::engine {

// The calls a fault rule counts: uploads (alloc), read-backs (copy), computes (kernel,
// sticky) and resets (reset). The order is the kinds' order in arm_faults.
enum class CpuFaultKind { kAlloc, kCopy, kKernel, kSticky, kReset };

struct CpuFaultRules {
  struct Rule {
    CpuFaultKind kind;
    uint64_t nth;
    std::string site;  // substring of the call's name (upload, compute, read_back, reset)
    std::string text;
    uint64_t seen = 0;
  };
  std::mutex mu;
  std::vector<Rule> rules;

  // The rule that fires on this call, if any (spent once fired). Every rule this call
  // matches counts it, so "reset:1,reset:2" fails the first two resets.
  std::optional<Rule> hit(CpuFaultKind call, const char* site) {
    std::lock_guard lock(mu);
    std::optional<Rule> fired;
    for (auto it = rules.begin(); it != rules.end();) {
      const bool counts_here = it->kind == call || (call == CpuFaultKind::kKernel && it->kind == CpuFaultKind::kSticky);
      if (counts_here && (it->site.empty() || std::string(site).find(it->site) != std::string::npos) &&
          ++it->seen == it->nth && !fired) {
        fired = *it;
        it = rules.erase(it);
        continue;
      }
      ++it;
    }
    return fired;
  }
};

namespace {

// One backend call's context: lost for good once a sticky fault hits it.
struct Context {
  std::string device;
  std::atomic<bool> lost{false};
  Status lost_status() const {
    return {StatusCode::kDeviceLost, device + ": the device context was lost to a sticky fault; it must be reset"};
  }
};

// The CPU backend behind the device's fault rules and its context.
template <class C>
class ContextBackend final : public groth16::Backend<C> {
 public:
  using typename groth16::Backend<C>::Fr;
  using typename groth16::Backend<C>::Scalar;
  using typename groth16::Backend<C>::G1;
  using typename groth16::Backend<C>::G2;

  ContextBackend(ThreadPool& pool, Context& ctx, CpuFaultRules& faults) : inner_(pool), ctx_(ctx), faults_(faults) {}

  const char* name() const override { return inner_.name(); }
  Result<std::unique_ptr<groth16::PreparedKey<C>>> prepare(const groth16::KeyView<C>& key) override {
    if (ctx_.lost) return ctx_.lost_status();
    return inner_.prepare(key);
  }
  size_t upload_bytes(const groth16::PreparedKey<C>& k) const override { return inner_.upload_bytes(k); }
  size_t compute_bytes(const groth16::PreparedKey<C>& k) const override { return inner_.compute_bytes(k); }
  Result<std::unique_ptr<groth16::ProofJob<C>>> upload(const groth16::PreparedKey<C>& k, std::span<const Scalar> w,
                                                       groth16::ProveTimings& t) override {
    CUZK_RETURN_IF_ERROR(check(CpuFaultKind::kAlloc, "upload"));
    return inner_.upload(k, w, t);
  }
  Status compute(const groth16::PreparedKey<C>& k, groth16::ProofJob<C>& job, groth16::ProveTimings& t) override {
    CUZK_RETURN_IF_ERROR(check(CpuFaultKind::kKernel, "compute"));
    return inner_.compute(k, job, t);
  }
  Result<groth16::MsmSums<C>> read_back(groth16::ProofJob<C>& job, groth16::ProveTimings& t) override {
    CUZK_RETURN_IF_ERROR(check(CpuFaultKind::kCopy, "read_back"));
    return inner_.read_back(job, t);
  }
  Result<ec::Jacobian<typename C::G1>> msm_g1(std::span<const G1> b, std::span<const Scalar> s) override {
    if (ctx_.lost) return ctx_.lost_status();
    return inner_.msm_g1(b, s);
  }
  Result<ec::Jacobian<typename C::G2>> msm_g2(std::span<const G2> b, std::span<const Scalar> s) override {
    if (ctx_.lost) return ctx_.lost_status();
    return inner_.msm_g2(b, s);
  }
  Status h_poly(const poly::EvaluationDomain<Fr>& d, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                std::span<Scalar> p) override {
    if (ctx_.lost) return ctx_.lost_status();
    return inner_.h_poly(d, a, b, c, p);
  }

 private:
  Status check(CpuFaultKind call, const char* stage) {
    if (ctx_.lost) return ctx_.lost_status();
    auto rule = faults_.hit(call, stage);
    if (!rule) return Status::ok();
    const std::string where = ctx_.device + ": injected fault at " + stage + " (rule " + rule->text + ")";
    switch (rule->kind) {
      case CpuFaultKind::kAlloc:
        return {StatusCode::kResourceExhausted, where};
      case CpuFaultKind::kSticky:
        ctx_.lost = true;
        return {StatusCode::kDeviceLost, where + ": the context is lost"};
      default:
        return internal_error(where);
    }
  }

  groth16::CpuBackend<C> inner_;
  Context& ctx_;
  CpuFaultRules& faults_;
};

}  // namespace

struct CpuDevice::Backends {
  Backends(const std::string& device, ThreadPool& pool, CpuFaultRules& faults)
      : bn254(pool, ctx, faults), bls12_381(pool, ctx, faults) {
    ctx.device = device;
  }
  Context ctx;
  ContextBackend<bn254::Curve> bn254;
  ContextBackend<bls12_381::Curve> bls12_381;
};

CpuDevice::CpuDevice(size_t index, uint64_t memory_bytes, unsigned threads)
    : Device(index, "cpu:" + std::to_string(index),
             std::make_unique<MemoryBudget>("cpu:" + std::to_string(index), memory_bytes)),
      pool_(std::make_unique<ThreadPool>(threads == 0 ? ThreadPool::default_threads() : threads)),
      faults_(std::make_unique<CpuFaultRules>()),
      b_(std::make_unique<Backends>(id(), *pool_, *faults_)),
      backend_name_(b_->bn254.name()) {
  set_baseline(measured_in_use());
}

CpuDevice::~CpuDevice() = default;

std::string CpuDevice::backend_name() const { return backend_name_; }
groth16::Backend<bn254::Curve>& CpuDevice::bn254_backend() { return b_->bn254; }
groth16::Backend<bls12_381::Curve>& CpuDevice::bls12_381_backend() { return b_->bls12_381; }
ThreadPool& CpuDevice::host_pool() { return *pool_; }

Status CpuDevice::health() { return b_->ctx.lost ? b_->ctx.lost_status() : Status::ok(); }

Status CpuDevice::reset() {
  if (auto rule = faults_->hit(CpuFaultKind::kReset, "reset")) {
    return {StatusCode::kDeviceLost, id() + ": injected reset failure (rule " + rule->text + "): the context stays lost"};
  }
  b_ = std::make_unique<Backends>(id(), *pool_, *faults_);
  set_baseline(measured_in_use());
  return Status::ok();
}

Status CpuDevice::arm_faults(const std::string& spec) {
  CUZK_ASSIGN_OR_RETURN(auto parsed, parse_fault_spec(spec, {"alloc", "copy", "kernel", "sticky", "reset"}, id()));
  std::vector<CpuFaultRules::Rule> rules;
  for (FaultRuleSpec& p : parsed) rules.push_back({CpuFaultKind(p.kind), p.nth, std::move(p.site), std::move(p.text)});
  std::lock_guard lock(faults_->mu);
  faults_->rules = std::move(rules);
  return Status::ok();
}

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
