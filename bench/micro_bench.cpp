// Single-thread cost of the host primitives everything above is built from. Benchmark
// names are `<curve>/<op>`; bench/run-micro.sh matches them with the peers' rows.
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "ec/points.hpp"
#include "ff/fields.hpp"
#include "ff/inverse.hpp"
#include "pairing/pairing.hpp"

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
