#include "cuda/prover/device_key.hpp"

#include <chrono>
#include <utility>
#include <vector>

#include "core/elapsed.hpp"
#include "cuda/setup/fixed_base.hpp"
#include "ec/batch_affine.hpp"
#include "ec/jacobian.hpp"

namespace cuzk::cuda {
namespace {

using Clock = SteadyClock;

// k·G on the host, for the handful of small points.
template <class G>
ec::Affine<G> host_mul(const ec::Affine<G>& g, const typename G::Scalar& k) {
  return ec::Jacobian<G>::from_affine(g).mul(k).to_affine();
}

}  // namespace

template <class C>
Result<DeviceDevKey<C>> dev_setup_on_device(const formats::R1cs<typename C::Fr>& r1cs, std::string label,
                                            ThreadPool& pool, const groth16::SetupProgress& progress,
                                            const std::optional<groth16::ToxicWaste<typename C::Fr>>& toxic) {
  using Fr = typename C::Fr;
  using G1 = ec::Affine<typename C::G1>;
  auto report = [&](const std::string& stage, double f) {
    if (progress.report) progress.report(stage, f);
  };
  const auto t_all = Clock::now();
  const groth16::ToxicWaste<Fr> tw =
      toxic ? *toxic
            : groth16::sample_toxic_waste<Fr>(groth16::snarkjs_domain_size(r1cs.n_constraints, r1cs.n_public()));
  auto t0 = Clock::now();
  CUZK_ASSIGN_OR_RETURN(groth16::DevKeyScalars<C> k, groth16::dev_key_scalars<C>(r1cs, pool, tw, progress));
  const double scalars_s = seconds_since(t0);

  // Each section as its scalars are done with: the host keeps one section's scalars less
  // each time (at 2^27, 4 GiB each).
  DeviceKeyPoints<C> pts;
  t0 = Clock::now();
  {
    report("G1 points on the device", 0);
    CUZK_ASSIGN_OR_RETURN(auto g1, FixedBaseMul<typename C::G1>::create(C::G1::generator(), pool));
    CUZK_ASSIGN_OR_RETURN(pts.a, g1.to_device(k.a, "setup.device_key.points_a"));
    std::vector<Fr>().swap(k.a);
    report("G1 points on the device", 0.25);
    CUZK_ASSIGN_OR_RETURN(pts.b1, g1.to_device(k.b, "setup.device_key.points_b1"));
    report("G1 points on the device", 0.5);
    CUZK_ASSIGN_OR_RETURN(pts.c, g1.to_device(k.c, "setup.device_key.points_c"));
    std::vector<Fr>().swap(k.c);
    report("G1 points on the device", 0.75);
    CUZK_ASSIGN_OR_RETURN(pts.h, g1.to_device(k.h, "setup.device_key.points_h"));
    std::vector<Fr>().swap(k.h);
    report("G1 points on the device", 1);
  }
  const double g1_s = seconds_since(t0);
  t0 = Clock::now();
  {
    report("G2 points on the device", 0);
    CUZK_ASSIGN_OR_RETURN(auto g2, FixedBaseMul<typename C::G2>::create(C::G2::generator(), pool));
    CUZK_ASSIGN_OR_RETURN(pts.b2, g2.to_device(k.b, "setup.device_key.points_b2"));
    std::vector<Fr>().swap(k.b);
    report("G2 points on the device", 1);
  }
  const double g2_s = seconds_since(t0);

  formats::ZkeyHeader<C> h;
  h.n_vars = k.n_vars;
  h.n_public = k.n_public;
  h.domain_size = k.domain_size;
  h.alpha1 = host_mul(C::G1::generator(), k.alpha);
  h.beta1 = host_mul(C::G1::generator(), k.beta);
  h.delta1 = host_mul(C::G1::generator(), k.delta);
  h.beta2 = host_mul(C::G2::generator(), k.beta);
  h.delta2 = host_mul(C::G2::generator(), k.delta);
  h.gamma2 = C::G2::generator();
  std::vector<ec::Jacobian<typename C::G1>> ic_j(k.ic.size());
  pool.parallel_for(0, k.ic.size(), [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) ic_j[i] = ec::Jacobian<typename C::G1>::from_affine(C::G1::generator()).mul(k.ic[i]);
  });
  std::vector<G1> ic(ic_j.size());
  ec::batch_to_affine(ic_j.data(), ic_j.size(), ic.data());
  const groth16::VerifyingKey<C> vk = groth16::make_verifying_key<C>(h.alpha1, h.beta2, h.gamma2, h.delta2, ic);
  CUZK_ASSIGN_OR_RETURN(formats::Zkey<C> zkey, formats::Zkey<C>::held_elsewhere(std::move(label), h, std::move(ic),
                                                                                 std::move(k.coefficients)));
  DeviceDevKey<C> out{std::move(zkey), std::move(pts), vk, scalars_s, g1_s, g2_s, seconds_since(t_all)};
  return out;
}

template Result<DeviceDevKey<bn254::Curve>> dev_setup_on_device<bn254::Curve>(
    const formats::R1cs<bn254::Fr>&, std::string, ThreadPool&, const groth16::SetupProgress&,
    const std::optional<groth16::ToxicWaste<bn254::Fr>>&);
template Result<DeviceDevKey<bls12_381::Curve>> dev_setup_on_device<bls12_381::Curve>(
    const formats::R1cs<bls12_381::Fr>&, std::string, ThreadPool&, const groth16::SetupProgress&,
    const std::optional<groth16::ToxicWaste<bls12_381::Fr>>&);

}  // namespace cuzk::cuda
