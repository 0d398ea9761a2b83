// Times the CPU NTT, the snarkjs H step and G1 MSMs at the sizes the prover meets.
// Usage: polymsm_timing [log2 sizes...] (default: 16 18). Prints a table and the command.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "ec/batch_affine.hpp"
#include "ec/points.hpp"
#include "msm/pippenger.hpp"
#include "poly/h_poly.hpp"

namespace {

using namespace cuzk;
using Fr = bn254::Fr;
using G1 = bn254::G1Config;

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Timing {
  double wall, cpu;  // best run of each, seconds
};

// The machine is shared, so process CPU time (all threads) is reported next to wall time:
// on an idle machine wall ~ cpu / threads for work that splits evenly.
template <class Fn>
Timing best_seconds(int reps, Fn&& fn) {
  Timing best{1e300, 1e300};
  for (int r = 0; r < reps; ++r) {
    double c0 = cpu_now();
    auto t0 = std::chrono::steady_clock::now();
    fn();
    auto t1 = std::chrono::steady_clock::now();
    double c1 = cpu_now();
    best.wall = std::min(best.wall, std::chrono::duration<double>(t1 - t0).count());
    best.cpu = std::min(best.cpu, c1 - c0);
  }
  return best;
}

// Distinct points i·G + H, by chained additions (fast to build, good enough to time).
std::vector<ec::Affine<G1>> make_points(size_t n, ThreadPool& pool) {
  using J = ec::Jacobian<G1>;
  std::vector<ec::Affine<G1>> out(n);
  pool.parallel_for(0, n, [&](size_t lo, size_t hi) {
    std::vector<J> proj(hi - lo);
    J p = J::generator().mul(Fr::from_u64(lo + 12345));
    for (size_t i = lo; i < hi; ++i) {
      proj[i - lo] = p;
      p += G1::generator();
    }
    ec::batch_to_affine(proj.data(), proj.size(), out.data() + lo);
  });
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> logs;
  for (int i = 1; i < argc; ++i) logs.push_back(std::strtoul(argv[i], nullptr, 10));
  if (logs.empty()) logs = {16, 18};
  ThreadPool pool;
  std::mt19937_64 rng(7);

  std::printf("command: ");
  for (int i = 0; i < argc; ++i) std::printf("%s ", argv[i]);
  std::printf("\nthreads: %zu\n\n", pool.size());
  std::printf("| %-36s | %8s | %12s | %12s |\n", "operation (BN254)", "size", "wall ms", "cpu ms");
  std::printf("|%s|%s|%s|%s|\n", std::string(38, '-').c_str(), std::string(10, '-').c_str(),
              std::string(14, '-').c_str(), std::string(14, '-').c_str());
  auto row = [](const char* what, size_t log_n, Timing t) {
    std::printf("| %-36s | 2^%-6zu | %12.1f | %12.1f |\n", what, log_n, t.wall * 1e3, t.cpu * 1e3);
    std::fflush(stdout);
  };

  for (size_t log_n : logs) {
    size_t n = size_t(1) << log_n;
    auto d = poly::EvaluationDomain<Fr>::create(log_n).value();
    std::vector<Fr> a(n), b(n), c(n), work(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = Fr::random(rng);
      b[i] = Fr::random(rng);
      c[i] = a[i] * b[i];
    }
    row("Fr NTT", log_n, best_seconds(5, [&] {
          work = a;
          d.ntt(work, pool);
        }));
    row("Fr iNTT", log_n, best_seconds(5, [&] {
          work = a;
          d.intt(work, pool);
        }));
    std::vector<ff::BigInt<4>> p(n);
    row("snarkjs H (3 iNTT + 3 coset NTT)", log_n, best_seconds(3, [&] {
          auto a2 = a, b2 = b, c2 = c;
          (void)poly::snarkjs_h(d, std::span<Fr>(a2), std::span<Fr>(b2), std::span<Fr>(c2), std::span(p), pool);
        }));

    auto points = make_points(n, pool);
    std::vector<ff::BigInt<4>> random(n), bits(n);
    for (size_t i = 0; i < n; ++i) {
      random[i] = Fr::random(rng).to_canonical();
      bits[i] = rng() % 10 == 0 ? random[i] : ff::BigInt<4>::from_u64(rng() % 2);
    }
    std::span<const ec::Affine<G1>> pts(points);
    row("G1 MSM, random scalars", log_n,
        best_seconds(2, [&] { (void)msm::msm<G1>(pts, std::span<const ff::BigInt<4>>(random), pool); }));
    row("G1 MSM, 90% 0/1 scalars", log_n,
        best_seconds(2, [&] { (void)msm::msm<G1>(pts, std::span<const ff::BigInt<4>>(bits), pool); }));
  }
  return 0;
}
