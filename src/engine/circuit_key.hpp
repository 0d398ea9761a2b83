// A loaded proving key, with the curve hidden: the engine's stages hold keys, witnesses
// and proofs of either curve through these types.
#pragma once

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "core/phase_pauses.hpp"
#include "core/status.hpp"
#include "engine/device.hpp"
#include "engine/job.hpp"
#include "engine/key_shape.hpp"
#include "formats/wtns_buffer.hpp"

namespace cuzk::engine {

// A .wtns checked against a key (curve, length, values below r) and decoded: it owns the
// bytes it was decoded from and its values are read in place there.
class DecodedWitness {
 public:
  virtual ~DecodedWitness() = default;
  virtual uint64_t bytes() const = 0;
};

// Milliseconds of the device stages, as the backend reports them.
struct KernelTimings {
  double upload_ms = 0;
  double synthesis_ms = 0;  // witness checks, a = A·w, b = B·w, c = a∘b
  double ntt_h_ms = 0;
  double msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_l_ms = 0, msm_h_ms = 0;
  double read_back_ms = 0;
  double upload_host_copy_ms = 0, upload_link_wait_ms = 0;                                      // of upload_ms
  double upload_setup_ms = 0, upload_alloc_ms = 0, upload_acquire_ms = 0, upload_issue_ms = 0;  // the rest of it
};

// One proof between its device stages: the backend's job, then the MSM sums.
class StagedProof {
 public:
  virtual ~StagedProof() = default;
};

// A blinded proof, before verification and serialization.
class ProvedProof {
 public:
  virtual ~ProvedProof() = default;
  KernelTimings timings;
};

// Device bytes a key's backend says one proof takes (groth16::Backend; 0 on the CPU).
struct BackendBytes {
  uint64_t upload = 0, compute = 0;
};

// Decodes `wtns` for a key of this shape and checks every value below r, split across
// `pool`'s threads (null: on the caller's): INVALID_ARGUMENT for the wrong curve, the wrong
// length, a value not below r (naming its index) or bytes that are not a .wtns. This is the
// engine's one range check: the device stages trust a decoded witness. The witness keeps
// `wtns` and borrows the values from it (aligning them in place when they are not).
Result<std::unique_ptr<DecodedWitness>> decode_witness(const KeyShape& key, formats::WtnsBuffer wtns, ThreadPool* pool);

class LoadedKey {
 public:
  virtual ~LoadedKey() = default;

  // Opens `path` with the zkey reader's full validation (structure, sizes, every point on
  // its curve, coefficients in range) and prepares a prover for each device (except a
  // poisoned one, where the device's recovery prepares it after the reset).
  static Result<std::unique_ptr<LoadedKey>> load(const std::string& path, std::span<Device* const> devices);

  const KeyShape& shape() const { return shape_; }

  virtual BackendBytes backend_bytes(size_t device) const = 0;
  // The device stages on devices[device]. (a) uploads the witness, checked by
  // decode_witness (outside the lock, or inside on the fallback path); `w` must outlive
  // the staged proof.
  virtual Result<std::unique_ptr<StagedProof>> upload(size_t device, const DecodedWitness& w) const = 0;
  // (b) the kernel region: synthesis, H, the five MSMs.
  // `pauses` (may be null) is asked at the backend's phase boundaries.
  virtual Status compute(size_t device, StagedProof& p, PhasePauses* pauses) const = 0;
  // (c) the MSM sums back to the host.
  virtual Status read_back(size_t device, StagedProof& p) const = 0;
  // Blinds the sums with fresh r, s into the proof (host work, outside the lock).
  virtual Result<std::unique_ptr<ProvedProof>> finalize(size_t device, StagedProof& p,
                                                        const DecodedWitness& w) const = 0;
  // The Groth16 check against the key's own verification key, prepared once at load
  // (groth16/prepared_verifier.hpp).
  virtual Status verify(const ProvedProof& p) const = 0;
  virtual ProofResult serialize(const ProvedProof& p) const = 0;

  // How the key is held on devices[device]: its prepared placement ("device", "streamed",
  // "mixed (streamed: B2)", "host"; empty while it is not prepared there) and the device
  // bytes it holds.
  virtual std::string placement(size_t device) const = 0;
  virtual uint64_t resident_bytes(size_t device) const = 0;

  // After a sticky fault on devices[device]: drops the key's state there (its prover, the
  // device-resident points and their reservation) and returns a hold under which the key's
  // stages on that device wait; prepare_device() prepares it again on the reset device and
  // lets them go on. A key whose preparation failed answers UNAVAILABLE on that device.
  virtual std::unique_lock<std::shared_mutex> release_device(size_t device) = 0;
  virtual Status prepare_device(size_t device, std::unique_lock<std::shared_mutex> hold) = 0;

 protected:
  explicit LoadedKey(KeyShape shape) : shape_(shape) {}

 private:
  KeyShape shape_;
};

}  // namespace cuzk::engine
