// `cuzk demo` and `cuzk bench`: prove a key repeatedly and report where the time goes.
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>

#include "cuzk/commands.hpp"
#include "cuzk/selfcheck.hpp"
#include "cuzk/util.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::app {

namespace {

using Clock = std::chrono::steady_clock;

struct RunPlan {
  std::string zkey, wtns, vk;  // vk empty: no verification
  int runs = 1;
  std::string proof_out, public_out;  // where the last proof goes (optional)
  std::string backend = "auto";
  std::string precompute = "auto";
};

template <class C>
int run_proofs(const RunPlan& plan, ThreadPool& pool) {
  using Fr = typename C::Fr;
  auto t0 = Clock::now();
  auto zkey = formats::Zkey<C>::open(plan.zkey);
  if (!zkey.is_ok()) return fail(zkey.status(), "prove");
  auto wtns = formats::read_wtns<Fr>(plan.wtns);
  if (!wtns.is_ok()) return fail(wtns.status(), "prove");
  auto backend_or = make_backend<C>(plan.backend, pool, plan.precompute);
  if (!backend_or.is_ok()) return fail(backend_or.status(), "prove");
  groth16::Backend<C>& backend = **backend_or;
  auto prover = groth16::Prover<C>::create(*zkey, backend, pool);
  if (!prover.is_ok()) return fail(prover.status(), "prove");
  // Every proof is verified: against the given verification key, else the one the key implies.
  std::optional<groth16::VerifyingKey<C>> vk;
  if (!plan.vk.empty()) {
    auto v = formats::read_vk_json<C>(plan.vk);
    if (!v.is_ok()) return fail(v.status(), "verify");
    vk = std::move(*v);
  } else {
    vk = prover->verifying_key();
  }
  const auto& h = zkey->header();
  std::printf("\n%s: %u wires, %u public, domain 2^%d; %zu threads, %s backend; key loaded in %.2f s\n", C::NAME,
              h.n_vars, h.n_public, __builtin_ctz(h.domain_size), pool.size(), backend.name(),
              std::chrono::duration<double>(Clock::now() - t0).count());
  if (const std::string notes = prover->prepared().notes(); !notes.empty()) std::printf("key: %s\n", notes.c_str());
  print_timing_header();
  std::vector<groth16::ProveTimings> all;
  std::vector<double> verify_ms;
  std::optional<groth16::ProveOutput<C>> last;
  for (int i = 0; i < plan.runs; ++i) {
    auto out = prover->prove(wtns->values);
    if (!out.is_ok()) return fail(out.status(), "prove");
    std::string label = "proof " + std::to_string(i + 1);
    print_timing_row(label, out->timings);
    all.push_back(out->timings);
    if (vk) {
      auto v0 = Clock::now();
      Status s = groth16::verify<C>(*vk, out->proof, out->public_signals);
      verify_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - v0).count());
      if (!s.is_ok()) {
        std::printf("%s: INVALID: %s\n", label.c_str(), s.message().c_str());
        return 1;
      }
    }
    std::fflush(stdout);
    last = std::move(*out);
  }
  groth16::ProveTimings med = median_timings(all);
  print_timing_row("median", med);
  std::printf("=> %.3f s per proof (median of %d), %.2f proofs/s\n", med.total, plan.runs,
              med.total > 0 ? 1 / med.total : 0.0);
  if (!verify_ms.empty()) {
    std::printf("=> all %zu proofs verified (pairing check + subgroup checks), %.1f ms per verification\n",
                verify_ms.size(), verify_ms.back());
  }
  if (!plan.proof_out.empty() && last) {
    std::vector<Fr> pub;
    for (const auto& v : last->public_signals) pub.push_back(Fr::from_canonical(v));
    Status s = formats::write_proof_json<C>(plan.proof_out, last->proof);
    if (s.is_ok()) s = formats::write_public_json<Fr>(plan.public_out, pub);
    if (!s.is_ok()) return fail(s, "prove");
    std::printf("last proof: %s, %s\n  check it: cuzk verify %s %s %s\n", plan.proof_out.c_str(),
                plan.public_out.c_str(), plan.vk.c_str(), plan.public_out.c_str(), plan.proof_out.c_str());
  }
  return 0;
}

}  // namespace

int cmd_demo(const DemoArgs& a) {
  if (!a.skip_selfcheck) {
    std::printf("arithmetic self-check\n");
    if (run_selfcheck(16, std::random_device{}(), false) != 0) return 1;
  }
  ThreadPool pool = make_pool(a.threads);
  auto files = ensure_demo_files(a.curve, a.constraints, a.cache, a.backend, pool);
  if (!files.is_ok()) return fail(files.status(), "demo");
  if (!files->built) std::printf("using the cached demo key %s (INSECURE dev setup)\n", files->zkey.c_str());
  RunPlan plan{files->zkey, files->wtns, files->vk, a.proofs, {}, {}, a.backend, a.precompute};
  std::string base = files->zkey.substr(0, files->zkey.size() - 5);
  plan.proof_out = base + ".proof.json";
  plan.public_out = base + ".public.json";
  return with_curve_name(a.curve, [&]<class C>() { return run_proofs<C>(plan, pool); });
}

int cmd_bench(const BenchArgs& a) {
  ThreadPool pool = make_pool(a.threads);
  RunPlan plan;
  plan.runs = a.runs;
  plan.backend = a.backend;
  plan.precompute = a.precompute;
  std::string curve = a.curve;
  if (!a.zkey.empty()) {
    plan.zkey = a.zkey;
    plan.wtns = a.wtns;
    auto id = formats::detect_curve(a.zkey);
    if (!id.is_ok()) return fail(id.status(), "bench");
    curve = formats::snarkjs_curve_name(*id);
  } else {
    auto files = ensure_demo_files(a.curve, a.demo_constraints, a.cache, a.backend, pool, a.circuit);
    if (!files.is_ok()) return fail(files.status(), "bench");
    plan.zkey = files->zkey;
    plan.wtns = files->wtns;
  }
  std::printf("cuzk bench: %d proofs of %s with %s\n", plan.runs, plan.zkey.c_str(), plan.wtns.c_str());
  return with_curve_name(curve, [&]<class C>() { return run_proofs<C>(plan, pool); });
}

}  // namespace cuzk::app
