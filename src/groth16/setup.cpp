#include "groth16/setup.hpp"

#include <algorithm>
#include <cstring>
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

template <class Fr>
ToxicWaste<Fr> sample_toxic_waste(uint64_t domain_size) {
  ToxicWaste<Fr> t;
  do {
    t.tau = os_random_nonzero<Fr>();
  } while ((t.tau.pow(2 * domain_size) - Fr::one()).is_zero());
  t.alpha = os_random_nonzero<Fr>();
  t.beta = os_random_nonzero<Fr>();
  t.delta = os_random_nonzero<Fr>();
  return t;
}

template <class C>
Result<DevKeyScalars<C>> dev_key_scalars(const formats::R1cs<typename C::Fr>& r1cs, ThreadPool& pool,
                                         const ToxicWaste<typename C::Fr>& toxic, const SetupProgress& progress) {
  using Fr = typename C::Fr;
  using Entry = formats::CoefficientTable<Fr>;
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
  const Fr& tau = toxic.tau;
  const Fr z_n = tau.pow(n) - Fr::one(), z_2n = tau.pow(2 * n) - Fr::one();
  if (z_2n.is_zero() || toxic.alpha.is_zero() || toxic.beta.is_zero() || toxic.delta.is_zero()) {
    return invalid_argument("setup: the toxic waste has a zero (alpha, beta, delta) or tau on the 2n-domain");
  }
  const Fr delta_inv = toxic.delta.inverse();

  DevKeyScalars<C> k;
  k.n_vars = uint32_t(n_vars);
  k.n_public = uint32_t(n_public);
  k.domain_size = uint32_t(n);
  k.alpha = toxic.alpha;
  k.beta = toxic.beta;
  k.delta = toxic.delta;

  report("lagrange", 0);
  const Fr omega = ff::two_adic_root<Fr>(log_n), omega2 = ff::two_adic_root<Fr>(log_n + 1);
  std::vector<Fr> lag(n);
  lagrange_at(tau, Fr::one(), omega, z_n * Fr::from_u64(n).inverse(), lag, pool);
  // The odd points of the 2n-domain are omega2·omega^i; the 1/delta of H folds in here.
  k.h.resize(n);
  lagrange_at(tau, omega2, omega, z_2n * Fr::from_u64(2 * n).inverse() * delta_inv, k.h, pool);

  // u, v, w: one task per matrix (each writes only its own vector), the constraints in order.
  report("qap", 0);
  k.a.assign(n_vars, Fr::zero());
  k.b.assign(n_vars, Fr::zero());
  std::vector<Fr> w(n_vars, Fr::zero());
  std::vector<Fr>* sums[3] = {&k.a, &k.b, &w};
  pool.parallel_for(0, 3, [&](size_t lo, size_t hi) {
    for (size_t m = lo; m < hi; ++m) {
      std::vector<Fr>& out = *sums[m];
      for (uint32_t c = 0; c < n_cons; ++c) {
        for (const auto& t : r1cs.lc(c, int(m))) out[t.wire] += t.coef * lag[c];
      }
    }
  });
  // The public-input rows A = w_s at row nConstraints + s keep the IC points independent.
  for (uint32_t s = 0; s <= n_public; ++s) k.a[s] += lag[n_cons + s];
  std::vector<Fr>().swap(lag);

  // Section 4 in its stored form, filled in parallel: each chunk of constraints writes
  // from its own offset (prefix sums of the A and B terms it holds).
  const size_t chunk = std::max<size_t>(4096, (n_cons + pool.size() * 8 - 1) / (pool.size() * 8 + 1));
  const size_t n_chunks = (n_cons + chunk - 1) / chunk;
  std::vector<size_t> first(n_chunks + 1, 0);
  for (size_t j = 0; j < n_chunks; ++j) {
    const size_t lo = j * chunk, hi = std::min<size_t>(n_cons, lo + chunk);
    // Terms of A then B for constraints lo..hi: offsets[3c] .. offsets[3c+2] each.
    size_t count = 0;
    for (size_t c = lo; c < hi; ++c) count += r1cs.offsets[3 * c + 2] - r1cs.offsets[3 * c];
    first[j + 1] = first[j] + count;
  }
  const size_t n_coefs = first[n_chunks] + n_public + 1;
  k.coefficients.resize(n_coefs * Entry::kEntryBytes);
  auto put = [&](size_t at, uint32_t matrix, uint32_t row, uint32_t signal, const Fr& coef) {
    uint8_t* e = k.coefficients.data() + at * Entry::kEntryBytes;
    std::memcpy(e, &matrix, 4);
    std::memcpy(e + 4, &row, 4);
    std::memcpy(e + 8, &signal, 4);
    formats::ZkeyCoefficient<Fr>::stored(coef).to_mont_bytes_le(e + 12);
  };
  pool.parallel_for(0, n_chunks, [&](size_t jlo, size_t jhi) {
    for (size_t j = jlo; j < jhi; ++j) {
      size_t at = first[j];
      const size_t lo = j * chunk, hi = std::min<size_t>(n_cons, lo + chunk);
      for (size_t c = lo; c < hi; ++c) {
        for (const auto& t : r1cs.a(c)) put(at++, 0, uint32_t(c), t.wire, t.coef);
        for (const auto& t : r1cs.b(c)) put(at++, 1, uint32_t(c), t.wire, t.coef);
      }
    }
  });
  for (uint32_t s = 0; s <= n_public; ++s) put(first[n_chunks] + s, 0, uint32_t(n_cons + s), s, Fr::one());

  // IC and C from β·u + α·v + w.
  k.ic.resize(n_public + 1);
  k.c.resize(n_vars - n_public - 1);
  pool.parallel_for(0, n_vars, [&](size_t lo, size_t hi) {
    for (size_t s = lo; s < hi; ++s) {
      const Fr x = toxic.beta * k.a[s] + toxic.alpha * k.b[s] + w[s];
      if (s <= n_public) {
        k.ic[s] = x;
      } else {
        k.c[s - n_public - 1] = x * delta_inv;
      }
    }
  });
  return k;
}

