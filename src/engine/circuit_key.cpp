#include "engine/circuit_key.hpp"

#include <chrono>
#include <filesystem>
#include <optional>

#include "ec/encoding.hpp"
#include "ff/decimal.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/prover.hpp"
#include "groth16/random.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <class C>
struct TypedWitness final : DecodedWitness {
  formats::Witness<typename C::Fr> w;
  uint64_t bytes() const override { return w.values.size() * sizeof(typename C::Fr::Int); }
};

template <class C>
struct TypedProof final : ProvedProof {
  groth16::ProveOutput<C> out;
};

template <class C>
struct TypedStaged final : StagedProof {
  std::unique_ptr<groth16::ProofJob<C>> job;
  std::optional<groth16::MsmSums<C>> sums;
  groth16::ProveTimings t;
};

template <class C>
Result<std::unique_ptr<DecodedWitness>> decode_typed(const KeyShape& key, std::span<const uint8_t> wtns) {
  auto w = formats::parse_wtns<typename C::Fr>(wtns, "witness");
  if (!w.is_ok()) return invalid_argument(w.status().message());
  if (w->values.size() != key.n_vars) {
    return invalid_argument("witness has " + std::to_string(w->values.size()) + " values, the circuit's key needs " +
                            std::to_string(key.n_vars) + " (nVars): a witness for another circuit?");
  }
  auto out = std::make_unique<TypedWitness<C>>();
  out->w = std::move(*w);
  return std::unique_ptr<DecodedWitness>(std::move(out));
}

template <class C>
class TypedKey final : public LoadedKey {
 public:
  TypedKey(KeyShape shape, std::unique_ptr<formats::Zkey<C>> zkey) : LoadedKey(shape), zkey_(std::move(zkey)) {}

  Status add_provers(std::span<Device* const> devices) {
    for (Device* d : devices) {
      CUZK_ASSIGN_OR_RETURN(auto p, groth16::Prover<C>::create(*zkey_, d->backend<C>(), d->host_pool()));
      // What the key holds on the device (points and rows on a GPU; nothing on the CPU) is
      // reserved in the device's budget for the key's life, so stages are admitted against
      // what is really left.
      auto held = d->memory().try_reserve(p.prepared().resident_bytes(), Priority::kCritical);
      if (!held.is_ok()) return held.status().with_context("key resident on " + d->id());
      resident_.push_back(std::move(held).value());
      provers_.push_back(std::make_unique<groth16::Prover<C>>(std::move(p)));
    }
    vk_ = provers_.empty() ? groth16::VerifyingKey<C>{} : provers_.front()->verifying_key();
    return Status::ok();
  }

  BackendBytes backend_bytes(size_t device) const override {
    if (device >= provers_.size()) return {};
    const auto& p = *provers_[device];
    return {p.backend().upload_bytes(p.prepared()), p.backend().compute_bytes(p.prepared())};
  }

  Result<std::unique_ptr<StagedProof>> upload(size_t device, const DecodedWitness& w) const override {
    CUZK_ASSIGN_OR_RETURN(const groth16::Prover<C>* p, prover(device));
    const auto& values = static_cast<const TypedWitness<C>&>(w).w.values;
    auto staged = std::make_unique<TypedStaged<C>>();
    auto t0 = Clock::now();
    CUZK_RETURN_IF_ERROR(p->check_witness(values));
    staged->t.witness_abc += seconds_since(t0);
    CUZK_ASSIGN_OR_RETURN(staged->job, p->upload(values, staged->t));
    return std::unique_ptr<StagedProof>(std::move(staged));
  }

  Status compute(size_t device, StagedProof& s) const override {
    CUZK_ASSIGN_OR_RETURN(const groth16::Prover<C>* p, prover(device));
    auto& staged = static_cast<TypedStaged<C>&>(s);
    return p->compute(*staged.job, staged.t);
  }

  Status read_back(size_t device, StagedProof& s) const override {
    CUZK_ASSIGN_OR_RETURN(const groth16::Prover<C>* p, prover(device));
    auto& staged = static_cast<TypedStaged<C>&>(s);
    CUZK_ASSIGN_OR_RETURN(auto sums, p->read_back(*staged.job, staged.t));
    staged.sums = std::move(sums);
    staged.job.reset();  // the device memory of the proof goes back now
    return Status::ok();
  }

