// proof.json, public.json and verification_key.json in exactly snarkjs's layout
// (docs: /work/shared/reference/snarkjs-formats.md §6): decimal strings in standard form,
// affine points with a trailing projective z ("1", or "0" for infinity), G2 coordinates
// as [c0, c1] (no swap), vk_alphabeta_12 as a [2][3][2] nest of Fq12 = Fq6[w] = Fq2[v][w].
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "ec/curves.hpp"
#include "ec/encoding.hpp"
#include "ff/decimal.hpp"
#include "formats/json.hpp"
#include "formats/mapped_file.hpp"

namespace cuzk::formats {

template <class C>
struct Groth16Proof {
  ec::Affine<typename C::G1> a;
  ec::Affine<typename C::G2> b;
  ec::Affine<typename C::G1> c;
  bool operator==(const Groth16Proof&) const = default;
};

template <class C>
struct VerificationKey {
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;
  uint32_t n_public = 0;
  G1 alpha1;
  G2 beta2, gamma2, delta2;
  std::vector<G1> ic;             // n_public + 1 points
  typename C::Fq12 alphabeta_12;  // e(alpha1, beta2): computed by the caller's pairing
};

// Point <-> JSON, in snarkjs's toObject form (ec/encoding.hpp does the per-point work).
// Readers check coordinates, curve and, unless opts say otherwise, the prime-order subgroup.
template <class P>
Json point_to_json(const ec::Affine<P>& p);
// `where` names the field in messages ("proof.json: pi_a").
template <class P>
Status point_from_json(const Json& j, const std::string& where, ec::Affine<P>& out, ec::DecodeOptions opts = {});

template <class C>
Json proof_to_json(const Groth16Proof<C>& p);
template <class C>
Result<Groth16Proof<C>> proof_from_json(const Json& j, const std::string& label, ec::DecodeOptions opts = {});

template <class Fr>
Json public_to_json(std::span<const Fr> signals);
template <class Fr>
Result<std::vector<Fr>> public_from_json(const Json& j, const std::string& label);

template <class C>
Json vk_to_json(const VerificationKey<C>& vk);
template <class C>
Result<VerificationKey<C>> vk_from_json(const Json& j, const std::string& label, ec::DecodeOptions opts = {});

// File forms: read_* prefix errors with the file name, write_* use snarkjs's 1-space indent.
template <class C>
Result<Groth16Proof<C>> read_proof_json(const std::string& path, ec::DecodeOptions opts = {}) {
  CUZK_ASSIGN_OR_RETURN(Json j, read_json_file(path));
  return proof_from_json<C>(j, file_label(path), opts);
}
template <class C>
Status write_proof_json(const std::string& path, const Groth16Proof<C>& p) {
  return write_json_file(path, proof_to_json<C>(p));
}
template <class Fr>
Result<std::vector<Fr>> read_public_json(const std::string& path) {
  CUZK_ASSIGN_OR_RETURN(Json j, read_json_file(path));
  return public_from_json<Fr>(j, file_label(path));
}
template <class Fr>
Status write_public_json(const std::string& path, std::span<const Fr> signals) {
  return write_json_file(path, public_to_json<Fr>(signals));
}
template <class C>
Result<VerificationKey<C>> read_vk_json(const std::string& path, ec::DecodeOptions opts = {}) {
  CUZK_ASSIGN_OR_RETURN(Json j, read_json_file(path));
  return vk_from_json<C>(j, file_label(path), opts);
}
template <class C>
Status write_vk_json(const std::string& path, const VerificationKey<C>& vk) {
  return write_json_file(path, vk_to_json<C>(vk));
}

// ---------------------------------------------------------------------------------------

namespace json_detail {

template <class P>
Json field_json(const ff::Fp<P>& x) {
  return Json(ff::field_to_decimal(x));
}
template <class Cfg>
Json field_json(const ff::Fp2<Cfg>& x) {
  return Json(Json::Array{field_json(x.c0), field_json(x.c1)});
}

template <class P>
Status field_from(const Json& j, const std::string& where, ff::Fp<P>& out) {
  if (!j.is_string()) {
    return invalid_argument(where + ": expected a decimal string, got " + json_type_name(j.type()));
  }
  if (!ff::field_from_decimal(j.as_string(), out)) {
    return invalid_argument(where + ": \"" + j.as_string() + "\" is not a decimal integer below " + P::NAME +
                            "'s modulus");
  }
  return Status::ok();
}
template <class Cfg>
Status field_from(const Json& j, const std::string& where, ff::Fp2<Cfg>& out) {
  if (!j.is_array() || j.as_array().size() != 2) return invalid_argument(where + ": expected [c0, c1]");
  CUZK_RETURN_IF_ERROR(field_from(j.as_array()[0], where + "[0]", out.c0));
  return field_from(j.as_array()[1], where + "[1]", out.c1);
}

inline Status need(const Json& obj, const char* key, const std::string& label, const Json*& out) {
  out = obj.find(key);
  if (out == nullptr) return invalid_argument(label + ": missing field \"" + key + "\"");
  return Status::ok();
}

inline Status check_header(const Json& j, const std::string& label, const char* curve) {
  if (!j.is_object()) return invalid_argument(label + ": expected a JSON object");
  const Json* f = nullptr;
  CUZK_RETURN_IF_ERROR(need(j, "protocol", label, f));
  if (!f->is_string() || f->as_string() != "groth16") {
    return invalid_argument(label + ": protocol is " + f->dump() + ", expected \"groth16\"");
  }
  CUZK_RETURN_IF_ERROR(need(j, "curve", label, f));
  if (!f->is_string() || f->as_string() != curve) {
    return invalid_argument(label + ": curve is " + f->dump() + ", expected \"" + curve + "\"");
  }
  return Status::ok();
}

}  // namespace json_detail

template <class P>
Json point_to_json(const ec::Affine<P>& p) {
  Json::Array coords;
  for (const auto& c : ec::json_encode(p)) {
    if constexpr (ec::kIsG2<P>) {
      coords.push_back(Json(Json::Array{Json(c[0]), Json(c[1])}));
    } else {
      coords.push_back(Json(c));
    }
  }
  return Json(std::move(coords));
}

template <class P>
Status point_from_json(const Json& j, const std::string& where, ec::Affine<P>& out, ec::DecodeOptions opts) {
  auto text = [&](const Json& v, std::string& t) -> Status {
    if (!v.is_string()) return invalid_argument(where + ": expected decimal strings, got " + json_type_name(v.type()));
    t = v.as_string();
    return Status::ok();
  };
  if (!j.is_array()) return invalid_argument(where + ": expected an array of coordinates");
  ec::JsonPoint<P> jp(j.as_array().size());
  for (size_t i = 0; i < jp.size(); ++i) {
    const Json& c = j.as_array()[i];
    if constexpr (ec::kIsG2<P>) {
      if (!c.is_array()) return invalid_argument(where + ": expected [c0, c1] pairs");
      jp[i].resize(c.as_array().size());
      for (size_t k = 0; k < jp[i].size(); ++k) CUZK_RETURN_IF_ERROR(text(c.as_array()[k], jp[i][k]));
    } else {
      CUZK_RETURN_IF_ERROR(text(c, jp[i]));
    }
  }
  auto p = ec::json_decode<P>(jp, opts);
  if (!p) return p.status().with_context(where);
  out = *p;
  return Status::ok();
}

template <class C>
Json proof_to_json(const Groth16Proof<C>& p) {
  return Json(Json::Object{{"pi_a", point_to_json(p.a)},
                           {"pi_b", point_to_json(p.b)},
                           {"pi_c", point_to_json(p.c)},
                           {"protocol", "groth16"},
                           {"curve", C::SNARKJS_NAME}});
}

template <class C>
Result<Groth16Proof<C>> proof_from_json(const Json& j, const std::string& label, ec::DecodeOptions opts) {
  CUZK_RETURN_IF_ERROR(json_detail::check_header(j, label, C::SNARKJS_NAME));
  Groth16Proof<C> p;
  const Json* f = nullptr;
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "pi_a", label, f));
  CUZK_RETURN_IF_ERROR(point_from_json(*f, label + ": pi_a", p.a, opts));
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "pi_b", label, f));
  CUZK_RETURN_IF_ERROR(point_from_json(*f, label + ": pi_b", p.b, opts));
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "pi_c", label, f));
  CUZK_RETURN_IF_ERROR(point_from_json(*f, label + ": pi_c", p.c, opts));
  return p;
}

