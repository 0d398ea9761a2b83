// fuzz_seeds DIR: writes a small seed corpus for every fuzz target into DIR/<target>/,
// made with the project's own writers (so each seed is a valid file of its format, which
// this tool checks by reading it back). scripts/fuzz.sh adds real keys from `cuzk setup
// --dev` and the snarkjs fixtures when they are at hand.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "ec/encoding.hpp"
#include "ec/jacobian.hpp"
#include "formats/r1cs.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"

namespace {

using namespace cuzk;
namespace fs = std::filesystem;

// k * generator (k = 0: infinity).
template <class G>
ec::Affine<G> multiple(uint64_t k) {
  return ec::Jacobian<G>::from_affine(G::generator()).mul(G::Scalar::from_u64(k)).to_affine();
}

template <class G>
std::vector<ec::Affine<G>> multiples(size_t n, uint64_t first) {
  std::vector<ec::Affine<G>> v;
  for (size_t i = 0; i < n; ++i) v.push_back(multiple<G>(first + i));
  return v;
}

Status write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  return formats::write_file(path, bytes);
}

// A chain x1 * x1 = x2, x2 * x2 = x3, ...: 1 output, 1 public input, 1 private input.
template <class Fr>
formats::R1cs<Fr> chain_system(uint32_t n_constraints) {
  formats::R1cs<Fr> r;
  r.n_vars = n_constraints + 3;
  r.n_outputs = 1;
  r.n_pub_inputs = 1;
  r.n_prv_inputs = 1;
  r.n_labels = r.n_vars;
  using T = formats::R1csTerm<Fr>;
  for (uint32_t i = 0; i < n_constraints; ++i) {
    uint32_t x = i == 0 ? 3 : i + 3, y = i == 0 ? 1 : i + 2;
    T a[] = {{x, Fr::one()}}, b[] = {{x, Fr::one()}, {0, Fr::from_u64(i)}}, c[] = {{y, Fr::from_u64(2)}};
    r.add_constraint(a, b, c);
  }
  for (uint32_t i = 0; i < r.n_vars; ++i) r.wire_to_label.push_back(i);
  return r;
}

template <class C>
Status curve_seeds(const std::string& dir, const std::string& name) {
  using Fr = typename C::Fr;
  using G1 = typename C::G1;
  using G2 = typename C::G2;
  const std::string base = "/" + name;

  for (uint32_t n : {1u, 3u}) {
    std::string p = dir + "/r1cs" + base + "-" + std::to_string(n) + ".r1cs";
    formats::R1cs<Fr> r = chain_system<Fr>(n);
    if (n == 1) r.wire_to_label.clear();  // section 3 is optional
    CUZK_RETURN_IF_ERROR(formats::write_r1cs<Fr>(p, r));
    CUZK_RETURN_IF_ERROR(formats::read_r1cs<Fr>(p).status());
  }

  std::vector<typename Fr::Int> values;
  for (uint64_t v : {1, 5, 25, 0}) values.push_back(Fr::Int::from_u64(v));
  std::string wtns = dir + "/wtns" + base + ".wtns";
  CUZK_RETURN_IF_ERROR(formats::write_wtns<Fr>(wtns, values));
  CUZK_RETURN_IF_ERROR(formats::read_wtns<Fr>(wtns).status());

  // A structurally valid key: 4 wires, 1 public signal, domain 4 (no circuit behind it).
  auto ic = multiples<G1>(2, 1), a = multiples<G1>(4, 3), b1 = multiples<G1>(4, 7), c = multiples<G1>(2, 11),
       h = multiples<G1>(4, 13);
  auto b2 = multiples<G2>(4, 17);
  a[1] = ec::Affine<G1>::infinity();
  std::vector<formats::ZkeyCoefficient<Fr>> coefs = {
      {0, 0, 1, Fr::from_u64(3)}, {1, 0, 2, Fr::from_u64(1)}, {0, 1, 3, Fr::from_u64(7)}, {1, 3, 0, Fr::zero()}};
  formats::ZkeyContents<C> z;
  z.header.n_vars = 4;
  z.header.n_public = 1;
  z.header.domain_size = 4;
  z.header.alpha1 = multiple<G1>(21);
  z.header.beta1 = multiple<G1>(22);
  z.header.delta1 = multiple<G1>(23);
  z.header.beta2 = multiple<G2>(24);
  z.header.gamma2 = multiple<G2>(25);
  z.header.delta2 = multiple<G2>(26);
  z.ic = ic, z.a = a, z.b1 = b1, z.b2 = b2, z.c = c, z.h = h;
  z.coefficients = coefs;
  std::string zkey = dir + "/zkey" + base + ".zkey";
  CUZK_RETURN_IF_ERROR(formats::write_zkey<C>(zkey, z));
  CUZK_RETURN_IF_ERROR(formats::Zkey<C>::open(zkey).status());

  formats::Groth16Proof<C> proof{multiple<G1>(31), multiple<G2>(32), multiple<G1>(33)};
  std::string pj = dir + "/proof_json" + base + "-proof.json";
  CUZK_RETURN_IF_ERROR(formats::write_proof_json<C>(pj, proof));
  CUZK_RETURN_IF_ERROR(formats::read_proof_json<C>(pj).status());

  std::vector<Fr> pub = {Fr::from_u64(25), -Fr::one()};
  std::string pubj = dir + "/public_json" + base + "-public.json";
  CUZK_RETURN_IF_ERROR(formats::write_public_json<Fr>(pubj, pub));
  CUZK_RETURN_IF_ERROR(formats::read_public_json<Fr>(pubj).status());

  formats::VerificationKey<C> vk;
  vk.n_public = 1;
  vk.alpha1 = multiple<G1>(41);
  vk.beta2 = multiple<G2>(42);
  vk.gamma2 = multiple<G2>(43);
  vk.delta2 = multiple<G2>(44);
  vk.ic = multiples<G1>(2, 45);
  vk.alphabeta_12 = C::Fq12::one();
  std::string vkj = dir + "/vk_json" + base + "-vk.json";
  CUZK_RETURN_IF_ERROR(formats::write_vk_json<C>(vkj, vk));
  CUZK_RETURN_IF_ERROR(formats::read_vk_json<C>(vkj).status());
  return Status::ok();
}

