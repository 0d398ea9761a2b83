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

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

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

// The toxic waste. Sampled from the OS CSPRNG (and then forgotten) unless a test passes
// fixed values to build the same key two ways.
template <class Fr>
struct ToxicWaste {
  Fr tau, alpha, beta, delta;
};

// Draws toxic waste for a key whose domain has `domain_size` points (tau avoids both
// domains the key uses: Z(tau) = 0 would zero every Lagrange value).
template <class Fr>
ToxicWaste<Fr> sample_toxic_waste(uint64_t domain_size);

// A dev key before its points: every point section is its scalars times a generator
// (G1's, or G2's for B2), so a backend can compute the points wherever it keeps them. The
// small points (alpha1, beta1, delta1, beta2, delta2, IC) are the setup's to compute too.
template <class C>
struct DevKeyScalars {
  using Fr = typename C::Fr;
  uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  Fr alpha, beta, delta;
  std::vector<Fr> a;   // A_s = u_s(τ), s < nVars (also B1 and B2's source below)
  std::vector<Fr> b;   // B1_s = B2_s = v_s(τ)
  std::vector<Fr> ic;  // IC_s = β·u_s + α·v_s + w_s, s <= nPublic
  std::vector<Fr> c;   // C_j = (β·u_s + α·v_s + w_s)/δ, s = j + nPublic + 1
  std::vector<Fr> h;   // H_i = L⁽²ⁿ⁾_{2i+1}(τ)/δ, i < domainSize
  // Section 4 as stored (CoefficientTable's entry layout): A, B of each constraint in
  // order, then the public-input rows A = w_s at row nConstraints + s.
  std::vector<uint8_t> coefficients;
};

// The scalars of `r1cs`'s dev key (checks the R1CS first: wires, offsets, domain size).
template <class C>
Result<DevKeyScalars<C>> dev_key_scalars(const formats::R1cs<typename C::Fr>& r1cs, ThreadPool& pool,
                                         const ToxicWaste<typename C::Fr>& toxic, const SetupProgress& progress = {});

// Writes the proving key to `zkey_path` and returns the matching verification key.
// `toxic` empty: sampled (sample_toxic_waste).
template <class C>
Result<VerifyingKey<C>> dev_setup(const formats::R1cs<typename C::Fr>& r1cs, const std::string& zkey_path,
                                  ThreadPool& pool, const SetupProgress& progress = {},
                                  const FixedBaseMuls<C>& muls = {},
                                  const std::optional<ToxicWaste<typename C::Fr>>& toxic = std::nullopt);

// The domain size snarkjs picks: the smallest power of two >= nConstraints + nPublic + 1.
uint64_t snarkjs_domain_size(uint64_t n_constraints, uint64_t n_public);

}  // namespace cuzk::groth16
