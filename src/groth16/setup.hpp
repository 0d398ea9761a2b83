// INSECURE development setup: R1CS -> snarkjs .zkey + verification key, from toxic waste
// (tau, alpha, beta, delta) sampled locally and then forgotten. Anyone who kept it could
// forge proofs, so its keys are for testing and benchmarking only; production keys come
// from a ceremony (snarkjs powersoftau + zkey contribute).
//
// The key is what `snarkjs groth16 setup` followed by contributions would produce
// (reference/snarkjs-formats.md §4.1, §4.2), with gamma = 1 and no MPC transcript:
//   A_s = [u_s(τ)]₁, B1_s = [v_s(τ)]₁, B2_s = [v_s(τ)]₂, IC_s = [β·u_s + α·v_s + w_s]₁,
//   C_j = [(β·u_s + α·v_s + w_s)/δ]₁ (s = j + nPublic + 1), H_i = [L⁽²ⁿ⁾_{2i+1}(τ)/δ]₁.
// It scales to 2^20+ constraints: Lagrange bases at τ in O(n) with batch inversion, u/v/w
// accumulated over the sparse matrices, and all points by multi-threaded fixed-base
// windowed multiplication.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "formats/r1cs.hpp"
#include "groth16/proof.hpp"

namespace cuzk::groth16 {

struct SetupProgress {
  // Called with a stage name and the fraction of that stage done; calls are serialised.
  std::function<void(const std::string& stage, double fraction)> report;
};

// Where the setup's fixed-base multiplications run: out[i] = scalars[i]·generator (scalars
// in Montgomery form). Empty functions: windowed tables on the CPU threads. The CUDA
// backend supplies device ones (cuda/setup/fixed_base.hpp).
template <class C>
struct FixedBaseMuls {
  std::function<Status(std::span<const typename C::Fr>, std::span<ec::Affine<typename C::G1>>)> g1;
  std::function<Status(std::span<const typename C::Fr>, std::span<ec::Affine<typename C::G2>>)> g2;
};

// Writes the proving key to `zkey_path` and returns the matching verification key.
template <class C>
Result<VerifyingKey<C>> dev_setup(const formats::R1cs<typename C::Fr>& r1cs, const std::string& zkey_path,
                                  ThreadPool& pool, const SetupProgress& progress = {},
                                  const FixedBaseMuls<C>& muls = {});

// The domain size snarkjs picks: the smallest power of two >= nConstraints + nPublic + 1.
uint64_t snarkjs_domain_size(uint64_t n_constraints, uint64_t n_public);

}  // namespace cuzk::groth16