// snarkjs binary points: selector byte (bn254 G1, bn254 G2, bls G1, bls G2) then the point.
template <class G>
Status snarkjs_point_seeds(const std::string& dir, uint8_t selector) {
  for (uint64_t k : {0, 1, 5}) {
    std::vector<uint8_t> bytes{selector};
    auto enc = ec::snarkjs_encode(multiple<G>(k));
    bytes.insert(bytes.end(), enc.begin(), enc.end());
    CUZK_RETURN_IF_ERROR(
        write_bytes(dir + "/snarkjs_point/" + std::to_string(selector) + "-" + std::to_string(k), bytes));
  }
  return Status::ok();
}

// zcash points: selector byte (G1 compressed, G1 uncompressed, G2 compressed, G2
// uncompressed) then the point.
template <class G>
Status zcash_point_seeds(const std::string& dir, uint8_t first_selector) {
  for (ec::Form form : {ec::Form::kCompressed, ec::Form::kUncompressed}) {
    uint8_t selector = uint8_t(first_selector + (form == ec::Form::kUncompressed ? 1 : 0));
    for (uint64_t k : {0, 1, 5}) {
      std::vector<uint8_t> bytes{selector};
      auto enc = ec::zcash_encode(multiple<G>(k), form);
      bytes.insert(bytes.end(), enc.begin(), enc.end());
      CUZK_RETURN_IF_ERROR(
          write_bytes(dir + "/zcash_point/" + std::to_string(selector) + "-" + std::to_string(k), bytes));
    }
  }
  return Status::ok();
}

Status all_seeds(const std::string& dir) {
  for (const char* t :
       {"zkey", "wtns", "r1cs", "proof_json", "public_json", "vk_json", "zcash_point", "snarkjs_point"}) {
    std::error_code ec;
    fs::create_directories(dir + "/" + t, ec);
    if (ec) return invalid_argument(dir + "/" + t + ": " + ec.message());
  }
  CUZK_RETURN_IF_ERROR(curve_seeds<bn254::Curve>(dir, "bn254"));
  CUZK_RETURN_IF_ERROR(curve_seeds<bls12_381::Curve>(dir, "bls12_381"));
  CUZK_RETURN_IF_ERROR(snarkjs_point_seeds<bn254::G1Config>(dir, 0));
  CUZK_RETURN_IF_ERROR(snarkjs_point_seeds<bn254::G2Config>(dir, 1));
  CUZK_RETURN_IF_ERROR(snarkjs_point_seeds<bls12_381::G1Config>(dir, 2));
  CUZK_RETURN_IF_ERROR(snarkjs_point_seeds<bls12_381::G2Config>(dir, 3));
  CUZK_RETURN_IF_ERROR(zcash_point_seeds<bls12_381::G1Config>(dir, 0));
  CUZK_RETURN_IF_ERROR(zcash_point_seeds<bls12_381::G2Config>(dir, 2));
  return Status::ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
    return 2;
  }
  Status s = all_seeds(argv[1]);
  if (!s.is_ok()) {
    std::fprintf(stderr, "fuzz_seeds: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("seeds written under %s\n", argv[1]);
  return 0;
}