template <class Fr>
Json public_to_json(std::span<const Fr> signals) {
  Json::Array a;
  a.reserve(signals.size());
  for (const Fr& s : signals) a.push_back(json_detail::field_json(s));
  return Json(std::move(a));
}

template <class Fr>
Result<std::vector<Fr>> public_from_json(const Json& j, const std::string& label) {
  if (!j.is_array()) return invalid_argument(label + ": expected an array of decimal strings");
  std::vector<Fr> out(j.as_array().size());
  for (size_t i = 0; i < out.size(); ++i) {
    CUZK_RETURN_IF_ERROR(json_detail::field_from(j.as_array()[i], label + "[" + std::to_string(i) + "]", out[i]));
  }
  return out;
}

template <class C>
Json vk_to_json(const VerificationKey<C>& vk) {
  using json_detail::field_json;
  Json::Array ab;
  for (const auto* f6 : {&vk.alphabeta_12.c0, &vk.alphabeta_12.c1}) {
    ab.push_back(Json(Json::Array{field_json(f6->c0), field_json(f6->c1), field_json(f6->c2)}));
  }
  Json::Array ic;
  for (const auto& p : vk.ic) ic.push_back(point_to_json(p));
  return Json(Json::Object{{"protocol", "groth16"},
                           {"curve", C::SNARKJS_NAME},
                           {"nPublic", Json::number(vk.n_public)},
                           {"vk_alpha_1", point_to_json(vk.alpha1)},
                           {"vk_beta_2", point_to_json(vk.beta2)},
                           {"vk_gamma_2", point_to_json(vk.gamma2)},
                           {"vk_delta_2", point_to_json(vk.delta2)},
                           {"vk_alphabeta_12", Json(std::move(ab))},
                           {"IC", Json(std::move(ic))}});
}

