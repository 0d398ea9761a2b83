// A loaded proving key, with the curve hidden: the engine's stages hold keys, witnesses
// and proofs of either curve through these types.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "engine/device.hpp"
#include "engine/job.hpp"
#include "engine/key_shape.hpp"

namespace cuzk::engine {

// A .wtns checked against a key (curve, length, values below r) and decoded.
class DecodedWitness {
 public:
  virtual ~DecodedWitness() = default;
  virtual uint64_t bytes() const = 0;
};

// Milliseconds inside the kernel region, as the prover reports them.
struct KernelTimings {
  double synthesis_ms = 0;  // witness checks, a = A·w, b = B·w, c = a∘b
  double ntt_h_ms = 0;
  double msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_l_ms = 0, msm_h_ms = 0;
};

// A proof as the prover returned it, before verification and serialization.
class ProvedProof {
 public:
  virtual ~ProvedProof() = default;
  KernelTimings timings;
};

// Decodes `wtns` for a key of this shape: INVALID_ARGUMENT for the wrong curve, the wrong
// length or bytes that are not a .wtns.
Result<std::unique_ptr<DecodedWitness>> decode_witness(const KeyShape& key, std::span<const uint8_t> wtns);

class LoadedKey {
 public:
  virtual ~LoadedKey() = default;

  // Opens `path` with the zkey reader's full validation (structure, sizes, every point on
  // its curve, coefficients in range) and prepares a prover for each device.
  static Result<std::unique_ptr<LoadedKey>> load(const std::string& path, std::span<Device* const> devices);

  const KeyShape& shape() const { return shape_; }

  // The kernel region on devices[device]: the whole Groth16 prove.
  virtual Result<std::unique_ptr<ProvedProof>> prove(size_t device, const DecodedWitness& w) const = 0;
  // The three-pairing check against the key's own verification key.
  virtual Status verify(const ProvedProof& p) const = 0;
  virtual ProofResult serialize(const ProvedProof& p) const = 0;

 protected:
  explicit LoadedKey(KeyShape shape) : shape_(shape) {}

 private:
  KeyShape shape_;
};

}  // namespace cuzk::engine
