#include "cuzk/selfcheck.hpp"

#include <chrono>
#include <cstdio>
#include <random>
#include <string>

#include "ec/curves.hpp"
#include "ff/fields.hpp"

namespace cuzk::app {
namespace {

using Clock = std::chrono::steady_clock;

struct Tally {
  bool verbose = true;
  int checks = 0, failed = 0;
  void report(const std::string& what, bool ok) {
    ++checks;
    if (verbose || !ok) std::printf("  %-54s %s\n", what.c_str(), ok ? "ok" : "FAILED");
    if (!ok) ++failed;
  }
};

// Ring and field axioms that every Montgomery field and tower level must satisfy.
template <class F, class Rng>
void check_field(const char* name, int rounds, Rng& rng, Tally& t) {
  bool comm = true, assoc = true, distrib = true, inv = true, sq = true, neg = true;
  for (int i = 0; i < rounds; ++i) {
    F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    comm &= a * b == b * a && a + b == b + a;
    assoc &= (a * b) * c == a * (b * c) && (a + b) + c == a + (b + c);
    distrib &= a * (b + c) == a * b + a * c;
    inv &= a.is_zero() || (a * a.inverse()).is_one();
    F r;
    sq &= a.square().sqrt(r) && r.square() == a.square();
    neg &= (a + (-a)).is_zero() && a - b == a + (-b);
  }
  std::string n = name;
  t.report(n + ": a*b == b*a, a+b == b+a", comm);
  t.report(n + ": associativity of + and *", assoc);
  t.report(n + ": a*(b+c) == a*b + a*c", distrib);
  t.report(n + ": a * a^-1 == 1", inv);
  t.report(n + ": sqrt(a^2)^2 == a^2", sq);
  t.report(n + ": a + (-a) == 0, a - b == a + (-b)", neg);
}

// A random curve point from a random x: hash-and-pray, as x^3 + b is a square half the time.
template <class C, class Rng>
ec::Affine<C> random_point(Rng& rng) {
  using B = typename C::Base;
  for (;;) {
    B x = B::random(rng);
    B y;
    if ((x.square() * x + C::b()).sqrt(y)) return {x, y};
  }
}

template <class C, class Rng>
void check_curve(int rounds, Rng& rng, Tally& t) {
  std::string n = C::NAME;
  t.report(n + ": generator is on the curve", C::generator().is_on_curve());
  bool ok = true, neg = true;
  for (int i = 0; i < rounds; ++i) {
    ec::Affine<C> p = random_point<C>(rng);
    ok &= p.is_on_curve();
    neg &= ec::Affine<C>{p.x, -p.y}.is_on_curve();
    ec::Affine<C> off{p.x, p.y + C::Base::one()};
    neg &= !off.is_on_curve();
  }
  t.report(n + ": points from sqrt(x^3 + b) are on the curve", ok);
  t.report(n + ": -P on curve, (x, y+1) off curve", neg);
}

template <class F, class Rng>
double ns_per_mul(Rng& rng) {
  constexpr int kIters = 200000;
  F a = F::random(rng), b = F::random(rng);
  auto t0 = Clock::now();
  for (int i = 0; i < kIters; ++i) a = a * b;
  double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / kIters;
  if (a.is_zero()) std::printf(" ");  // keeps the loop observable
  return ns;
}

template <class F, class Rng>
double us_per_inverse(Rng& rng) {
  constexpr int kIters = 200;
  F a = F::random(rng);
  auto t0 = Clock::now();
  for (int i = 0; i < kIters; ++i) a = a.inverse() + F::one();
  double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / kIters;
  if (a.is_zero()) std::printf(" ");
  return us;
}

template <class Curve, class Rng>
void check_bundle(int rounds, Rng& rng, Tally& t) {
  const int failed_before = t.failed;
  if (t.verbose) std::printf("%s\n", Curve::NAME);
  check_field<typename Curve::Fr>("Fr", rounds, rng, t);
  check_field<typename Curve::Fq>("Fq", rounds, rng, t);
  check_field<typename Curve::Fq2>("Fq2", rounds, rng, t);
  check_curve<typename Curve::G1>(rounds, rng, t);
  check_curve<typename Curve::G2>(rounds, rng, t);
  if (!t.verbose) {
    std::printf("  %-10s field and curve identities %s; ", Curve::NAME, t.failed == failed_before ? "ok" : "FAILED");
  } else {
    std::printf("  timing: ");
  }
  std::printf("Fr mul %.1f ns, Fq mul %.1f ns, Fq2 mul %.1f ns, Fq inverse %.1f us\n",
              ns_per_mul<typename Curve::Fr>(rng), ns_per_mul<typename Curve::Fq>(rng),
              ns_per_mul<typename Curve::Fq2>(rng), us_per_inverse<typename Curve::Fq>(rng));
}

}  // namespace

int run_selfcheck(int rounds, uint64_t seed, bool verbose) {
  std::mt19937_64 rng(seed);
  Tally t;
  t.verbose = verbose;
  std::printf("cuzk arithmetic self-check: %d random trials per identity, seed %llu\n", rounds,
              static_cast<unsigned long long>(seed));
  check_bundle<bn254::Curve>(rounds, rng, t);
  check_bundle<bls12_381::Curve>(rounds, rng, t);
  if (t.failed == 0) {
    if (verbose) std::printf("all %d checks passed\n", t.checks);
  } else {
    std::printf("%d checks FAILED\n", t.failed);
  }
  return t.failed;
}

}  // namespace cuzk::app
