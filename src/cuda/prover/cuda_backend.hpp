// groth16::Backend on one CUDA device. prepare() uploads a key's point sections (A, B1, B2,
// C/L, H) and its A/B coefficient rows into device memory once; each proof then sends only
// the witness: synthesis, the H pipeline and all five MSMs (G2 included) run on the device.
// When the device's budget cannot hold all of the key's points beside a proof's working
// set, the fewest bytes of sections that make room stay in host memory (the zkey's
// mapping; for a device-built key, page-locked memory they are moved to) and are streamed
// through two device chunk buffers per MSM, the next chunk's copy running under the current
// chunk's MSM: "mixed (streamed: B2)" placement, or "streamed" when every section is.
// Resident sections may also get precomputed bases where the budget allows
// (CudaBackendOptions::precompute).
//
// The witness goes up through pinned staging chunks owned by the backend (host_staging.hpp:
// allocated once, reused across proofs, one set per upload in flight). The kernel region
// runs in `msm_lanes` streams, each driven by a host thread: lane 0 runs synthesis, the H
// pipeline and the H MSM; the A, B1, B2 and L MSMs, which need only the witness, run in the
// other lanes beside it from the start (as many as fit; a wholly streamed key uses one).
//
// Every device byte comes from the device's accounted allocator; each stage reserves what
// it needs at its start (upload_bytes, compute_bytes), so a stage that cannot fit fails
// before it has done anything, with a kResourceExhausted Status naming the stage.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/prover/host_staging.hpp"
#include "groth16/backend.hpp"
#include "groth16/precompute_spec.hpp"

namespace cuzk::cuda {

struct CudaBackendOptions {
  int device = 0;
  // Stream sections from host memory when the budget cannot hold them all (off: prepare
  // fails instead).
  bool allow_streamed = true;
  // Force the streamed placement (every section) even when the key fits (tests).
  bool force_streamed = false;
  size_t stream_chunk_points = size_t(1) << 22;  // points per chunk when streaming
  // Pinned host chunk for the witness upload (two per upload in flight).
  size_t staging_chunk_bytes = size_t(16) << 20;
  // Streams (each with a host thread) the kernel region of a resident key runs in, 1..5.
  unsigned msm_lanes = 3;
  // Precomputed bases (cuda/msm/msm.hpp PrecomputedBases: shifted copies of every base, so
  // an MSM reduces one bucket set instead of one per window) for a resident key's MSM
  // sections, built at prepare(): the sections listed (groth16/precompute_spec.hpp; the
  // default is "auto": H, B2, A, B1, L), in order, each while the extra bytes of the tables
  // stay within precompute_max_bytes and a proof's working set still fits beside them. A
  // table replaces its section's plain copy (its copy 0 is those points). A table whose
  // allocation fails is skipped, with the rest (the MSMs run over the plain bases); any
  // other failure while building one fails prepare().
  std::vector<groth16::MsmSection> precompute = groth16::precompute_auto_order();
  // 0: half of the budget left after the key's own bytes, so that a second key and a
  // second proof's working set still fit.
  size_t precompute_max_bytes = 0;
  // Sections of fewer points keep their plain bases: in whole proofs on the H200 the tables
  // paid at 2^24 (BLS12-381: the MSM region 262 -> 238 ms) but not at 2^20 (40.1 -> 41.5 ms
  // per proof with all five tables; BENCHMARKS.md).
  size_t precompute_min_points = size_t(1) << 22;
  // Where prepare() says what it chose for each key and why (one line); unset: nowhere
  // (PreparedKey::notes() has it too).
  std::function<void(const std::string&)> log;
};

// A key's point sections already in device memory, on the backend's device (the dev setup
// of cuda/setup/device_key.hpp computes them there): prepare_with_points keeps them as the
// key's resident copy, so they never cross PCIe, unless they do not all fit beside a proof.
template <class C>
struct DeviceKeyPoints {
  DeviceBuffer<ec::Affine<typename C::G1>> a, b1, c, h;  // c: the zkey's C section (the L MSM)
  DeviceBuffer<ec::Affine<typename C::G2>> b2;
  size_t bytes() const { return a.size_bytes() + b1.size_bytes() + c.size_bytes() + h.size_bytes() + b2.size_bytes(); }
};

template <class C>
class CudaBackend final : public groth16::Backend<C> {
 public:
  using typename groth16::Backend<C>::Fr;
  using typename groth16::Backend<C>::Scalar;
  using typename groth16::Backend<C>::G1;
  using typename groth16::Backend<C>::G2;

