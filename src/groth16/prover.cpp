#include "groth16/prover.hpp"

#include <atomic>
#include <chrono>
#include <string>

#include "core/elapsed.hpp"
#include "groth16/random.hpp"

namespace cuzk::groth16 {
using Clock = SteadyClock;

template <class C>
Result<Prover<C>> Prover<C>::create(const formats::Zkey<C>& zkey, Backend<C>& backend, ThreadPool& pool) {
  return create(zkey, backend, pool, [&backend](const KeyView<C>& view) { return backend.prepare(view); });
}

template <class C>
Result<Prover<C>> Prover<C>::create(const formats::Zkey<C>& zkey, Backend<C>& backend, ThreadPool& pool,
                                    const PrepareFn& prepare) {
  const auto& h = zkey.header();
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < h.domain_size) ++log_n;
  if ((size_t(1) << log_n) != h.domain_size) {
    return invalid_argument(zkey.path() + ": domainSize " + std::to_string(h.domain_size) + " is not a power of two");
  }
  CUZK_ASSIGN_OR_RETURN(auto domain, poly::EvaluationDomain<Fr>::create(log_n));
  auto data = std::make_unique<KeyData>(KeyData{std::move(domain), {}});

  // Counting sort of the coefficient entries by row: each row is then summed by one
  // thread, with no write conflicts and in the file's order within the row. Only entry
  // positions are stored (4 bytes each); the entries stay in the key's mapping.
  const auto& coefs = zkey.coefficients();
  for (uint32_t m = 0; m < 2; ++m) {
    CoefficientRows& r = data->rows[m];
    r.row_start.assign(size_t(h.domain_size) + 1, 0);
    for (size_t k = 0; k < coefs.size(); ++k) {
      if (coefs.matrix(k) == m) ++r.row_start[coefs.constraint(k) + 1];
    }
    for (size_t i = 0; i < h.domain_size; ++i) r.row_start[i + 1] += r.row_start[i];
    r.entry.resize(r.row_start.back());
    std::vector<uint32_t> next(r.row_start.begin(), r.row_start.end() - 1);
    for (size_t k = 0; k < coefs.size(); ++k) {
      if (coefs.matrix(k) == m) r.entry[next[coefs.constraint(k)]++] = uint32_t(k);
    }
  }
  zkey.done_with_coefficients();
  Prover p(zkey, backend, pool, std::move(data));
  const KeyView<C> view{&zkey, &p.data_->domain, p.data_->rows};
  CUZK_ASSIGN_OR_RETURN(p.prepared_, prepare(view));
  return p;
}

template <class C>
Status Prover<C>::check_witness(std::span<const Scalar> witness) const {
  const auto& h = zkey_->header();
  if (witness.size() != h.n_vars) {
    return invalid_argument("prover: the witness has " + std::to_string(witness.size()) +
                            " values but the proving key " + zkey_->path() + " expects nVars = " +
                            std::to_string(h.n_vars) + " (witness for another circuit?)");
  }
  if (witness[0] != Scalar::from_u64(1)) return invalid_argument("prover: witness value 0 (the constant wire) is not 1");
  // Every value below r, checked on all threads (a 2^24 witness is 16 M values); the error
  // names the first bad one.
  std::atomic<size_t> first_bad{witness.size()};
  pool_->parallel_for(
      0, witness.size(),
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
          if (!witness[i].less_than(Fr::MODULUS)) {
            size_t cur = first_bad.load();
            while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
            }
            return;
          }
        }
      },
      1 << 16);
  if (first_bad.load() != witness.size()) {
    return invalid_argument("prover: witness value " + std::to_string(first_bad.load()) + " is not reduced below r");
  }
  return Status::ok();
}

template <class C>
Result<ProveOutput<C>> Prover<C>::prove(std::span<const Scalar> witness) const {
  return prove_with_blinding(witness, os_random<Fr>(), os_random<Fr>());
}

template <class C>
Result<ProveOutput<C>> Prover<C>::prove_with_blinding(std::span<const Scalar> witness, const Fr& r,
                                                     const Fr& s) const {
  const auto total0 = Clock::now();
  ProveTimings t;
  auto t0 = Clock::now();
  CUZK_RETURN_IF_ERROR(check_witness(witness));
  const double checks = seconds_since(t0);
  CUZK_ASSIGN_OR_RETURN(std::unique_ptr<ProofJob<C>> job, upload(witness, t));
  CUZK_RETURN_IF_ERROR(compute(*job, t));
  CUZK_ASSIGN_OR_RETURN(MsmSums<C> sums, read_back(*job, t));
  job.reset();
  t.witness_abc += checks;
  t0 = Clock::now();
  ProveOutput<C> out = finalize(sums, witness, r, s);
  t.finalize = seconds_since(t0);
  t.total = seconds_since(total0);
  out.timings = t;
  return out;
}

template <class C>
ProveOutput<C> Prover<C>::finalize(const MsmSums<C>& sums, std::span<const Scalar> witness, const Fr& r,
                                   const Fr& s) const {
  using G1J = ec::Jacobian<typename C::G1>;
  using G2J = ec::Jacobian<typename C::G2>;
  const auto& hdr = zkey_->header();
  // Blinding, reference §4.4 step 5.
  const G1J delta1 = G1J::from_affine(hdr.delta1);
  const G1J pi_a = G1J::from_affine(hdr.alpha1) + sums.a + delta1.mul(r);
  const G2J pi_b = G2J::from_affine(hdr.beta2) + sums.b2 + G2J::from_affine(hdr.delta2).mul(s);
  const G1J b1 = G1J::from_affine(hdr.beta1) + sums.b1 + delta1.mul(s);
  const G1J pi_c = sums.l + sums.h + pi_a.mul(s) + b1.mul(r) - delta1.mul(r * s);
  ProveOutput<C> out;
  out.proof.a = pi_a.to_affine();
  out.proof.b = pi_b.to_affine();
  out.proof.c = pi_c.to_affine();
  const size_t first_private = size_t(hdr.n_public) + 1;
  out.public_signals.assign(witness.begin() + 1, witness.begin() + first_private);
  return out;
}

template <class C>
VerifyingKey<C> Prover<C>::verifying_key() const {
  const auto& h = zkey_->header();
  return make_verifying_key<C>(h.alpha1, h.beta2, h.gamma2, h.delta2, zkey_->ic());
}

template class Prover<bn254::Curve>;
template class Prover<bls12_381::Curve>;

}  // namespace cuzk::groth16
