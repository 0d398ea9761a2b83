#include <chrono>

#include "core/elapsed.hpp"
#include "groth16/backend.hpp"

namespace cuzk::groth16 {
using Clock = SteadyClock;

template <class C>
Status CpuBackend<C>::compute(const PreparedKey<C>& key, ProofJob<C>& job, ProveTimings& t) {
  auto& j = static_cast<HostJob&>(job);
  const KeyView<C>& k = key.view();
  const formats::Zkey<C>& zkey = *k.zkey;
  const size_t n = zkey.header().domain_size;
  const std::span<const Scalar> witness = j.witness;

  auto t0 = Clock::now();
  std::vector<Fr> a(n), b(n), c(n);
  synthesize_abc<C>(k, witness, a, b, c, pool_);
  zkey.done_with_coefficients();
  t.witness_abc = seconds_since(t0);

  j.boundary();
  t0 = Clock::now();
  std::vector<Scalar> p(n);
  CUZK_RETURN_IF_ERROR(h_poly(*k.domain, a, b, c, p));
  t.h = seconds_since(t0);
  std::vector<Fr>().swap(a);
  std::vector<Fr>().swap(b);
  std::vector<Fr>().swap(c);

  // Each section is released after its MSM (a no-op unless the key was opened with
  // keep_resident = false), so a one-shot proof holds one section at a time.
  auto timed_g1 = [&](double& slot, std::span<const G1> bases, std::span<const Scalar> scalars) {
    j.boundary();
    auto t1 = Clock::now();
    auto r = msm_g1(bases, scalars);
    slot = seconds_since(t1);
    zkey.done_with(bases);
    return r;
  };
  const size_t first_private = size_t(zkey.header().n_public) + 1;
  CUZK_ASSIGN_OR_RETURN(j.sums.h, timed_g1(t.msm_h, zkey.h(), p));
  std::vector<Scalar>().swap(p);
  CUZK_ASSIGN_OR_RETURN(j.sums.a, timed_g1(t.msm_a, zkey.a(), witness));
  CUZK_ASSIGN_OR_RETURN(j.sums.b1, timed_g1(t.msm_b1, zkey.b1(), witness));
  j.boundary();
  auto t1 = Clock::now();
  CUZK_ASSIGN_OR_RETURN(j.sums.b2, msm_g2(zkey.b2(), witness));
  t.msm_b2 = seconds_since(t1);
  zkey.done_with(zkey.b2());
  CUZK_ASSIGN_OR_RETURN(j.sums.l, timed_g1(t.msm_l, zkey.c(), witness.subspan(first_private)));
  j.computed = true;
  return Status::ok();
}

template class CpuBackend<bn254::Curve>;
template class CpuBackend<bls12_381::Curve>;

}  // namespace cuzk::groth16
