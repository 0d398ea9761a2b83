// Shared pieces of the cuzk subcommands: curve dispatch, progress lines, timing tables.
#pragma once

#include <chrono>
#include <memory>
#include <cstdio>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "ec/curves.hpp"
#include "formats/curve_id.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"

namespace cuzk::app {

// True for the names with_curve_name takes.
inline bool is_curve_name(const std::string& name) {
  return name == "bn254" || name == "bn128" || name == "bls12_381" || name == "bls12381";
}

// Calls f.template operator()<Curve>() for the curve named "bn254"/"bn128" or
// "bls12_381"/"bls12381".
template <class F>
int with_curve_name(const std::string& name, F&& f) {
  if (name == "bn254" || name == "bn128") return f.template operator()<bn254::Curve>();
  if (name == "bls12_381" || name == "bls12381") return f.template operator()<bls12_381::Curve>();
  std::fprintf(stderr, "cuzk: unknown curve \"%s\" (expected bn254 or bls12_381)\n", name.c_str());
  return 2;
}

template <class F>
int with_curve(formats::CurveId id, F&& f) {
  if (id == formats::CurveId::kBn254) return f.template operator()<bn254::Curve>();
  return f.template operator()<bls12_381::Curve>();
}

inline int fail(const Status& s, const char* what) {
  std::fprintf(stderr, "cuzk %s: %s\n", what, s.message().c_str());
  return 1;
}

inline ThreadPool make_pool(unsigned threads) {
  return ThreadPool(threads == 0 ? ThreadPool::default_threads() : threads);
}

// Rewrites one status line on stderr ("  G1 points  42%"), at most every 0.2 s.
class Progress {
 public:
  void operator()(const std::string& stage, double fraction);
  void done();

 private:
  std::string stage_;
  std::chrono::steady_clock::time_point last_{};
  bool open_ = false;
};

groth16::SetupProgress setup_progress(Progress& p);

// Prints the INSECURE warning that every dev-setup key carries.
void print_insecure_banner();

// One line per proof: stage timings in milliseconds.
void print_timing_header();
void print_timing_row(const std::string& label, const groth16::ProveTimings& t);

// The per-stage median over several proofs.
groth16::ProveTimings median_timings(std::vector<groth16::ProveTimings> runs);

// The backend that --backend names: "cpu", "cuda" (device 0; fails clearly when this build
// has no CUDA or the machine no device) or "auto" (CUDA when a usable device exists).
// `precompute` is --precompute (groth16/precompute_spec.hpp): which MSM sections of a key
// the CUDA backend builds precomputed bases for; ignored by the CPU backend.
template <class C>
Result<std::unique_ptr<groth16::Backend<C>>> make_backend(const std::string& choice, ThreadPool& pool,
                                                          const std::string& precompute);

// Where the dev setup multiplies its points for --backend `choice`: the device's
// fixed-base kernels when CUDA is chosen (or auto finds a device), else CPU tables.
template <class C>
Result<groth16::FixedBaseMuls<C>> setup_muls(const std::string& choice, ThreadPool& pool);

// $CUZK_CACHE, else $HOME/.cache/cuzk, else ./.cuzk-cache; created if missing.
Result<std::string> cache_dir(const std::string& override_dir);

// The demo circuit's key, verification key and witness in the cache, built on first use.
struct DemoFiles {
  std::string zkey, vk, wtns;
  bool built = false;
};
// `backend` picks where the dev setup's point multiplications run (as --backend does);
// `circuit` is "demo" or "chain" (groth16::make_named_circuit).
Result<DemoFiles> ensure_demo_files(const std::string& curve, uint32_t constraints, const std::string& cache,
                                    const std::string& backend, ThreadPool& pool, const std::string& circuit = "demo");

}  // namespace cuzk::app
