#include "groth16/prover.hpp"

#include <chrono>
#include <string>

#include "groth16/random.hpp"

namespace cuzk::groth16 {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

template <class C>
Result<Prover<C>> Prover<C>::create(const formats::Zkey<C>& zkey, Backend<C>& backend, ThreadPool& pool) {
  const auto& h = zkey.header();
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < h.domain_size) ++log_n;
  if ((size_t(1) << log_n) != h.domain_size) {
    return invalid_argument(zkey.path() + ": domainSize " + std::to_string(h.domain_size) + " is not a power of two");
  }
  CUZK_ASSIGN_OR_RETURN(auto domain, poly::EvaluationDomain<Fr>::create(log_n));
  Prover p(zkey, backend, pool, std::move(domain));

  // Counting sort of the coefficient entries by row: each row is then summed by one
  // thread, with no write conflicts and in the file's order within the row. Only entry
  // positions are stored (4 bytes each); the entries stay in the key's mapping.
  const auto& coefs = zkey.coefficients();
  for (uint32_t m = 0; m < 2; ++m) {
    Rows& r = p.rows_[m];
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
  for (size_t i = 0; i < witness.size(); ++i) {
    if (!witness[i].less_than(Fr::MODULUS)) {
      return invalid_argument("prover: witness value " + std::to_string(i) + " is not reduced below r");
    }
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
  using G1J = ec::Jacobian<typename C::G1>;
  using G2J = ec::Jacobian<typename C::G2>;
  const auto total0 = Clock::now();
  ProveOutput<C> out;
  ProveTimings& t = out.timings;
  const auto& hdr = zkey_->header();
  const size_t n = hdr.domain_size;

  auto t0 = Clock::now();
  CUZK_RETURN_IF_ERROR(check_witness(witness));
  std::vector<Fr> a(n), b(n), c(n);
  const auto& coefs = zkey_->coefficients();
  pool_->parallel_for(
      0, n,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
          Fr acc[2] = {Fr::zero(), Fr::zero()};
          for (int m = 0; m < 2; ++m) {
            const Rows& rows = rows_[m];
            for (uint32_t k = rows.row_start[i]; k < rows.row_start[i + 1]; ++k) {
              const uint32_t e = rows.entry[k];
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
  zkey_->done_with_coefficients();
  t.witness_abc = seconds_since(t0);

  t0 = Clock::now();
  std::vector<Scalar> p(n);
  CUZK_RETURN_IF_ERROR(backend_->h_poly(domain_, a, b, c, p));
  t.h = seconds_since(t0);
  std::vector<Fr>().swap(a);
  std::vector<Fr>().swap(b);
  std::vector<Fr>().swap(c);

  auto timed = [](double& slot, auto&& f) {
    auto t1 = Clock::now();
    auto res = f();
    slot = seconds_since(t1);
    return res;
  };
  const size_t first_private = size_t(hdr.n_public) + 1;
  // Each section is released after its MSM (a no-op unless the key was opened with
  // keep_resident = false), so a one-shot proof holds one section at a time.
  auto msm_g1 = [&](double& slot, std::span<const typename Backend<C>::G1> bases, std::span<const Scalar> scalars) {
    auto r = timed(slot, [&] { return backend_->msm_g1(bases, scalars); });
    zkey_->done_with(bases);
    return r;
  };
  CUZK_ASSIGN_OR_RETURN(G1J msm_h, msm_g1(t.msm_h, zkey_->h(), p));
  std::vector<Scalar>().swap(p);
  CUZK_ASSIGN_OR_RETURN(G1J msm_a, msm_g1(t.msm_a, zkey_->a(), witness));
  CUZK_ASSIGN_OR_RETURN(G1J msm_b1, msm_g1(t.msm_b1, zkey_->b1(), witness));
  CUZK_ASSIGN_OR_RETURN(G2J msm_b2, timed(t.msm_b2, [&] { return backend_->msm_g2(zkey_->b2(), witness); }));
  zkey_->done_with(zkey_->b2());
  CUZK_ASSIGN_OR_RETURN(G1J msm_l, msm_g1(t.msm_l, zkey_->c(), witness.subspan(first_private)));

  // Blinding, reference §4.4 step 5.
  t0 = Clock::now();
  const G1J delta1 = G1J::from_affine(hdr.delta1);
  const G1J pi_a = G1J::from_affine(hdr.alpha1) + msm_a + delta1.mul(r);
  const G2J pi_b = G2J::from_affine(hdr.beta2) + msm_b2 + G2J::from_affine(hdr.delta2).mul(s);
  const G1J b1 = G1J::from_affine(hdr.beta1) + msm_b1 + delta1.mul(s);
  const G1J pi_c = msm_l + msm_h + pi_a.mul(s) + b1.mul(r) - delta1.mul(r * s);
  out.proof.a = pi_a.to_affine();
  out.proof.b = pi_b.to_affine();
  out.proof.c = pi_c.to_affine();
  out.public_signals.assign(witness.begin() + 1, witness.begin() + first_private);
  t.finalize = seconds_since(t0);
  t.total = seconds_since(total0);
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
