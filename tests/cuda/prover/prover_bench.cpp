// The CUDA backend's whole-proof stages (a benchmark, not a test).
//
//   cuda_prover_bench --upload [--logs 20,24] [-r 5]
//     host-to-device copies of 2^k Fr scalars from pageable memory: plain cudaMemcpyAsync,
//     the backend's pinned staging at several chunk sizes, cudaHostRegister of the source
//     per copy, and a pinned source (the link's ceiling). Every timed copy is checked
//     byte for byte on the host after the device buffer was poisoned.
//   cuda_prover_bench --zkey K.zkey --wtns W.wtns [--lanes 1,2,3,5] [-r 5]
//     proofs of one key with each number of MSM lanes, fixed r and s: per-stage medians;
//     every proof must be byte-identical to the first, which must verify.
// Median over -r runs after one warm-up; a markdown table with the command line at the end.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/prover/cuda_backend.hpp"
#include "cuda/prover/host_staging.hpp"
#include "formats/curve_id.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::cuda {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

std::vector<unsigned> parse_list(const std::string& s) {
  std::vector<unsigned> out;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t comma = s.find(',', pos);
    out.push_back(unsigned(std::stoul(s.substr(pos, comma - pos))));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

#define BENCH_CHECK(expr)                                                                  \
  do {                                                                                     \
    Status st_ = (expr);                                                                   \
    if (!st_.is_ok()) {                                                                    \
      std::fprintf(stderr, "cuda_prover_bench: %s: %s\n", #expr, st_.to_string().c_str()); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

template <class T>
T take(Result<T> r, const char* what) {
  if (!r.is_ok()) {
    std::fprintf(stderr, "cuda_prover_bench: %s: %s\n", what, r.status().to_string().c_str());
    std::exit(1);
  }
  return std::move(*r);
}

int bench_upload(const std::vector<unsigned>& logs, int runs, const std::string& command) {
  ThreadPool pool;
  auto s = take(Stream::create(), "stream");
  std::vector<std::string> rows;
  for (unsigned lg : logs) {
    const size_t bytes = (size_t(1) << lg) * 32;
    std::vector<uint64_t> host(bytes / 8);
    std::mt19937_64 rng(Clock::now().time_since_epoch().count());
    for (auto& x : host) x = rng();
    const auto* src = reinterpret_cast<const uint8_t*>(host.data());
    auto dev = take(DeviceBuffer<uint8_t>::allocate(bytes, "bench.upload"), "device buffer");
    std::vector<uint8_t> back(bytes);
    auto pinned_src = take(PinnedBuffer<uint8_t>::allocate(bytes), "pinned source");
    std::memcpy(pinned_src.data(), src, bytes);

    auto measure = [&](const std::string& name, const std::function<Status()>& copy) {
      BENCH_CHECK(copy());  // warm-up (pins the staging chunks, faults the pages in)
      std::vector<double> ms;
      for (int r = 0; r < runs; ++r) {
        BENCH_CHECK(dev.fill_bytes(0xA5, s));
        BENCH_CHECK(s.synchronize());
        const auto t0 = Clock::now();
        BENCH_CHECK(copy());
        BENCH_CHECK(s.synchronize());
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        BENCH_CHECK(dev.download(std::span<uint8_t>(back), s));
        BENCH_CHECK(s.synchronize());
        if (std::memcmp(back.data(), src, bytes) != 0) {
          std::fprintf(stderr, "cuda_prover_bench: %s at 2^%u: the device copy differs from the source\n", name.c_str(),
                       lg);
          std::exit(1);
        }
      }
      const double m = median(ms);
      char row[256];
      std::snprintf(row, sizeof row, "| 2^%u (%zu MiB) | %s | %.2f ms | %.1f GB/s |", lg, bytes >> 20, name.c_str(), m,
                    double(bytes) / (m * 1e6));
      rows.push_back(row);
      std::printf("%s\n", row);
      std::fflush(stdout);
    };
    measure("pageable cudaMemcpyAsync", [&] { return dev.upload(std::span<const uint8_t>(src, bytes), s); });
    for (size_t mib : {2, 8, 16, 32, 64}) {
      HostStaging staging(mib << 20, pool);
      measure("pinned staging, " + std::to_string(mib) + " MiB chunks, " + std::to_string(pool.size()) + " threads",
              [&] { return staging.copy_to_device(dev.data(), src, bytes, s, "bench.staged"); });
    }
    measure("cudaHostRegister + copy + unregister", [&]() -> Status {
      void* p = const_cast<uint8_t*>(src);
      CUZK_CUDA_RETURN_IF_ERROR(cudaHostRegister(p, bytes, cudaHostRegisterDefault), "cudaHostRegister");
      Status st = dev.upload(std::span<const uint8_t>(src, bytes), s);
      if (st.is_ok()) st = s.synchronize();
      Status un = cuda_status(cudaHostUnregister(p), "cudaHostUnregister");
      return st.is_ok() ? un : st;
    });
    measure("pinned source (the link's ceiling)", [&] { return dev.upload(pinned_src.span(), s); });
  }
  std::printf("\n`%s` (median of %d after a warm-up)\n\n| size | copy | time | rate |\n|---|---|---:|---:|\n",
              command.c_str(), runs);
  for (const auto& r : rows) std::printf("%s\n", r.c_str());
  return 0;
}

template <class C>
int bench_proofs(const std::string& zkey_path, const std::string& wtns_path, const std::vector<unsigned>& lanes,
                 int runs, const std::string& command) {
  using Fr = typename C::Fr;
  ThreadPool pool;
  auto zkey = take(formats::Zkey<C>::open(zkey_path), "zkey");
  auto wtns = take(formats::read_wtns<Fr>(wtns_path), "wtns");
  auto gpu = take(CudaBackend<C>::create(CudaBackendOptions{}, pool), "backend");
  const auto t0 = Clock::now();
  auto prover = take(groth16::Prover<C>::create(zkey, *gpu, pool), "prover");
  std::printf("key %s prepared in %.1f s (%s)\n", zkey_path.c_str(),
              std::chrono::duration<double>(Clock::now() - t0).count(), prover.prepared().placement().c_str());
  const Fr r = Fr::from_u64(1234567), s = Fr::from_u64(7654321);
  std::string first;
  std::vector<std::string> rows;
  for (unsigned l : lanes) {
    gpu->set_msm_lanes(l);
    std::vector<groth16::ProveTimings> ts;
    for (int k = 0; k <= runs; ++k) {
      auto out = take(prover.prove_with_blinding(wtns.values, r, s), "prove");
      const std::string bytes = formats::proof_to_json<C>(out.proof).dump();
      if (first.empty()) {
        BENCH_CHECK(groth16::verify<C>(prover.verifying_key(), out.proof, out.public_signals));
        first = bytes;
      } else if (bytes != first) {
        std::fprintf(stderr, "cuda_prover_bench: the proof with %u lanes differs from the first\n", l);
        return 1;
      }
      if (k > 0) ts.push_back(out.timings);
    }
    auto med = [&](double groth16::ProveTimings::*f) {
      std::vector<double> v;
      for (const auto& t : ts) v.push_back(t.*f * 1e3);
      return median(v);
    };
    using T = groth16::ProveTimings;
    char row[400];
    std::snprintf(row, sizeof row,
                  "| %s | 2^%u | %u | %.1f | %.1f | %.1f | %.1f / %.1f / %.1f / %.1f / %.1f | %.1f | **%.1f** |",
                  C::NAME, unsigned(std::log2(double(zkey.header().domain_size))), l, med(&T::upload),
                  med(&T::witness_abc), med(&T::h), med(&T::msm_a), med(&T::msm_b1), med(&T::msm_b2), med(&T::msm_l),
                  med(&T::msm_h), med(&T::read_back), med(&T::total));
    rows.push_back(row);
    std::printf("%s\n", row);
    std::fflush(stdout);
  }
  std::printf(
      "\n`%s` (median of %d after a warm-up; ms; the MSMs of different lanes overlap)\n\n"
      "| curve | domain | lanes | upload | synthesis | H | MSM A / B1 / B2 / L / H | read-back | total |\n"
      "|---|---|---:|---:|---:|---:|---|---:|---:|\n",
      command.c_str(), runs);
  for (const auto& row : rows) std::printf("%s\n", row.c_str());
  return 0;
}

}  // namespace
}  // namespace cuzk::cuda

int main(int argc, char** argv) {
  using namespace cuzk;
  std::string command = "cuda_prover_bench", zkey, wtns;
  std::vector<unsigned> logs = {20, 24}, lanes = {1, 2, 3, 5};
  bool upload = false;
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    command += " " + a;
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "cuda_prover_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      command += std::string(" ") + argv[i + 1];
      return argv[++i];
    };
    if (a == "--upload") {
      upload = true;
    } else if (a == "--logs") {
      logs = cuda::parse_list(value());
    } else if (a == "--lanes") {
      lanes = cuda::parse_list(value());
    } else if (a == "-r") {
      runs = std::max(1, std::stoi(value()));
    } else if (a == "--zkey") {
      zkey = value();
    } else if (a == "--wtns") {
      wtns = value();
    } else {
      std::fprintf(stderr,
                   "usage: cuda_prover_bench --upload [--logs 20,24] | --zkey K --wtns W [--lanes 1,2,3,5]"
                   " [-r N]\n");
      return 2;
    }
  }
  if (upload) return cuda::bench_upload(logs, runs, command);
  if (zkey.empty() || wtns.empty()) {
    std::fprintf(stderr, "cuda_prover_bench: --upload, or --zkey and --wtns\n");
    return 2;
  }
  auto id = formats::detect_curve(zkey);
  if (!id.is_ok()) {
    std::fprintf(stderr, "cuda_prover_bench: %s\n", id.status().to_string().c_str());
    return 1;
  }
  if (formats::snarkjs_curve_name(*id) == std::string(bn254::Curve::SNARKJS_NAME)) {
    return cuda::bench_proofs<bn254::Curve>(zkey, wtns, lanes, runs, command);
  }
  return cuda::bench_proofs<bls12_381::Curve>(zkey, wtns, lanes, runs, command);
}
