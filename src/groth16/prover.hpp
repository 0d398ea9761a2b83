// The Groth16 prover for snarkjs proving keys (reference/snarkjs-formats.md §4.3, §4.4),
// written against the Backend interface so the same pipeline runs on CPU or GPU:
//   witness -> a = A·w, b = B·w on the domain (sparse rows, built once per key), c = a∘b
//   -> H scalars (snarkjs convention) -> five MSMs (A, B1, B2, L, H) -> blinded proof.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "formats/zkey.hpp"
#include "groth16/backend.hpp"
#include "groth16/proof.hpp"
#include "poly/domain.hpp"

namespace cuzk::groth16 {

// Seconds spent in each stage of one proof.
struct ProveTimings {
  double witness_abc = 0;  // witness checks, sparse A·w and B·w, c = a∘b
  double h = 0;            // NTTs and the H scalars
  double msm_a = 0, msm_b1 = 0, msm_b2 = 0, msm_l = 0, msm_h = 0;
  double finalize = 0;  // blinding with r, s and conversion to affine
  double total = 0;

  double msm_total() const { return msm_a + msm_b1 + msm_b2 + msm_l + msm_h; }
};

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

  // Prepares the key for proving: the domain and the per-row coefficient layout. `zkey`
  // and `backend` must outlive the prover.
  static Result<Prover> create(const formats::Zkey<C>& zkey, Backend<C>& backend, ThreadPool& pool);

  // A proof with r, s drawn from the OS CSPRNG. `witness` is the full assignment in
  // standard form (what a .wtns holds): nVars values, w[0] = 1.
  Result<ProveOutput<C>> prove(std::span<const Scalar> witness) const;
  // A proof with caller-chosen blinding (tests and reproducible benchmarks only: reusing
  // r, s across proofs leaks the witness).
  Result<ProveOutput<C>> prove_with_blinding(std::span<const Scalar> witness, const Fr& r, const Fr& s) const;

  // The verification key the proving key implies.
  VerifyingKey<C> verifying_key() const;

  const formats::Zkey<C>& zkey() const { return *zkey_; }

 private:
  // One matrix (A or B) by constraint row: row i is entry[row_start[i] .. row_start[i+1]),
  // positions in the key's coefficient table (read in place, never copied), in file order.
  struct Rows {
    std::vector<uint32_t> row_start;
    std::vector<uint32_t> entry;
  };

  Prover(const formats::Zkey<C>& zkey, Backend<C>& backend, ThreadPool& pool, poly::EvaluationDomain<Fr> domain)
      : zkey_(&zkey), backend_(&backend), pool_(&pool), domain_(std::move(domain)) {}

  Status check_witness(std::span<const Scalar> witness) const;

  const formats::Zkey<C>* zkey_;
  Backend<C>* backend_;
  ThreadPool* pool_;
  poly::EvaluationDomain<Fr> domain_;
  Rows rows_[2];
};

extern template class Prover<bn254::Curve>;
extern template class Prover<bls12_381::Curve>;

}  // namespace cuzk::groth16