  // Fails with kUnavailable when the device does not exist.
  static Result<std::unique_ptr<CudaBackend>> create(const CudaBackendOptions& options, ThreadPool& pool);
  ~CudaBackend() override;

  const char* name() const override { return name_.c_str(); }
  int device() const { return options_.device; }
  // Device bytes held by this backend's live prepared keys.
  size_t resident_bytes() const { return resident_->load(); }
  // Page-locked host bytes held by the witness staging.
  size_t pinned_bytes() const;
  // The MSM lanes a proof of `key` runs in: msm_lanes, at most what fit beside the key's
  // points when it was prepared; 1 for a streamed key.
  unsigned msm_lanes(const groth16::PreparedKey<C>& key) const;
  // The MSM sections of `key` that run over precomputed bases, in the order they were built.
  std::vector<groth16::MsmSection> precomputed(const groth16::PreparedKey<C>& key) const;
  // Benchmarks compare lane counts over one prepared key: takes effect from the next
  // proof; never while a proof of this backend is between upload and read_back (its
  // compute_bytes would change under the scheduler).
  void set_msm_lanes(unsigned lanes) { options_.msm_lanes = lanes; }

  Result<std::unique_ptr<groth16::PreparedKey<C>>> prepare(const groth16::KeyView<C>& key) override;
  // prepare() for a key whose points are already on the device (`key.zkey` may then hold
  // none: formats::Zkey::held_elsewhere). The sizes must match the key's header. Sections
  // that cannot stay beside the coefficients and a proof's working set (placement as in
  // prepare(); force_streamed moves them all) are moved to page-locked host memory, which
  // the key then owns, and streamed from there; the rest get precomputed bases as
  // prepare() would give them.
  Result<std::unique_ptr<groth16::PreparedKey<C>>> prepare_with_points(const groth16::KeyView<C>& key,
                                                                       DeviceKeyPoints<C> points);
  size_t upload_bytes(const groth16::PreparedKey<C>& key) const override;
  size_t compute_bytes(const groth16::PreparedKey<C>& key) const override;
  Result<std::unique_ptr<groth16::ProofJob<C>>> upload(const groth16::PreparedKey<C>& key,
                                                       std::span<const Scalar> witness,
                                                       groth16::ProveTimings& t) override;
  Status compute(const groth16::PreparedKey<C>& key, groth16::ProofJob<C>& job, groth16::ProveTimings& t) override;
  Result<groth16::MsmSums<C>> read_back(groth16::ProofJob<C>& job, groth16::ProveTimings& t) override;

  Result<ec::Jacobian<typename C::G1>> msm_g1(std::span<const G1> bases, std::span<const Scalar> scalars) override;
  Result<ec::Jacobian<typename C::G2>> msm_g2(std::span<const G2> bases, std::span<const Scalar> scalars) override;
  Status h_poly(const poly::EvaluationDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                std::span<Scalar> p) override;

 private:
  CudaBackend(const CudaBackendOptions& options, ThreadPool& pool, std::string name);
  Result<std::unique_ptr<groth16::PreparedKey<C>>> prepare_impl(const groth16::KeyView<C>& key,
                                                                std::optional<DeviceKeyPoints<C>> points);

  CudaBackendOptions options_;
  ThreadPool& pool_;
  std::string name_;
  std::unique_ptr<HostStaging> staging_;
  // Shared with the prepared keys, which may outlive the backend object.
  std::shared_ptr<std::atomic<size_t>> resident_ = std::make_shared<std::atomic<size_t>>(0);
};

// True when at least one CUDA device is usable (for --backend auto).
bool cuda_device_available();

}  // namespace cuzk::cuda