  Result<std::unique_ptr<ProvedProof>> finalize(size_t device, StagedProof& s, const DecodedWitness& w) const override {
    CUZK_ASSIGN_OR_RETURN(const groth16::Prover<C>* p, prover(device));
    auto& staged = static_cast<TypedStaged<C>&>(s);
    if (!staged.sums) return internal_error("finalize before read_back");
    const auto& values = static_cast<const TypedWitness<C>&>(w).w.values;
    using Fr = typename C::Fr;
    auto out = std::make_unique<TypedProof<C>>();
    out->out = p->finalize(*staged.sums, values, groth16::os_random<Fr>(), groth16::os_random<Fr>());
    const groth16::ProveTimings& t = staged.t;
    out->timings = {t.upload * 1e3, t.witness_abc * 1e3, t.h * 1e3,     t.msm_a * 1e3,    t.msm_b1 * 1e3,
                    t.msm_b2 * 1e3, t.msm_l * 1e3,       t.msm_h * 1e3, t.read_back * 1e3};
    return std::unique_ptr<ProvedProof>(std::move(out));
  }

  Status verify(const ProvedProof& p) const override {
    const auto& tp = static_cast<const TypedProof<C>&>(p);
    return groth16::verify<C>(vk_, tp.out.proof, tp.out.public_signals);
  }

  ProofResult serialize(const ProvedProof& p) const override {
    using Fr = typename C::Fr;
    const auto& tp = static_cast<const TypedProof<C>&>(p);
    ProofResult r;
    r.curve = C::SNARKJS_NAME;
    r.proof_json = formats::proof_to_json<C>(tp.out.proof).dump(1);
    std::vector<Fr> pub;
    for (const auto& v : tp.out.public_signals) pub.push_back(Fr::from_canonical(v));
    r.public_json = formats::public_to_json<Fr>(pub).dump(1);
    for (const auto& v : tp.out.public_signals) r.public_signals.push_back(ff::to_decimal(v));
    constexpr size_t g1 = 2 * C::Fq::BYTES, g2 = 4 * C::Fq::BYTES;
    r.proof_bytes.resize(2 * g1 + g2);
    ec::snarkjs_write(tp.out.proof.a, r.proof_bytes.data());
    ec::snarkjs_write(tp.out.proof.b, r.proof_bytes.data() + g1);
    ec::snarkjs_write(tp.out.proof.c, r.proof_bytes.data() + g1 + g2);
    return r;
  }

 private:
  Result<const groth16::Prover<C>*> prover(size_t device) const {
    if (device >= provers_.size()) return internal_error("no prover for device " + std::to_string(device));
    return provers_[device].get();
  }

  std::unique_ptr<formats::Zkey<C>> zkey_;
  std::vector<std::unique_ptr<groth16::Prover<C>>> provers_;
  std::vector<MemoryBudget::Reservation> resident_;  // per device, beside provers_
  groth16::VerifyingKey<C> vk_;
};

template <class C>
Result<std::unique_ptr<LoadedKey>> load_typed(const std::string& path, std::span<Device* const> devices) {
  CUZK_ASSIGN_OR_RETURN(auto zkey, formats::Zkey<C>::open(path));
  const auto& h = zkey.header();
  KeyShape shape;
  shape.curve = std::is_same_v<C, bn254::Curve> ? formats::CurveId::kBn254 : formats::CurveId::kBls12_381;
  shape.n_vars = h.n_vars;
  shape.n_public = h.n_public;
  shape.domain_size = h.domain_size;
  std::error_code ec;
  shape.key_bytes = std::filesystem::file_size(path, ec);
  auto key = std::make_unique<TypedKey<C>>(shape, std::make_unique<formats::Zkey<C>>(std::move(zkey)));
  CUZK_RETURN_IF_ERROR(key->add_provers(devices));
  return std::unique_ptr<LoadedKey>(std::move(key));
}

}  // namespace

Result<std::unique_ptr<DecodedWitness>> decode_witness(const KeyShape& key, std::span<const uint8_t> wtns) {
  if (key.curve == formats::CurveId::kBn254) return decode_typed<bn254::Curve>(key, wtns);
  return decode_typed<bls12_381::Curve>(key, wtns);
}

Result<std::unique_ptr<LoadedKey>> LoadedKey::load(const std::string& path, std::span<Device* const> devices) {
  CUZK_ASSIGN_OR_RETURN(formats::CurveId curve, formats::detect_curve(path));
  if (curve == formats::CurveId::kBn254) return load_typed<bn254::Curve>(path, devices);
  return load_typed<bls12_381::Curve>(path, devices);
}

}  // namespace cuzk::engine
