// `cuzk setup --dev`: an INSECURE Groth16 key pair for testing, from an .r1cs or the demo circuit.
#include <unistd.h>
#include <chrono>
#include <cstdio>

#include "cuzk/commands.hpp"
#include "cuzk/util.hpp"
#include "formats/r1cs.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/wtns.hpp"
#include "groth16/demo_circuit.hpp"

namespace cuzk::app {

namespace {

template <class C>
int setup_from(const formats::R1cs<typename C::Fr>& r1cs, const SetupArgs& a, ThreadPool& pool) {
  print_insecure_banner();
  std::printf("dev setup for %s: %u constraints, %u wires, %u public signals, domain %llu\n", C::NAME,
              r1cs.n_constraints, r1cs.n_vars, r1cs.n_public(),
              static_cast<unsigned long long>(groth16::snarkjs_domain_size(r1cs.n_constraints, r1cs.n_public())));
  Progress progress;
  auto t0 = std::chrono::steady_clock::now();
  auto muls = setup_muls<C>(a.backend, pool);
  if (!muls.is_ok()) return fail(muls.status(), "setup");
  auto vk = groth16::dev_setup<C>(r1cs, a.zkey, pool, setup_progress(progress), *muls);
  progress.done();
  if (!vk.is_ok()) return fail(vk.status(), "setup");
  Status s = formats::write_vk_json<C>(a.vk, *vk);
  if (!s.is_ok()) return fail(s, "setup");
  std::printf("wrote %s and %s in %.1f s (INSECURE: testing only)\n", a.zkey.c_str(), a.vk.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}

// nVars is not bounded by the file (a wire need not appear in any constraint, and the
// wire-to-label section is optional), so before the setup allocates its points the key's
// size is checked against this machine's memory.
template <class C>
Status key_fits_in_memory(const formats::R1cs<typename C::Fr>& r1cs, const std::string& label) {
  const double g1 = sizeof(ec::Affine<typename C::G1>), g2 = sizeof(ec::Affine<typename C::G2>);
  const double domain = double(groth16::snarkjs_domain_size(r1cs.n_constraints, r1cs.n_public()));
  const double need = double(r1cs.n_vars) * (3 * g1 + g2) + domain * g1;
  const double have = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  if (have > 0 && need > have) {
    char msg[160];
    std::snprintf(msg, sizeof(msg),
                  "the key for nVars %u and domain %.0f needs %.1f GB, more than this machine's %.1f GB", r1cs.n_vars,
                  domain, need / 1e9, have / 1e9);
    return Status(StatusCode::kResourceExhausted, label + ": " + msg);
  }
  return Status::ok();
}

}  // namespace

int cmd_setup(const SetupArgs& a) {
  ThreadPool pool = make_pool(a.threads);
  if (a.demo_constraints > 0) {
    return with_curve_name(a.curve, [&]<class C>() {
      using Fr = typename C::Fr;
      auto circuit = groth16::make_demo_circuit<Fr>(a.demo_constraints, 1);
      if (!circuit.is_ok()) return fail(circuit.status(), "setup");
      if (!a.wtns.empty()) {
        Status s = formats::write_wtns<Fr>(a.wtns, circuit->witness);
        if (!s.is_ok()) return fail(s, "setup");
        std::printf("wrote the demo witness to %s\n", a.wtns.c_str());
      }
      return setup_from<C>(circuit->r1cs, a, pool);
    });
  }
  auto id = formats::detect_curve(a.r1cs);
  if (!id.is_ok()) return fail(id.status(), "setup");
  return with_curve(*id, [&]<class C>() {
    auto r1cs = formats::read_r1cs<typename C::Fr>(a.r1cs);
    if (!r1cs.is_ok()) return fail(r1cs.status(), "setup");
    Status fits = key_fits_in_memory<C>(*r1cs, formats::file_label(a.r1cs));
    if (!fits.is_ok()) return fail(fits, "setup");
    return setup_from<C>(*r1cs, a, pool);
  });
}

}  // namespace cuzk::app
