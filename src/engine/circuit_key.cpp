#include "engine/circuit_key.hpp"

#include <filesystem>
#include <optional>

#include "ec/encoding.hpp"
#include "ff/decimal.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/prepared_verifier.hpp"
#include "groth16/prover.hpp"
#include "groth16/random.hpp"

namespace cuzk::engine {

namespace {

template <class C>
struct TypedWitness final : DecodedWitness {
  formats::WtnsBuffer owner;                    // the .wtns bytes, held for the job's life
  std::span<const typename C::Fr::Int> values;  // in `owner`
  uint64_t bytes() const override { return values.size_bytes(); }
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
Result<std::unique_ptr<DecodedWitness>> decode_typed(const KeyShape& key, formats::WtnsBuffer wtns, ThreadPool* pool) {
  using Fr = typename C::Fr;
  auto at = formats::locate_wtns<Fr>(wtns.bytes(), "witness");
  if (!at.is_ok()) return invalid_argument(at.status().message());
  if (at->n != key.n_vars) {
    return invalid_argument("witness has " + std::to_string(at->n) + " values, the circuit's key needs " +
                            std::to_string(key.n_vars) + " (nVars): a witness for another circuit?");
  }
  auto out = std::make_unique<TypedWitness<C>>();
  out->owner = std::move(wtns);
  auto values = formats::borrow_wtns_values<Fr>(out->owner, *at, pool);
  if (!values.is_ok()) return invalid_argument(values.status().message());
  out->values = *values;
  return std::unique_ptr<DecodedWitness>(std::move(out));
}

template <class C>
class TypedKey final : public LoadedKey {
 public:
  TypedKey(KeyShape shape, std::unique_ptr<formats::Zkey<C>> zkey, std::span<Device* const> devices)
      : LoadedKey(shape),
        zkey_(std::move(zkey)),
        devices_(devices.begin(), devices.end()),
        pvk_(groth16::make_verifying_key<C>(zkey_->header().alpha1, zkey_->header().beta2, zkey_->header().gamma2,
                                            zkey_->header().delta2, zkey_->ic())) {
    for (size_t d = 0; d < devices_.size(); ++d) slots_.push_back(std::make_unique<Slot>());
  }

  Status add_provers() {
    for (size_t d = 0; d < devices_.size(); ++d) {
      if (devices_[d]->poisoned()) continue;  // its recovery prepares the key after the reset
      std::unique_lock hold(slots_[d]->mu);
      Status st = prepare_locked(d);
      if (st.code() == StatusCode::kDeviceLost) continue;  // lost meanwhile: the same
      CUZK_RETURN_IF_ERROR(st);
    }
    return Status::ok();
  }

  BackendBytes backend_bytes(size_t device) const override {
    auto held = prover(device);
    if (!held.is_ok()) return {};
    const auto& p = *held->p;
    return {p.backend().upload_bytes(p.prepared()), p.backend().compute_bytes(p.prepared())};
  }

  Result<std::unique_ptr<StagedProof>> upload(size_t device, const DecodedWitness& w) const override {
    CUZK_ASSIGN_OR_RETURN(Held held, prover(device));
    // No check_witness here: decode_witness checked the values once, at admission.
    const auto values = static_cast<const TypedWitness<C>&>(w).values;
    auto staged = std::make_unique<TypedStaged<C>>();
    CUZK_ASSIGN_OR_RETURN(staged->job, held.p->upload(values, staged->t));
    return std::unique_ptr<StagedProof>(std::move(staged));
  }

  Status compute(size_t device, StagedProof& s, PhasePauses* pauses) const override {
    CUZK_ASSIGN_OR_RETURN(Held held, prover(device));
    auto& staged = static_cast<TypedStaged<C>&>(s);
    staged.job->pauses = pauses;
    Status st = held.p->compute(*staged.job, staged.t);
    staged.job->pauses = nullptr;
    return st;
  }

  Status read_back(size_t device, StagedProof& s) const override {
    CUZK_ASSIGN_OR_RETURN(Held held, prover(device));
    auto& staged = static_cast<TypedStaged<C>&>(s);
    CUZK_ASSIGN_OR_RETURN(auto sums, held.p->read_back(*staged.job, staged.t));
    staged.sums = std::move(sums);
    staged.job.reset();  // the device memory of the proof goes back now
    return Status::ok();
  }

  Result<std::unique_ptr<ProvedProof>> finalize(size_t device, StagedProof& s, const DecodedWitness& w) const override {
    CUZK_ASSIGN_OR_RETURN(Held held, prover(device));
    auto& staged = static_cast<TypedStaged<C>&>(s);
    if (!staged.sums) return internal_error("finalize before read_back");
    const auto values = static_cast<const TypedWitness<C>&>(w).values;
    using Fr = typename C::Fr;
    auto out = std::make_unique<TypedProof<C>>();
    out->out = held.p->finalize(*staged.sums, values, groth16::os_random<Fr>(), groth16::os_random<Fr>());
    const groth16::ProveTimings& t = staged.t;
    out->timings = {t.upload * 1e3, t.witness_abc * 1e3, t.h * 1e3,     t.msm_a * 1e3,    t.msm_b1 * 1e3,
                    t.msm_b2 * 1e3, t.msm_l * 1e3,       t.msm_h * 1e3, t.read_back * 1e3,
                    t.upload_host_copy * 1e3, t.upload_link_wait * 1e3, t.upload_setup * 1e3,
                    t.upload_alloc * 1e3, t.upload_acquire * 1e3, t.upload_issue * 1e3};
    return std::unique_ptr<ProvedProof>(std::move(out));
  }