template <class C>
Result<VerificationKey<C>> vk_from_json(const Json& j, const std::string& label, ec::DecodeOptions opts) {
  CUZK_RETURN_IF_ERROR(json_detail::check_header(j, label, C::SNARKJS_NAME));
  VerificationKey<C> vk;
  const Json* f = nullptr;
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "nPublic", label, f));
  uint64_t n = 0;
  bool ok = f->is_number() && !f->as_string().empty() && f->as_string().size() <= 10;
  for (char ch : ok ? f->as_string() : std::string()) ok = ok && ch >= '0' && ch <= '9';
  if (ok) n = std::stoull(f->as_string());
  if (!ok || n > UINT32_MAX) return invalid_argument(label + ": nPublic " + f->dump() + " is not a u32");
  vk.n_public = uint32_t(n);
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "vk_alpha_1", label, f));
  CUZK_RETURN_IF_ERROR(point_from_json(*f, label + ": vk_alpha_1", vk.alpha1, opts));
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "vk_beta_2", label, f));
  CUZK_RETURN_IF_ERROR(point_from_json(*f, label + ": vk_beta_2", vk.beta2, opts));
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "vk_gamma_2", label, f));
  CUZK_RETURN_IF_ERROR(point_from_json(*f, label + ": vk_gamma_2", vk.gamma2, opts));
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "vk_delta_2", label, f));
  CUZK_RETURN_IF_ERROR(point_from_json(*f, label + ": vk_delta_2", vk.delta2, opts));
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "vk_alphabeta_12", label, f));
  {
    std::string where = label + ": vk_alphabeta_12";
    if (!f->is_array() || f->as_array().size() != 2) return invalid_argument(where + ": expected [2][3][2] array");
    std::array f6 = {&vk.alphabeta_12.c0, &vk.alphabeta_12.c1};
    for (size_t i = 0; i < 2; ++i) {
      const Json& row = f->as_array()[i];
      std::string wi = where + "[" + std::to_string(i) + "]";
      if (!row.is_array() || row.as_array().size() != 3) return invalid_argument(wi + ": expected 3 Fq2 elements");
      CUZK_RETURN_IF_ERROR(json_detail::field_from(row.as_array()[0], wi + "[0]", f6[i]->c0));
      CUZK_RETURN_IF_ERROR(json_detail::field_from(row.as_array()[1], wi + "[1]", f6[i]->c1));
      CUZK_RETURN_IF_ERROR(json_detail::field_from(row.as_array()[2], wi + "[2]", f6[i]->c2));
    }
  }
  CUZK_RETURN_IF_ERROR(json_detail::need(j, "IC", label, f));
  if (!f->is_array() || f->as_array().size() != size_t(vk.n_public) + 1) {
    return invalid_argument(label + ": IC must hold nPublic + 1 = " + std::to_string(size_t(vk.n_public) + 1) +
                            " points");
  }
  vk.ic.resize(f->as_array().size());
  for (size_t i = 0; i < vk.ic.size(); ++i) {
    CUZK_RETURN_IF_ERROR(point_from_json(f->as_array()[i], label + ": IC[" + std::to_string(i) + "]", vk.ic[i], opts));
  }
  return vk;
}

}  // namespace cuzk::formats
