// The peer beside cuda_msm_bench: Supranational's sppark MSM (msm_t::invoke, whole call) on
// the same inputs cuda_msm_bench builds (tests/cuda/msm/msm_fixtures.hpp: bases with known
// discrete logs, uniform or witness-like scalars), every result checked against the same
// discrete-log oracle. One group a binary, picked at compile time: -DPEER_BLS12_381_G1 or
// -DPEER_BN254_G1 (sppark selects its curve by the headers it includes).
//
// sppark and blst are not part of cuzk: fetch their sources into an ignored folder and point
// CMake at them (bench/peers/CMakeLists.txt); nothing of theirs is committed here.
//
//   sppark_msm_bench_<group> [--logs 20,22,24] [--runs 5] [--mix uniform,witness] [--seed S]
//
// Inputs as in the issue's reference figures: the bases uploaded once by msm_t's constructor,
// the scalars already on the device (canonical form), each run one invoke() timed on the host
// (it returns after the result is back), the median of `runs` after a warm-up.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "cuda/msm/msm_fixtures.hpp"
#include "ec/curves.hpp"

#if defined(PEER_BLS12_381_G1)
#define FEATURE_BLS12_381
#include <ff/bls12-381.hpp>
using Group = cuzk::bls12_381::G1Config;
constexpr const char* kGroupName = "bls12_381 G1";
#elif defined(PEER_BN254_G1)
#define FEATURE_BN254
#include <ff/alt_bn128.hpp>
using Group = cuzk::bn254::G1Config;
constexpr const char* kGroupName = "bn254 G1";
#else
#error "define PEER_BLS12_381_G1 or PEER_BN254_G1"
#endif

#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

typedef jacobian_t<fp_t> point_t;
typedef xyzz_t<fp_t> bucket_t;
typedef bucket_t::affine_t affine_t;
typedef fr_t scalar_t;

#include <msm/pippenger.cuh>

namespace {

namespace fx = cuzk::cuda::msm_fixtures;
using CuzkAffine = cuzk::ec::Affine<Group>;
using CuzkJacobian = cuzk::ec::Jacobian<Group>;
using Int = typename Group::Scalar::Int;

// Both libraries keep a coordinate as its Montgomery form in little-endian words (R = 2^384
// for BLS12-381's Fq, 2^256 for BN254's), the point at infinity of an affine point as (0, 0),
// and a scalar in canonical form as little-endian 64-bit limbs: the same bytes.
static_assert(sizeof(affine_t) == sizeof(CuzkAffine), "sppark's affine point is not cuzk's");
static_assert(sizeof(scalar_t) == sizeof(Int), "sppark's scalar is not cuzk's");
static_assert(sizeof(point_t) == sizeof(CuzkJacobian), "sppark's Jacobian point is not cuzk's");

std::vector<unsigned> parse_list(const char* s) {
  std::vector<unsigned> v;
  for (const char* p = s; *p;) {
    char* end = nullptr;
    v.push_back(unsigned(std::strtoul(p, &end, 10)));
    if (end == p) break;
    p = *end == ',' ? end + 1 : end;
  }
  return v;
}

int usage() {
  std::fprintf(stderr, "usage: sppark_msm_bench [--logs 20,22,24] [--runs 5] [--mix uniform,witness] [--seed S]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<unsigned> logs{20, 22, 24};
  int runs = 5;
  uint64_t seed = 1;
  std::vector<std::string> mixes{"uniform"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    if (a == "--logs") {
      logs = parse_list(argv[++i]);
    } else if (a == "--runs") {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--seed") {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--mix") {
      mixes.clear();
      for (std::string rest = argv[++i]; !rest.empty();) {
        const size_t comma = rest.find(',');
        mixes.push_back(rest.substr(0, comma));
        rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
      }
    } else {
      return usage();
    }
  }
  for (const std::string& m : mixes) {
    if (m != "uniform" && m != "witness") {
      std::fprintf(stderr, "sppark_msm_bench: unknown mix %s (uniform, witness)\n", m.c_str());
      return 2;
    }
  }

  cuzk::ThreadPool pool;
  std::printf("| peer | group | scalars | n | median ms | min ms | checked |\n|---|---|---|---:|---:|---:|---|\n");
  bool all_ok = true;
  for (unsigned lg : logs) {
    const size_t n = size_t(1) << lg;
    const fx::Bases<Group> bases = fx::make_bases<Group>(n, seed + lg, pool);
    msm_t<bucket_t, point_t, affine_t, scalar_t> msm(reinterpret_cast<const affine_t*>(bases.points.data()), n);
    std::mt19937_64 rng(seed * 1000 + lg);
    for (const std::string& m : mixes) {
      const std::vector<Int> scalars =
          fx::make_scalars<Group>(n, m == "uniform" ? fx::Mix::kUniform : fx::Mix::kWitness, rng);
      dev_ptr_t<scalar_t> d_scalars(n);
      if (cudaMemcpy(&d_scalars[0], scalars.data(), n * sizeof(Int), cudaMemcpyHostToDevice) != cudaSuccess) {
        std::fprintf(stderr, "sppark_msm_bench: copying the scalars failed\n");
        return 1;
      }
      point_t out;
      std::vector<double> times;
      bool ok = true;
      for (int r = -1; r < runs; ++r) {  // r = -1: the warm-up
        const auto t0 = std::chrono::steady_clock::now();
        RustError e = msm.invoke(out, static_cast<const affine_t*>(nullptr), n, d_scalars, false);
        const auto t1 = std::chrono::steady_clock::now();
        if (e.code != cudaSuccess) {
          std::fprintf(stderr, "sppark_msm_bench: invoke failed: %s\n", cudaGetErrorString(cudaError_t(e.code)));
          return 1;
        }
        if (r >= 0) times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      CuzkJacobian got;
      std::memcpy(static_cast<void*>(&got), static_cast<const void*>(&out), sizeof(got));
      ok = got.to_affine() == fx::oracle(bases, scalars, pool).to_affine();
      all_ok = all_ok && ok;
      std::sort(times.begin(), times.end());
      std::printf("| sppark | %s | %s | 2^%u | %.2f | %.2f | %s |\n", kGroupName, m.c_str(), lg,
                  times[times.size() / 2], times.front(), ok ? "ok" : "WRONG");
      std::fflush(stdout);
    }
  }
  return all_ok ? 0 : 1;
}
