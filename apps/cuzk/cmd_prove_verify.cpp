// `cuzk prove` and `cuzk verify`: snarkjs-compatible files in, snarkjs-compatible files out.
#include <chrono>
#include <cstdio>

#include "cuzk/commands.hpp"
#include "cuzk/util.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::app {

int cmd_prove(const std::string& zkey_path, const std::string& wtns_path, const std::string& proof_path,
              const std::string& pub_path, unsigned threads, const std::string& backend_choice, bool verify,
              const std::string& precompute) {
  auto id = formats::detect_curve(zkey_path);
  if (!id.is_ok()) return fail(id.status(), "prove");
  ThreadPool pool = make_pool(threads);
  return with_curve(*id, [&]<class C>() {
    using Fr = typename C::Fr;
    auto t0 = std::chrono::steady_clock::now();
    // One proof and exit: each section leaves the resident set once read (see
    // ZkeyReadOptions::keep_resident), so peak memory is about one section, not the key.
    formats::ZkeyReadOptions read_opts;
    read_opts.keep_resident = false;
    auto zkey = formats::Zkey<C>::open(zkey_path, read_opts);
    if (!zkey.is_ok()) return fail(zkey.status(), "prove");
    auto wtns = formats::read_wtns<Fr>(wtns_path);
    if (!wtns.is_ok()) return fail(wtns.status(), "prove");
    auto backend_or = make_backend<C>(backend_choice, pool, precompute);
    if (!backend_or.is_ok()) return fail(backend_or.status(), "prove");
    groth16::Backend<C>& backend = **backend_or;
    auto prover = groth16::Prover<C>::create(*zkey, backend, pool);
    if (!prover.is_ok()) return fail(prover.status(), "prove");
    double load = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto out = prover->prove(wtns->values);
    if (!out.is_ok()) return fail(out.status().with_context(wtns_path), "prove");
    // A key with corrupted but well-formed bytes (coefficients, points) yields a proof that
    // does not verify: checked here, against the key's own verification key, before
    // anything is written. A few milliseconds; --no-verify skips it.
    double check_ms = 0;
    if (verify) {
      auto v0 = std::chrono::steady_clock::now();
      Status ok = groth16::verify<C>(prover->verifying_key(), out->proof, out->public_signals);
      check_ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - v0).count() * 1e3;
      if (!ok.is_ok()) {
        return fail(invalid_argument(formats::file_label(zkey_path) + ": the proof made with this key and " +
                                     formats::file_label(wtns_path) +
                                     " does not verify against the key's own verification key (a corrupted key, "
                                     "or a witness that does not satisfy the circuit); nothing written (" +
                                     ok.message() + ")"),
                    "prove");
      }
    }
    std::vector<Fr> pub;
    for (const auto& v : out->public_signals) pub.push_back(Fr::from_canonical(v));
    Status s = formats::write_proof_json<C>(proof_path, out->proof);
    if (!s.is_ok()) return fail(s, "prove");
    s = formats::write_public_json<Fr>(pub_path, pub);
    if (!s.is_ok()) return fail(s, "prove");
    std::printf("%s proof of %s (%u wires, domain %u) on %zu threads, %s backend; keys loaded in %.1f ms\n", C::NAME,
                zkey_path.c_str(), zkey->header().n_vars, zkey->header().domain_size, pool.size(), backend.name(),
                load * 1e3);
    print_timing_header();
    print_timing_row("proof", out->timings);
    if (verify) {
      std::printf("the proof verifies against the key (%.1f ms); wrote %s and %s\n", check_ms, proof_path.c_str(),
                  pub_path.c_str());
    } else {
      std::printf("wrote %s and %s (not verified: --no-verify)\n", proof_path.c_str(), pub_path.c_str());
    }
    return 0;
  });
}

int cmd_verify(const std::string& vk_path, const std::string& pub_path, const std::string& proof_path) {
  auto vk_json = formats::read_json_file(vk_path);
  if (!vk_json.is_ok()) return fail(vk_json.status(), "verify");
  const std::string vk_label = formats::file_label(vk_path);
  if (!vk_json->is_object()) return fail(invalid_argument(vk_label + ": expected a JSON object"), "verify");
  const formats::Json* curve = vk_json->find("curve");
  if (curve == nullptr) return fail(invalid_argument(vk_label + ": missing field \"curve\""), "verify");
  if (!curve->is_string()) {
    return fail(invalid_argument(vk_label + ": curve is " + curve->dump() + ", expected \"bn128\" or \"bls12381\""),
                "verify");
  }
  if (!is_curve_name(curve->as_string())) {
    return fail(invalid_argument(vk_label + ": curve \"" + curve->as_string() + "\" is not bn128 or bls12381"),
                "verify");
  }
  return with_curve_name(curve->as_string(), [&]<class C>() {
    using Fr = typename C::Fr;
    auto vk = formats::vk_from_json<C>(*vk_json, formats::file_label(vk_path));
    if (!vk.is_ok()) return fail(vk.status(), "verify");
    if (Status s = groth16::check_alphabeta<C>(*vk, vk_label); !s.is_ok()) return fail(s, "verify");
    auto proof = formats::read_proof_json<C>(proof_path);
    if (!proof.is_ok()) return fail(proof.status(), "verify");
    auto pub = formats::read_public_json<Fr>(pub_path);
    if (!pub.is_ok()) return fail(pub.status(), "verify");
    if (pub->size() != vk->n_public) {
      return fail(invalid_argument(formats::file_label(pub_path) + ": " + std::to_string(pub->size()) +
                                   " public signals, but " + vk_label + " expects " + std::to_string(vk->n_public) +
                                   " (nPublic)"),
                  "verify");
    }
    std::vector<typename Fr::Int> signals;
    for (const Fr& v : *pub) signals.push_back(v.to_canonical());
    Status s = groth16::verify<C>(*vk, *proof, signals);
    if (!s.is_ok()) {
      std::printf("INVALID: %s with %s under %s: %s\n", formats::file_label(proof_path).c_str(),
                  formats::file_label(pub_path).c_str(), vk_label.c_str(), s.message().c_str());
      return 1;
    }
    std::printf("OK: the %s proof is valid for %zu public signals\n", C::NAME, signals.size());
    return 0;
  });
}

}  // namespace cuzk::app
