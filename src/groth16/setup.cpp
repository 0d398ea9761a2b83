#include "groth16/setup.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "ec/points.hpp"
#include "ff/roots.hpp"
#include "formats/zkey.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/random.hpp"

namespace cuzk::groth16 {

uint64_t snarkjs_domain_size(uint64_t n_constraints, uint64_t n_public) {
  uint64_t n = 1;
  while (n <= n_constraints + n_public) n <<= 1;
  return n;
}

namespace {

// out[i] = c·x_i / (τ − x_i) for the points x_i = g·ω^i, i < out.size(): with
// c = Z(τ)/m this is the Lagrange basis L_i(τ) of a size-m domain at those points.
// Chunked so each chunk runs one batch inversion on its own thread.
template <class Fr>
void lagrange_at(const Fr& tau, const Fr& g, const Fr& omega, const Fr& c, std::vector<Fr>& out, ThreadPool& pool) {
  pool.parallel_for(
      0, out.size(),
      [&](size_t lo, size_t hi) {
        std::vector<Fr> x(hi - lo), scratch(hi - lo);
        Fr xi = g * omega.pow(uint64_t(lo));
        for (size_t i = lo; i < hi; ++i) {
          x[i - lo] = xi;
          out[i] = tau - xi;
          xi = xi * omega;
        }
        Fr::batch_inverse(out.data() + lo, hi - lo, scratch.data());
        for (size_t i = lo; i < hi; ++i) out[i] = out[i] * x[i - lo] * c;
      },
      4096);
}

class ProgressGate {
 public:
  explicit ProgressGate(const SetupProgress& p) : p_(p) {}
  void operator()(const std::string& stage, double f) {
    if (!p_.report) return;
    std::lock_guard<std::mutex> lock(mu_);
    p_.report(stage, f);
  }