  Status verify(const ProvedProof& p) const override {
    const auto& tp = static_cast<const TypedProof<C>&>(p);
    return groth16::verify<C>(pvk_, tp.out.proof, tp.out.public_signals);
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

  std::string placement(size_t device) const override {
    if (device >= slots_.size()) return {};
    std::lock_guard lock(slots_[device]->info_mu);
    return slots_[device]->placement;
  }
  uint64_t resident_bytes(size_t device) const override {
    if (device >= slots_.size()) return 0;
    std::lock_guard lock(slots_[device]->info_mu);
    return slots_[device]->resident.bytes();
  }

  std::unique_lock<std::shared_mutex> release_device(size_t device) override {
    Slot& s = *slots_[device];
    std::unique_lock hold(s.mu);
    s.prover.reset();
    std::lock_guard lock(s.info_mu);
    s.resident.release();
    s.placement.clear();
    s.error = Status(StatusCode::kUnavailable, "circuit key not prepared on " + devices_[device]->id() +
                                                   ": its device is being reset after a sticky fault");
    return hold;
  }

  Status prepare_device(size_t device, std::unique_lock<std::shared_mutex> hold) override {
    Status st = prepare_locked(device);
    hold.unlock();  // the device's stages go on, with the new prover or its error
    return st;
  }

 private:
  // A device's prover, held (shared) for the length of one stage call: release_device()
  // waits for the calls in progress and holds off new ones until prepare_device().
  struct Slot {
    mutable std::shared_mutex mu;
    std::unique_ptr<groth16::Prover<C>> prover;
    Status error;                // why there is no prover
    mutable std::mutex info_mu;  // for status: placement and resident without waiting on mu
    std::string placement;
    MemoryBudget::Reservation resident;
  };
  struct Held {
    std::shared_lock<std::shared_mutex> lock;
    const groth16::Prover<C>* p = nullptr;
  };

  // With the slot's lock held exclusively.
  Status prepare_locked(size_t d) {
    Slot& s = *slots_[d];
    Device* dev = devices_[d];
    auto p = groth16::Prover<C>::create(*zkey_, dev->backend<C>(), dev->host_pool());
    if (!p.is_ok()) {
      s.error = p.status().with_context("circuit key prepared on " + dev->id());
      return s.error;
    }
    // What the key holds on the device (points and rows on a GPU; nothing on the CPU) is
    // reserved in the device's budget for the key's life, so stages are admitted against
    // what is really left.
    auto held = dev->memory().try_reserve(p->prepared().resident_bytes(), Priority::kCritical);
    if (!held.is_ok()) {
      s.error = held.status().with_context("key resident on " + dev->id());
      return s.error;
    }
    s.prover = std::make_unique<groth16::Prover<C>>(std::move(p).value());
    s.error = Status::ok();
    std::lock_guard lock(s.info_mu);
    s.resident = std::move(held).value();
    s.placement = s.prover->prepared().placement();
    return Status::ok();
  }

  Result<Held> prover(size_t device) const {
    if (device >= slots_.size()) return internal_error("no prover for device " + std::to_string(device));
    Held h{std::shared_lock(slots_[device]->mu), nullptr};
    if (!slots_[device]->prover) {
      const Status& why = slots_[device]->error;
      return why.is_ok() ? Status(StatusCode::kUnavailable, "circuit key not prepared on " + devices_[device]->id())
                         : Status(StatusCode::kUnavailable, why.message());
    }
    h.p = slots_[device]->prover.get();
    return h;
  }

  std::unique_ptr<formats::Zkey<C>> zkey_;
  std::vector<Device*> devices_;
  std::vector<std::unique_ptr<Slot>> slots_;
  // Prepared once at load: every returned proof is verified against it (finalize stage).
  groth16::PreparedVerifyingKey<C> pvk_;
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
  auto key = std::make_unique<TypedKey<C>>(shape, std::make_unique<formats::Zkey<C>>(std::move(zkey)), devices);
  CUZK_RETURN_IF_ERROR(key->add_provers());
  return std::unique_ptr<LoadedKey>(std::move(key));
}

}  // namespace

Result<std::unique_ptr<DecodedWitness>> decode_witness(const KeyShape& key, formats::WtnsBuffer wtns,
                                                       ThreadPool* pool) {
  if (key.curve == formats::CurveId::kBn254) return decode_typed<bn254::Curve>(key, std::move(wtns), pool);
  return decode_typed<bls12_381::Curve>(key, std::move(wtns), pool);
}

Result<std::unique_ptr<LoadedKey>> LoadedKey::load(const std::string& path, std::span<Device* const> devices) {
  CUZK_ASSIGN_OR_RETURN(formats::CurveId curve, formats::detect_curve(path));
  if (curve == formats::CurveId::kBn254) return load_typed<bn254::Curve>(path, devices);
  return load_typed<bls12_381::Curve>(path, devices);
}

}  // namespace cuzk::engine
