// Latency of dependent field operations (x = x op y), in ns per operation, measured on
// thread CPU time so a busy machine inflates the numbers less. Run: build/tests/ff/ff_speed
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>

#include "ff/fields.hpp"

namespace {

double cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

template <class Fn>
double best_of(int reps, int iters, Fn&& fn) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = cpu_ns();
    fn(iters);
    best = std::min(best, (cpu_ns() - t0) / iters);
  }
  return best;
}

template <class F>
void row(const char* name) {
  std::mt19937_64 rng(1);
  F x = F::random(rng), y = F::random(rng);
  constexpr int kIters = 2000000;
  double mul = best_of(5, kIters, [&](int n) { for (int i = 0; i < n; ++i) x = x * y; });
  double sqr = best_of(5, kIters, [&](int n) { for (int i = 0; i < n; ++i) x = x.square(); });
  double add = best_of(5, kIters, [&](int n) { for (int i = 0; i < n; ++i) x = x + y; });
  double sub = best_of(5, kIters, [&](int n) { for (int i = 0; i < n; ++i) x = x - y; });
  double pmul = best_of(5, kIters, [&](int n) { for (int i = 0; i < n; ++i) x = x.mul_portable(y); });
  double padd = best_of(5, kIters, [&](int n) { for (int i = 0; i < n; ++i) x = x.add_portable(y); });
  std::printf("| %-13s | %6.2f | %6.2f | %6.2f | %6.2f | %13.2f | %13.2f |\n", name, mul, sqr, add, sub, pmul, padd);
  if (x.is_zero()) std::printf("(x reached zero)\n");  // keeps the chains observable
}

}  // namespace

int main() {
  std::printf("x86 asm paths: add/sub %s, mul/square %s\n",
#if CUZK_FF_X86_ASM
              "on",
#else
              "off",
#endif
#if CUZK_FF_X86_ADX
              "on (BMI2+ADX)"
#else
              "off"
#endif
  );
  std::printf("| field         |    mul |    sqr |    add |    sub | portable mul | portable add |\n");
  std::printf("|---------------|--------|--------|--------|--------|---------------|---------------|\n");
  row<cuzk::bn254::Fq>("bn254.Fq");
  row<cuzk::bn254::Fr>("bn254.Fr");
  row<cuzk::bls12_381::Fq>("bls12_381.Fq");
  row<cuzk::bls12_381::Fr>("bls12_381.Fr");
  std::printf("ns per dependent operation, best of 5 x 2e6; command: build/tests/ff/ff_speed\n");
}