 private:
  const SetupProgress& p_;
  std::mutex mu_;
};

}  // namespace

template <class C>
Result<VerifyingKey<C>> dev_setup(const formats::R1cs<typename C::Fr>& r1cs, const std::string& zkey_path,
                                  ThreadPool& pool, const SetupProgress& progress, const FixedBaseMuls<C>& muls) {
  using Fr = typename C::Fr;
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;
  ProgressGate report(progress);

  const uint64_t n_vars = r1cs.n_vars, n_public = r1cs.n_public(), n_cons = r1cs.n_constraints;
  if (n_public + 1 > n_vars) {
    return invalid_argument("setup: nPublic " + std::to_string(n_public) + " does not leave room in nVars " +
                            std::to_string(n_vars));
  }
  if (r1cs.offsets.size() != 3 * n_cons + 1 || r1cs.offsets.back() != r1cs.terms.size()) {
    return invalid_argument("setup: the R1CS constraint offsets do not match nConstraints");
  }
  for (size_t k = 0; k < r1cs.terms.size(); ++k) {
    if (r1cs.terms[k].wire >= n_vars) {
      return invalid_argument("setup: R1CS term " + std::to_string(k) + " uses wire " +
                              std::to_string(r1cs.terms[k].wire) + ", not below nVars " + std::to_string(n_vars));
    }
  }
  const uint64_t n = snarkjs_domain_size(n_cons, n_public);
  unsigned log_n = 0;
  while ((uint64_t(1) << log_n) < n) ++log_n;
  if (log_n + 1 > Fr::S || n > UINT32_MAX) {
    return invalid_argument("setup: " + std::to_string(n_cons) + " constraints need a domain of 2^" +
                            std::to_string(log_n) + ", beyond what the field's 2-adicity (2^" + std::to_string(Fr::S) +
                            ") allows for the H points");
  }

  // Toxic waste. tau must avoid both domains (Z(tau) = 0 would zero every basis value).
  Fr tau;
  do {
    tau = os_random_nonzero<Fr>();
  } while ((tau.pow(2 * n) - Fr::one()).is_zero());
  const Fr alpha = os_random_nonzero<Fr>(), beta = os_random_nonzero<Fr>(), delta = os_random_nonzero<Fr>();
  const Fr delta_inv = delta.inverse();

  report("lagrange", 0);
  const Fr omega = ff::two_adic_root<Fr>(log_n), omega2 = ff::two_adic_root<Fr>(log_n + 1);
  const Fr z_n = tau.pow(n) - Fr::one(), z_2n = tau.pow(2 * n) - Fr::one();
  std::vector<Fr> lag(n), lag_odd(n);
  lagrange_at(tau, Fr::one(), omega, z_n * Fr::from_u64(n).inverse(), lag, pool);
  // The odd points of the 2n-domain are omega2·omega^i; the 1/delta of H folds in here.
  lagrange_at(tau, omega2, omega, z_2n * Fr::from_u64(2 * n).inverse() * delta_inv, lag_odd, pool);

  report("qap", 0);
  std::vector<Fr> u(n_vars, Fr::zero()), v(n_vars, Fr::zero()), w(n_vars, Fr::zero());
  std::vector<formats::ZkeyCoefficient<Fr>> coefs;
  coefs.reserve(r1cs.terms.size() + n_public + 1);
  for (uint32_t c = 0; c < n_cons; ++c) {
    for (const auto& t : r1cs.a(c)) {
      u[t.wire] += t.coef * lag[c];
      coefs.push_back({0, c, t.wire, formats::ZkeyCoefficient<Fr>::stored(t.coef)});
    }
    for (const auto& t : r1cs.b(c)) {
      v[t.wire] += t.coef * lag[c];
      coefs.push_back({1, c, t.wire, formats::ZkeyCoefficient<Fr>::stored(t.coef)});
    }
    for (const auto& t : r1cs.c(c)) w[t.wire] += t.coef * lag[c];
  }
  // The public-input rows A = w_s at row nConstraints + s keep the IC points independent.
  for (uint32_t s = 0; s <= n_public; ++s) {
    u[s] += lag[n_cons + s];
    coefs.push_back({0, uint32_t(n_cons + s), s, formats::ZkeyCoefficient<Fr>::stored(Fr::one())});
  }
  std::vector<Fr>().swap(lag);

  // Every G1 scalar in one array, so one table serves them all:
  // [A: n_vars][B1: n_vars][IC: n_public+1][C: n_vars-n_public-1][H: n][alpha, beta, delta].
  const size_t off_b1 = n_vars, off_ic = 2 * n_vars, off_c = off_ic + n_public + 1, off_h = off_c + (n_vars - n_public - 1);
  const size_t off_tail = off_h + n, n_g1 = off_tail + 3;
  std::vector<Fr> s1(n_g1);
  pool.parallel_for(0, n_vars, [&](size_t lo, size_t hi) {
    for (size_t s = lo; s < hi; ++s) {
      s1[s] = u[s];
      s1[off_b1 + s] = v[s];
      Fr k = beta * u[s] + alpha * v[s] + w[s];
      if (s <= n_public) {
        s1[off_ic + s] = k;
      } else {
        s1[off_c + s - n_public - 1] = k * delta_inv;
      }
    }
  });
  std::copy(lag_odd.begin(), lag_odd.end(), s1.begin() + off_h);
  s1[off_tail] = alpha;
  s1[off_tail + 1] = beta;
  s1[off_tail + 2] = delta;
  std::vector<Fr>().swap(lag_odd);
  std::vector<Fr>().swap(u);
  std::vector<Fr>().swap(w);

  report("G1 points", 0);
  std::vector<G1> p1(n_g1);
  if (muls.g1) {
    CUZK_RETURN_IF_ERROR(muls.g1(s1, p1).with_context("setup: G1 points"));
  } else {
    FixedBaseTable<typename C::G1> table(C::G1::generator(), n_g1, pool);
    table.mul_many(s1, p1, pool, [&](size_t done) { report("G1 points", double(done) / double(n_g1)); });
  }
  std::vector<Fr>().swap(s1);

  report("G2 points", 0);
  std::vector<Fr> s2(v.begin(), v.end());
  s2.push_back(beta);
  s2.push_back(delta);
  std::vector<G2> p2(s2.size());
  if (muls.g2) {
    CUZK_RETURN_IF_ERROR(muls.g2(s2, p2).with_context("setup: G2 points"));
  } else {
    FixedBaseTable<typename C::G2> table(C::G2::generator(), s2.size(), pool);
    table.mul_many(s2, p2, pool, [&](size_t done) { report("G2 points", double(done) / double(s2.size())); });
  }

  formats::ZkeyContents<C> z;
  auto& h = z.header;
  h.n_vars = uint32_t(n_vars);
  h.n_public = uint32_t(n_public);
  h.domain_size = uint32_t(n);
  h.alpha1 = p1[off_tail];
  h.beta1 = p1[off_tail + 1];
  h.delta1 = p1[off_tail + 2];
  h.beta2 = p2[n_vars];
  h.delta2 = p2[n_vars + 1];
  h.gamma2 = C::G2::generator();
  const std::span<const G1> all1(p1);
  z.a = all1.subspan(0, n_vars);
  z.b1 = all1.subspan(off_b1, n_vars);
  z.ic = all1.subspan(off_ic, n_public + 1);
  z.c = all1.subspan(off_c, n_vars - n_public - 1);
  z.h = all1.subspan(off_h, n);
  z.b2 = std::span<const G2>(p2).subspan(0, n_vars);
  z.coefficients = coefs;

  report("writing " + zkey_path, 0);
  CUZK_RETURN_IF_ERROR(formats::write_zkey<C>(zkey_path, z));
  report("writing " + zkey_path, 1);

  return make_verifying_key<C>(h.alpha1, h.beta2, h.gamma2, h.delta2, z.ic);
}

template Result<VerifyingKey<bn254::Curve>> dev_setup<bn254::Curve>(const formats::R1cs<bn254::Fr>&,
                                                                    const std::string&, ThreadPool&,
                                                                    const SetupProgress&,
                                                                    const FixedBaseMuls<bn254::Curve>&);
template Result<VerifyingKey<bls12_381::Curve>> dev_setup<bls12_381::Curve>(const formats::R1cs<bls12_381::Fr>&,
                                                                            const std::string&, ThreadPool&,
                                                                            const SetupProgress&,
                                                                            const FixedBaseMuls<bls12_381::Curve>&);

}  // namespace cuzk::groth16
