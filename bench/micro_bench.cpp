// Single-thread cost of the host primitives everything above is built from. Benchmark
// names are `<curve>/<op>`; bench/run-micro.sh matches them with the peers' rows.
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "ec/points.hpp"
#include "ec/subgroup.hpp"
#include "ff/fields.hpp"
#include "ff/inverse.hpp"
#include "groth16/prepared_verifier.hpp"
#include "groth16/verifier.hpp"
#include "pairing/final_exponentiation_check.hpp"
#include "pairing/pairing.hpp"
#include "pairing/prepared.hpp"

namespace cuzk {
namespace {

// A fixed seed: every run times the same operands.
std::mt19937_64& rng() {
  static std::mt19937_64 r(0x637a6b);
  return r;
}

template <class F>
void field_mul(benchmark::State& state) {
  F a = F::random(rng());
  F b = F::random(rng());
  for (auto _ : state) {
    // Feeding the product back in keeps each multiplication dependent on the last,
    // so this measures latency rather than how many independent products overlap.
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}

// Fermat (x^(p-2)) against safegcd. Adding b between inversions keeps the inputs varied,
// which matters to the variable-time one, and the chain dependent as in field_mul.
template <class F>
void field_inverse_fermat(benchmark::State& state) {
  F a = F::random(rng());
  F b = F::random(rng());
  for (auto _ : state) {
    a = a.inverse() + b;
    benchmark::DoNotOptimize(a);
  }
}

template <class F>
void field_inverse_vartime(benchmark::State& state) {
  F a = F::random(rng());
  F b = F::random(rng());
  for (auto _ : state) {
    a = ff::inverse_vartime(a) + b;
    benchmark::DoNotOptimize(a);
  }
}

template <class C>
ec::Jacobian<C> random_point() {
  return ec::Jacobian<C>::generator().mul(C::Scalar::random(rng()));
}

// Jacobian += affine: the inner step of bucket accumulation in Pippenger.
template <class C>
void mixed_add(benchmark::State& state) {
  ec::Jacobian<C> acc = random_point<C>();
  ec::Affine<C> p = random_point<C>().to_affine();
  for (auto _ : state) {
    acc += p;
    benchmark::DoNotOptimize(acc);
  }
}

// Variable-base [k]P for a full-width random scalar.
template <class C>
void scalar_mul(benchmark::State& state) {
  ec::Jacobian<C> p = random_point<C>();
  typename C::Scalar k = C::Scalar::random(rng());
  for (auto _ : state) benchmark::DoNotOptimize(p.mul(k));
}

// e(P, Q) including the final exponentiation.
template <class Curve>
void pairing_one(benchmark::State& state) {
  auto p = random_point<typename Curve::G1>().to_affine();
  auto q = random_point<typename Curve::G2>().to_affine();
  for (auto _ : state) benchmark::DoNotOptimize(pairing::pairing(p, q));
}

// A verification key with known discrete logs and a valid proof for random public signals:
// C = (ab - alpha beta - gamma sum_i pub_i ic_i) / delta. Full-width public signals, the
// costliest case for the IC sum.
template <class Curve>
struct VerifyInstance {
  using Fr = typename Curve::Fr;
  groth16::VerifyingKey<Curve> vk;
  groth16::Proof<Curve> proof;
  std::vector<typename Fr::Int> pub;

  explicit VerifyInstance(size_t n_public) {
    using G1J = ec::Jacobian<typename Curve::G1>;
    using G2J = ec::Jacobian<typename Curve::G2>;
    auto rnd = [] { return Fr::random(rng()); };
    Fr alpha = rnd(), beta = rnd(), gamma = rnd(), delta = rnd(), a = rnd(), b = rnd();
    Fr x = rnd();
    vk.n_public = uint32_t(n_public);
    vk.ic.push_back(G1J::generator().mul(x).to_affine());
    for (size_t i = 0; i < n_public; ++i) {
      Fr ic = rnd(), p = rnd();
      vk.ic.push_back(G1J::generator().mul(ic).to_affine());
      pub.push_back(p.to_canonical());
      x = x + ic * p;
    }
    vk.alpha1 = G1J::generator().mul(alpha).to_affine();
    vk.beta2 = G2J::generator().mul(beta).to_affine();
    vk.gamma2 = G2J::generator().mul(gamma).to_affine();
    vk.delta2 = G2J::generator().mul(delta).to_affine();
    proof.a = G1J::generator().mul(a).to_affine();
    proof.b = G2J::generator().mul(b).to_affine();
    proof.c = G1J::generator().mul((a * b - alpha * beta - gamma * x) * delta.inverse()).to_affine();
  }
};

constexpr size_t kVerifyPublic = 4;

template <class Curve>
void verify_plain(benchmark::State& state) {
  VerifyInstance<Curve> in(kVerifyPublic);
  if (!groth16::verify<Curve>(in.vk, in.proof, in.pub).is_ok()) state.SkipWithError("the instance does not verify");
  for (auto _ : state) benchmark::DoNotOptimize(groth16::verify<Curve>(in.vk, in.proof, in.pub));
}

// The same check against a key prepared once (groth16/prepared_verifier.hpp).
template <class Curve>
void verify_prepared(benchmark::State& state) {
  VerifyInstance<Curve> in(kVerifyPublic);
  groth16::PreparedVerifyingKey<Curve> pvk(in.vk);
  if (!groth16::verify<Curve>(pvk, in.proof, in.pub).is_ok()) state.SkipWithError("the instance does not verify");
  for (auto _ : state) benchmark::DoNotOptimize(groth16::verify<Curve>(pvk, in.proof, in.pub));
}

// The parts of verify_plain, one by one.
template <class Curve>
void verify_ic_sum(benchmark::State& state) {
  using G1J = ec::Jacobian<typename Curve::G1>;
  VerifyInstance<Curve> in(kVerifyPublic);
  for (auto _ : state) {
    G1J acc = G1J::from_affine(in.vk.ic[0]);
    for (size_t i = 0; i < in.pub.size(); ++i) acc += G1J::from_affine(in.vk.ic[i + 1]).mul(in.pub[i]);
    benchmark::DoNotOptimize(acc.to_affine());
  }
}

template <class C>
void subgroup_check(benchmark::State& state) {
  ec::Affine<C> p = random_point<C>().to_affine();
  for (auto _ : state) benchmark::DoNotOptimize(ec::is_in_subgroup(p));
}

template <class Curve>
void miller_loop_4(benchmark::State& state) {
  using Pair = std::pair<ec::Affine<typename Curve::G1>, ec::Affine<typename Curve::G2>>;
  VerifyInstance<Curve> in(kVerifyPublic);
  const Pair pairs[4] = {
      {-in.proof.a, in.proof.b}, {in.vk.ic[0], in.vk.gamma2}, {in.proof.c, in.vk.delta2}, {in.vk.alpha1, in.vk.beta2}};
  for (auto _ : state) benchmark::DoNotOptimize(pairing::miller_loop(std::span<const Pair>(pairs)));
}

template <class Curve>
typename Curve::Fq12 random_miller_value() {
  using Pair = std::pair<ec::Affine<typename Curve::G1>, ec::Affine<typename Curve::G2>>;
  const Pair pair{random_point<typename Curve::G1>().to_affine(), random_point<typename Curve::G2>().to_affine()};
  return pairing::miller_loop(std::span<const Pair>(&pair, 1));
}

template <class Curve>
void final_exponentiation(benchmark::State& state) {
  auto f = random_miller_value<Curve>();
  for (auto _ : state) benchmark::DoNotOptimize(pairing::final_exponentiation(f));
}

// The parts of verify_prepared: the IC sum from the tables, the Miller loop with gamma2
// and delta2 prepared, the "is one" final exponentiation.
template <class Curve>
void prepared_ic_sum(benchmark::State& state) {
  VerifyInstance<Curve> in(kVerifyPublic);
  groth16::PreparedVerifyingKey<Curve> pvk(in.vk);
  for (auto _ : state) benchmark::DoNotOptimize(pvk.ic_sum(in.pub));
}

template <class Curve>
void miller_loop_prepared(benchmark::State& state) {
  using PC = typename pairing::PairingFor<Curve>::type;
  VerifyInstance<Curve> in(kVerifyPublic);
  groth16::PreparedVerifyingKey<Curve> pvk(in.vk);
  const pairing::PreparedPair<PC> fixed[2] = {{in.vk.ic[0], &pvk.gamma2()}, {in.proof.c, &pvk.delta2()}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(pairing::miller_loop_prepared<PC>(-in.proof.a, in.proof.b, std::span(fixed)));
  }
}

template <class Curve>
void final_exponentiation_is_one(benchmark::State& state) {
  auto f = random_miller_value<Curve>();
  for (auto _ : state)
    benchmark::DoNotOptimize(pairing::final_exponentiation_is_one<typename pairing::PairingFor<Curve>::type>(f));
}

template <class Curve>
void register_curve() {
  const std::string c = Curve::NAME;
  benchmark::RegisterBenchmark((c + "/Fr_mul").c_str(), field_mul<typename Curve::Fr>);
  benchmark::RegisterBenchmark((c + "/Fq_mul").c_str(), field_mul<typename Curve::Fq>);
  benchmark::RegisterBenchmark((c + "/Fq_inverse").c_str(), field_inverse_fermat<typename Curve::Fq>);
  benchmark::RegisterBenchmark((c + "/Fq_inverse_vartime").c_str(), field_inverse_vartime<typename Curve::Fq>);
  benchmark::RegisterBenchmark((c + "/G1_mixed_add").c_str(), mixed_add<typename Curve::G1>);
  benchmark::RegisterBenchmark((c + "/G2_mixed_add").c_str(), mixed_add<typename Curve::G2>);
  benchmark::RegisterBenchmark((c + "/G1_scalar_mul").c_str(), scalar_mul<typename Curve::G1>);
  benchmark::RegisterBenchmark((c + "/G2_scalar_mul").c_str(), scalar_mul<typename Curve::G2>);
  benchmark::RegisterBenchmark((c + "/pairing").c_str(), pairing_one<Curve>)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/G1_subgroup_check").c_str(), subgroup_check<typename Curve::G1>)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/G2_subgroup_check").c_str(), subgroup_check<typename Curve::G2>)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/verify_ic_sum_4").c_str(), verify_ic_sum<Curve>)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/miller_loop_4").c_str(), miller_loop_4<Curve>)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/final_exponentiation").c_str(), final_exponentiation<Curve>)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/verify_4").c_str(), verify_plain<Curve>)->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/verify_prepared_4").c_str(), verify_prepared<Curve>)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/prepared_ic_sum_4").c_str(), prepared_ic_sum<Curve>)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/miller_loop_prepared").c_str(), miller_loop_prepared<Curve>)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark((c + "/final_exponentiation_is_one").c_str(), final_exponentiation_is_one<Curve>)
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace
}  // namespace cuzk

int main(int argc, char** argv) {
  cuzk::register_curve<cuzk::bls12_381::Curve>();
  cuzk::register_curve<cuzk::bn254::Curve>();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
