// The compute backend behind the prover. The prover (groth16/prover.hpp) is one pipeline
// written against this interface; the CPU backend lives here, the CUDA backend in
// src/cuda/prover. Nothing above this layer knows which one runs.
//
// A backend prepares each proving key once (a CUDA backend uploads its points and
// coefficient rows to the device), then runs one proof in three stages that a scheduler
// may run separately: upload (the witness to where the backend computes; outside any
// device lock), compute (synthesis a = A·w, b = B·w, c = a∘b, the H scalars and the five
// MSMs: the kernel region), read_back (the MSM sums to the host). Each stage says
// beforehand how many device bytes it will take.
//
// The primitive operations (msm_g1, msm_g2, h_poly on host data) stay available for tests
// and benchmarks.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/phase_pauses.hpp"
#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "ec/jacobian.hpp"
#include "ec/points.hpp"
#include "ff/cpu_lanes.hpp"
#include "formats/zkey.hpp"
#include "msm/pippenger.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"

namespace cuzk::groth16 {

// Seconds spent in each stage of one proof.
struct ProveTimings {
  double upload = 0;  // the witness to the backend (host to device for CUDA)
  // Of upload, where a backend can tell: its setup (streams, events), the device memory,
  // taking pinned chunks, the host-side copies into them, issuing the DMAs, and waiting for
  // the link to take earlier chunks.
  double upload_setup = 0, upload_alloc = 0, upload_acquire = 0, upload_host_copy = 0, upload_issue = 0,
         upload_link_wait = 0;
  double witness_abc = 0;  // witness checks, sparse A·w and B·w, c = a∘b
  double h = 0;            // NTTs and the H scalars
  // Each MSM's wall time; a backend that runs them at once (CUDA's lanes) reports times that overlap.
  double msm_a = 0, msm_b1 = 0, msm_b2 = 0, msm_l = 0, msm_h = 0;
  double read_back = 0;  // results back to the host
  double finalize = 0;   // blinding with r, s and conversion to affine
  double total = 0;

  double msm_total() const { return msm_a + msm_b1 + msm_b2 + msm_l + msm_h; }
};

// One matrix (A or B) of a key by constraint row: row i is entry[row_start[i] ..
// row_start[i+1]), positions in the key's coefficient table (read in place, never
// copied), in file order. Built once per key by the prover.
struct CoefficientRows {
  std::vector<uint32_t> row_start;
  std::vector<uint32_t> entry;
};

// What a backend is given of a key: the validated zkey, its domain and its A and B rows.
// All three outlive every prepared key and proof made from them (the Prover owns them).
template <class C>
struct KeyView {
  const formats::Zkey<C>* zkey = nullptr;
  const poly::EvaluationDomain<typename C::Fr>* domain = nullptr;
  const CoefficientRows* rows = nullptr;  // rows[0] = A, rows[1] = B
};

// The five MSM sums of one proof, before blinding.
template <class C>
struct MsmSums {
  ec::Jacobian<typename C::G1> a, b1, l, h;
  ec::Jacobian<typename C::G2> b2;
};

// A key as a backend keeps it between proofs (device-resident points for CUDA).
template <class C>
class PreparedKey {
 public:
  virtual ~PreparedKey() = default;
  const KeyView<C>& view() const { return view_; }
  // Device bytes the key holds while prepared (0 on the CPU).
  virtual size_t resident_bytes() const { return 0; }
  // How the key is held, for logs and status ("host", "device", "streamed", or "mixed (streamed: H)":
  // some sections resident, those named streamed from host memory).
  virtual std::string placement() const = 0;
  // What the backend chose for the key beyond its placement, and why (e.g. which MSM
  // sections got precomputed bases), for logs and the bench banner; empty when nothing.
  virtual std::string notes() const { return {}; }

 protected:
  explicit PreparedKey(KeyView<C> v) : view_(v) {}

 private:
  KeyView<C> view_;
};

// One proof between its stages. Owns everything a later stage reads (the witness is the
// caller's: it must stay valid until read_back has returned).
template <class C>
class ProofJob {
 public:
  virtual ~ProofJob() = default;
  // Set by the caller for one compute(), which checks it at its phase boundaries (before
  // the H polynomial, before each MSM and, on a GPU, between an MSM's window groups). Null:
  // no pauses.
  PhasePauses* pauses = nullptr;
  // A boundary where nothing of this proof is queued on a device.
  void boundary() {
    (void)pause_at_boundary(pauses, [] { return Status::ok(); });
  }
};

template <class C>
class Backend {
 public:
  using Fr = typename C::Fr;
  using Scalar = typename Fr::Int;  // canonical (standard-form) scalars, < r
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;

  virtual ~Backend() = default;
  virtual const char* name() const = 0;

  // --- keys and the stages of one proof ---------------------------------------------
  virtual Result<std::unique_ptr<PreparedKey<C>>> prepare(const KeyView<C>& key) = 0;
  // Device bytes that upload() and compute() of one proof of `key` take (0 on the CPU);
  // a scheduler reserves them before starting the stage.
  virtual size_t upload_bytes(const PreparedKey<C>& key) const = 0;
  virtual size_t compute_bytes(const PreparedKey<C>& key) const = 0;
  // `witness` has been checked by the prover: nVars canonical values, w[0] = 1.
  virtual Result<std::unique_ptr<ProofJob<C>>> upload(const PreparedKey<C>& key, std::span<const Scalar> witness,
                                                      ProveTimings& t) = 0;
  virtual Status compute(const PreparedKey<C>& key, ProofJob<C>& job, ProveTimings& t) = 0;
  virtual Result<MsmSums<C>> read_back(ProofJob<C>& job, ProveTimings& t) = 0;