template <class C>
Result<VerifyingKey<C>> dev_setup(const formats::R1cs<typename C::Fr>& r1cs, const std::string& zkey_path,
                                  ThreadPool& pool, const SetupProgress& progress, const FixedBaseMuls<C>& muls,
                                  const std::optional<ToxicWaste<typename C::Fr>>& toxic) {
  using Fr = typename C::Fr;
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;
  ProgressGate report(progress);
  const ToxicWaste<Fr> tw =
      toxic ? *toxic : sample_toxic_waste<Fr>(snarkjs_domain_size(r1cs.n_constraints, r1cs.n_public()));
  CUZK_ASSIGN_OR_RETURN(DevKeyScalars<C> k, dev_key_scalars<C>(r1cs, pool, tw, progress));
  const size_t n_vars = k.n_vars, n_public = k.n_public, n = k.domain_size;

  // Every G1 point in one array, so one table serves them all:
  // [A: n_vars][B1: n_vars][IC: n_public+1][C: n_vars-n_public-1][H: n][alpha, beta, delta].
  const size_t off_b1 = n_vars, off_ic = 2 * n_vars, off_c = off_ic + n_public + 1, off_h = off_c + k.c.size();
  const size_t off_tail = off_h + n, n_g1 = off_tail + 3;
  const std::vector<Fr> tail{k.alpha, k.beta, k.delta};
  const std::pair<const std::vector<Fr>*, size_t> parts[] = {{&k.a, 0},      {&k.b, off_b1}, {&k.ic, off_ic},
                                                             {&k.c, off_c},  {&k.h, off_h},  {&tail, off_tail}};
  report("G1 points", 0);
  std::vector<G1> p1(n_g1);
  if (muls.g1) {
    for (const auto& [scalars, at] : parts) {
      CUZK_RETURN_IF_ERROR(muls.g1(*scalars, std::span<G1>(p1).subspan(at, scalars->size()))
                               .with_context("setup: G1 points"));
    }
  } else {
    FixedBaseTable<typename C::G1> table(C::G1::generator(), n_g1, pool);
    size_t done_before = 0;
    for (const auto& [scalars, at] : parts) {
      table.mul_many(*scalars, std::span<G1>(p1).subspan(at, scalars->size()), pool, [&](size_t done) {
        report("G1 points", double(done_before + done) / double(n_g1));
      });
      done_before += scalars->size();
    }
  }
  std::vector<Fr>().swap(k.a);
  std::vector<Fr>().swap(k.ic);
  std::vector<Fr>().swap(k.c);
  std::vector<Fr>().swap(k.h);

  report("G2 points", 0);
  std::vector<Fr> s2 = std::move(k.b);
  s2.push_back(k.beta);
  s2.push_back(k.delta);
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
  z.stored_coefficients = formats::CoefficientTable<Fr>(k.coefficients);

  report("writing " + zkey_path, 0);
  CUZK_RETURN_IF_ERROR(formats::write_zkey<C>(zkey_path, z));
  report("writing " + zkey_path, 1);

  return make_verifying_key<C>(h.alpha1, h.beta2, h.gamma2, h.delta2, z.ic);
}

template ToxicWaste<bn254::Fr> sample_toxic_waste<bn254::Fr>(uint64_t);
template ToxicWaste<bls12_381::Fr> sample_toxic_waste<bls12_381::Fr>(uint64_t);
template Result<DevKeyScalars<bn254::Curve>> dev_key_scalars<bn254::Curve>(const formats::R1cs<bn254::Fr>&,
                                                                           ThreadPool&, const ToxicWaste<bn254::Fr>&,
                                                                           const SetupProgress&);
template Result<DevKeyScalars<bls12_381::Curve>> dev_key_scalars<bls12_381::Curve>(
    const formats::R1cs<bls12_381::Fr>&, ThreadPool&, const ToxicWaste<bls12_381::Fr>&, const SetupProgress&);

template Result<VerifyingKey<bn254::Curve>> dev_setup<bn254::Curve>(const formats::R1cs<bn254::Fr>&,
                                                                    const std::string&, ThreadPool&,
                                                                    const SetupProgress&,
                                                                    const FixedBaseMuls<bn254::Curve>&,
                                                                    const std::optional<ToxicWaste<bn254::Fr>>&);
template Result<VerifyingKey<bls12_381::Curve>> dev_setup<bls12_381::Curve>(const formats::R1cs<bls12_381::Fr>&,
                                                                            const std::string&, ThreadPool&,
                                                                            const SetupProgress&,
                                                                            const FixedBaseMuls<bls12_381::Curve>&,
                                                                            const std::optional<ToxicWaste<bls12_381::Fr>>&);

}  // namespace cuzk::groth16
