// The Groth16 prover for snarkjs proving keys (reference/snarkjs-formats.md §4.3, §4.4),
// written against the Backend interface so the same pipeline runs on CPU or GPU:
//   witness -> a = A·w, b = B·w on the domain (sparse rows, built once per key), c = a∘b
//   -> H scalars (snarkjs convention) -> five MSMs (A, B1, B2, L, H) -> blinded proof.
// The heavy middle runs in the backend's stages (upload, compute, read_back: see
// backend.hpp); the witness checks before and the blinding after are here, once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "formats/zkey.hpp"
#include "groth16/backend.hpp"
#include "groth16/proof.hpp"
#include "poly/domain.hpp"

namespace cuzk::groth16 {

template <class C>
struct ProveOutput {
  Proof<C> proof;
  std::vector<typename C::Fr::Int> public_signals;  // w[1..nPublic], standard form
  ProveTimings timings;
};

template <class C>
class Prover {
 public:
  using Fr = typename C::Fr;
  using Scalar = typename Fr::Int;

  // Prepares the key for proving: the domain, the per-row coefficient layout, and the
  // backend's prepared key (device-resident for CUDA). `zkey`, `backend` and `pool` (which
  // checks witnesses) must outlive the prover.
  static Result<Prover> create(const formats::Zkey<C>& zkey, Backend<C>& backend, ThreadPool& pool);
  // As above, with the prepared key made by `prepare` instead of backend.prepare(): for a
  // key whose points the backend already holds (cuda/setup/device_key.hpp builds them
  // straight into device memory; its zkey has no points on the host).
  using PrepareFn = std::function<Result<std::unique_ptr<PreparedKey<C>>>(const KeyView<C>&)>;
  static Result<Prover> create(const formats::Zkey<C>& zkey, Backend<C>& backend, ThreadPool& pool,
                               const PrepareFn& prepare);

  // A proof with r, s drawn from the OS CSPRNG. `witness` is the full assignment in
  // standard form (what a .wtns holds): nVars values, w[0] = 1.
  Result<ProveOutput<C>> prove(std::span<const Scalar> witness) const;
  // A proof with caller-chosen blinding (tests and reproducible benchmarks only: reusing
  // r, s across proofs leaks the witness).
  Result<ProveOutput<C>> prove_with_blinding(std::span<const Scalar> witness, const Fr& r, const Fr& s) const;

  // The stages one at a time, for a scheduler that runs them apart (prove() is
  // check_witness, upload, compute, read_back, finalize).
  Status check_witness(std::span<const Scalar> witness) const;
  Result<std::unique_ptr<ProofJob<C>>> upload(std::span<const Scalar> witness, ProveTimings& t) const {
    return backend_->upload(*prepared_, witness, t);
  }
  Status compute(ProofJob<C>& job, ProveTimings& t) const { return backend_->compute(*prepared_, job, t); }
  Result<MsmSums<C>> read_back(ProofJob<C>& job, ProveTimings& t) const { return backend_->read_back(job, t); }
  // Blinds the sums into a proof (snarkjs's formulas); fills public_signals from `witness`.
  ProveOutput<C> finalize(const MsmSums<C>& sums, std::span<const Scalar> witness, const Fr& r, const Fr& s) const;

  // The verification key the proving key implies.
  VerifyingKey<C> verifying_key() const;

  const formats::Zkey<C>& zkey() const { return *zkey_; }
  Backend<C>& backend() const { return *backend_; }
  const PreparedKey<C>& prepared() const { return *prepared_; }

 private:
  // Domain and rows live on the heap so the KeyView the backend keeps stays valid when
  // the Prover is moved.
  struct KeyData {
    poly::EvaluationDomain<Fr> domain;
    CoefficientRows rows[2];
  };

  Prover(const formats::Zkey<C>& zkey, Backend<C>& backend, ThreadPool& pool, std::unique_ptr<KeyData> data)
      : zkey_(&zkey), backend_(&backend), pool_(&pool), data_(std::move(data)) {}

  const formats::Zkey<C>* zkey_;
  Backend<C>* backend_;
  ThreadPool* pool_;
  std::unique_ptr<KeyData> data_;
  std::unique_ptr<PreparedKey<C>> prepared_;
};

extern template class Prover<bn254::Curve>;
extern template class Prover<bls12_381::Curve>;

}  // namespace cuzk::groth16