  // --- primitives on host data -----------------------------------------------------
  // sum_i scalars[i]·bases[i]; the spans have equal length.
  virtual Result<ec::Jacobian<typename C::G1>> msm_g1(std::span<const G1> bases, std::span<const Scalar> scalars) = 0;
  virtual Result<ec::Jacobian<typename C::G2>> msm_g2(std::span<const G2> bases, std::span<const Scalar> scalars) = 0;
  // The snarkjs H scalars: p[i] = (A·B − C)(w2·omega^i) in standard form, from the domain
  // evaluations a, b, c (Montgomery form; overwritten). See poly/h_poly.hpp.
  virtual Status h_poly(const poly::EvaluationDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                        std::span<Scalar> p) = 0;
};

// a = A·w, b = B·w over the domain and c = a∘b, on host threads: each row summed by one
// thread in file order (the CPU backend's synthesis, and the reference for the device's).
template <class C>
void synthesize_abc(const KeyView<C>& key, std::span<const typename C::Fr::Int> witness, std::span<typename C::Fr> a,
                    std::span<typename C::Fr> b, std::span<typename C::Fr> c, ThreadPool& pool) {
  using Fr = typename C::Fr;
  const auto& coefs = key.zkey->coefficients();
  const CoefficientRows* rows = key.rows;
  pool.parallel_for(
      0, a.size(),
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
          Fr acc[2] = {Fr::zero(), Fr::zero()};
          for (int m = 0; m < 2; ++m) {
            for (uint32_t k = rows[m].row_start[i]; k < rows[m].row_start[i + 1]; ++k) {
              const uint32_t e = rows[m].entry[k];
              // coef·R times (w/R): one Montgomery product gives coef·w (reference §4.3).
              acc[m] += coefs.value(e) * Fr::from_mont(witness[coefs.signal(e)]);
            }
          }
          a[i] = acc[0];
          b[i] = acc[1];
          c[i] = acc[0] * acc[1];
        }
      },
      1024);
}

template <class C>
class CpuBackend final : public Backend<C> {
 public:
  using typename Backend<C>::Fr;
  using typename Backend<C>::Scalar;
  using typename Backend<C>::G1;
  using typename Backend<C>::G2;

  explicit CpuBackend(ThreadPool& pool) : pool_(pool) {}
  // Says whether the MSM and NTT run their AVX-512 IFMA lanes (ff/cpu_lanes.hpp).
  const char* name() const override { return ff::lanes::enabled() ? "cpu (AVX-512 IFMA lanes)" : "cpu"; }

  Result<std::unique_ptr<PreparedKey<C>>> prepare(const KeyView<C>& key) override {
    if (!key.zkey->has_points()) {
      return invalid_argument("cpu backend: " + key.zkey->path() +
                              ": the key's points are not in host memory (held on a device), so the CPU cannot "
                              "prove with it");
    }
    return std::unique_ptr<PreparedKey<C>>(new HostKey(key));
  }
  size_t upload_bytes(const PreparedKey<C>&) const override { return 0; }
  size_t compute_bytes(const PreparedKey<C>&) const override { return 0; }

  Result<std::unique_ptr<ProofJob<C>>> upload(const PreparedKey<C>&, std::span<const Scalar> witness,
                                              ProveTimings&) override {
    auto job = std::make_unique<HostJob>();
    job->witness = witness;
    return std::unique_ptr<ProofJob<C>>(std::move(job));
  }
  Status compute(const PreparedKey<C>& key, ProofJob<C>& job, ProveTimings& t) override;
  Result<MsmSums<C>> read_back(ProofJob<C>& job, ProveTimings&) override {
    auto& j = static_cast<HostJob&>(job);
    if (!j.computed) return failed_precondition("cpu backend: read_back before compute");
    return j.sums;
  }

  Result<ec::Jacobian<typename C::G1>> msm_g1(std::span<const G1> bases, std::span<const Scalar> scalars) override {
    if (bases.size() != scalars.size()) return size_mismatch("G1", bases.size(), scalars.size());
    return msm::msm<typename C::G1>(bases, scalars, pool_);
  }
  Result<ec::Jacobian<typename C::G2>> msm_g2(std::span<const G2> bases, std::span<const Scalar> scalars) override {
    if (bases.size() != scalars.size()) return size_mismatch("G2", bases.size(), scalars.size());
    return msm::msm<typename C::G2>(bases, scalars, pool_);
  }
  Status h_poly(const poly::EvaluationDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                std::span<Scalar> p) override {
    return poly::snarkjs_h(domain, a, b, c, p, pool_);
  }

 private:
  class HostKey final : public PreparedKey<C> {
   public:
    explicit HostKey(const KeyView<C>& v) : PreparedKey<C>(v) {}
    std::string placement() const override { return "host"; }
  };
  struct HostJob final : ProofJob<C> {
    std::span<const Scalar> witness;
    MsmSums<C> sums;
    bool computed = false;
  };

  static Status size_mismatch(const char* group, size_t bases, size_t scalars) {
    return invalid_argument(std::string("cpu backend: ") + group + " MSM with " + std::to_string(bases) +
                            " bases but " + std::to_string(scalars) + " scalars");
  }

  ThreadPool& pool_;
};

extern template class CpuBackend<bn254::Curve>;
extern template class CpuBackend<bls12_381::Curve>;

}  // namespace cuzk::groth16
