// `cuzk bench --key-on-device`: a built-in circuit's key (--builtin demo|chain) built straight into device memory
// (cuda/prover/device_key.hpp), then proofs against it, each one verified. For sizes whose
// key fits neither the disk nor the host's RAM (2^27: ~77 GB of points).
#include <chrono>
#include <cstdio>
#include <optional>

#include "cuzk/commands.hpp"
#include "cuzk/util.hpp"
#include "groth16/demo_circuit.hpp"
#include "groth16/verifier.hpp"

#if defined(CUZK_WITH_CUDA)
#include "cuda/allocator.hpp"
#include "cuda/prover/device_key.hpp"
#include "groth16/precompute_spec.hpp"
#endif

namespace cuzk::app {

#if defined(CUZK_WITH_CUDA)
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
double gib(size_t b) { return double(b) / double(size_t(1) << 30); }

void print_device_memory(const char* when) {
  auto alloc = cuda::DeviceAllocator::for_device(0);
  if (!alloc.is_ok()) return;
  const cuda::AllocatorStats st = (*alloc)->stats();
  std::printf("device memory %s: %.2f GiB allocated, %.2f GiB peak, %.2f GiB available of a %.2f GiB budget\n", when,
              gib(st.allocated_bytes), gib(st.peak_bytes), gib(st.available_bytes()), gib(st.budget_bytes));
}

template <class C>
int run_device_key(const BenchArgs& a, ThreadPool& pool) {
  using Fr = typename C::Fr;
  const auto t_all = Clock::now();
  std::printf("cuzk bench --key-on-device: %s circuit, %u constraints on %s, %d proofs, %zu threads\n",
              a.circuit.c_str(), a.demo_constraints, C::NAME, a.runs, pool.size());
  auto sections = groth16::parse_precompute_spec(a.precompute, "--precompute");
  if (!sections.is_ok()) return fail(sections.status(), "bench");
  cuda::CudaBackendOptions o;
  o.precompute = std::move(*sections);
  o.log = [](const std::string& line) { std::printf("%s\n", line.c_str()); };
  auto backend = cuda::CudaBackend<C>::create(o, pool);
  if (!backend.is_ok()) return fail(backend.status(), "bench");
  print_device_memory("before");

  auto t0 = Clock::now();
  auto circuit = groth16::make_named_circuit<Fr>(a.circuit, a.demo_constraints, 1);
  if (!circuit.is_ok()) return fail(circuit.status(), "bench");
  std::printf("%s circuit: %u constraints, %u wires, %zu terms, built in %.2f s\n", a.circuit.c_str(),
              circuit->r1cs.n_constraints, circuit->r1cs.n_vars, circuit->r1cs.terms.size(), seconds_since(t0));
  print_insecure_banner();
  Progress progress;
  const std::string label = a.circuit + " key " + C::NAME + " " + std::to_string(a.demo_constraints) +
                            " (built on the device)";
  auto dk = cuda::dev_setup_on_device<C>(circuit->r1cs, label, pool, setup_progress(progress));
  progress.done();
  if (!dk.is_ok()) return fail(dk.status(), "bench");
  std::printf("key on the device in %.2f s: scalars on the host %.2f s, G1 points %.2f s, G2 points %.2f s "
              "(%.2f GiB of points)\n",
              dk->total_s, dk->scalars_s, dk->g1_s, dk->g2_s, gib(dk->points.bytes()));
  circuit->r1cs = formats::R1cs<Fr>{};  // frees the terms: the proofs need only the witness

  t0 = Clock::now();
  auto prover = groth16::Prover<C>::create(dk->zkey, **backend, pool, [&](const groth16::KeyView<C>& view) {
    return (*backend)->prepare_with_points(view, std::move(dk->points));
  });
  if (!prover.is_ok()) return fail(prover.status(), "bench");
  const auto& h = dk->zkey.header();
  std::printf("\n%s: %u wires, %u public, domain 2^%d; %s backend; prepared in %.2f s (%u MSM lanes)\n", C::NAME,
              h.n_vars, h.n_public, __builtin_ctz(h.domain_size), (*backend)->name(), seconds_since(t0),
              (*backend)->msm_lanes(prover->prepared()));
  if (const std::string notes = prover->prepared().notes(); !notes.empty()) std::printf("key: %s\n", notes.c_str());
  print_device_memory("with the key");
  print_timing_header();
  std::vector<groth16::ProveTimings> all;
  double verify_ms = 0;
  for (int i = 0; i < a.runs; ++i) {
    auto out = prover->prove(circuit->witness);
    if (!out.is_ok()) return fail(out.status(), "prove");
    const std::string row = "proof " + std::to_string(i + 1);
    print_timing_row(row, out->timings);
    all.push_back(out->timings);
    const auto v0 = Clock::now();
    const Status s = groth16::verify<C>(dk->vk, out->proof, out->public_signals);
    verify_ms = std::chrono::duration<double, std::milli>(Clock::now() - v0).count();
    if (!s.is_ok()) {
      std::printf("%s: INVALID: %s\n", row.c_str(), s.message().c_str());
      return 1;
    }
    std::fflush(stdout);
  }
  const groth16::ProveTimings med = median_timings(all);
  print_timing_row("median", med);
  // With several lanes the MSM times overlap; one proof in one lane shows each stage alone.
  const unsigned lanes = (*backend)->msm_lanes(prover->prepared());
  if (lanes > 1) {
    (*backend)->set_msm_lanes(1);
    auto out = prover->prove(circuit->witness);
    (*backend)->set_msm_lanes(lanes);
    if (!out.is_ok()) return fail(out.status(), "prove");
    const Status s = groth16::verify<C>(dk->vk, out->proof, out->public_signals);
    if (!s.is_ok()) {
      std::printf("1 lane: INVALID: %s\n", s.message().c_str());
      return 1;
    }
    print_timing_row("1 lane", out->timings);
    all.push_back(out->timings);
  }
  std::printf("=> %.3f s per proof (median of %d, %u MSM lanes), %.2f proofs/s\n", med.total, a.runs, lanes,
              med.total > 0 ? 1 / med.total : 0.0);
  std::printf("=> all %zu proofs verified (pairing check + subgroup checks), %.1f ms per verification\n", all.size(),
              verify_ms);
  print_device_memory("after");
  std::printf("whole run %.1f s\n", seconds_since(t_all));
  return 0;
}

}  // namespace
#endif

int cmd_bench_device_key(const BenchArgs& a) {
  if (a.backend != "auto" && a.backend != "cuda") {
    std::fprintf(stderr, "cuzk bench: --key-on-device needs --backend cuda (or auto), not %s\n", a.backend.c_str());
    return 2;
  }
  if (!a.zkey.empty()) {
    std::fprintf(stderr, "cuzk bench: --key-on-device builds a built-in circuit's key (--builtin); it takes no --zkey\n");
    return 2;
  }
#if defined(CUZK_WITH_CUDA)
  ThreadPool pool = make_pool(a.threads);
  return with_curve_name(a.curve, [&]<class C>() { return run_device_key<C>(a, pool); });
#else
  std::fprintf(stderr, "cuzk bench: --key-on-device needs a CUDA build (this cuzk was built without nvcc)\n");
  return 1;
#endif
}

}  // namespace cuzk::app
