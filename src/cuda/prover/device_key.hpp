// The INSECURE dev setup straight into device memory, for benchmarks at sizes whose key
// cannot be written to disk or held on the host: at 2^27 constraints a BLS12-381 key is
// ~77 GB of points (~91 GB as a .zkey), beyond the device machine's 64 GiB disk, and the
// host path (all points in RAM, then the file, then the upload) beyond its 128 GiB of RAM.
//
// The host computes the scalars (groth16::dev_key_scalars: the Lagrange bases at tau, the
// QAP sums, section 4); each point section is then its scalars times a generator, computed
// by the fixed-base kernels (cuda/setup/fixed_base.hpp) into device buffers that become the
// key's resident points (CudaBackend::prepare_with_points). Only the small points (alpha1,
// beta1, delta1, beta2, delta2, IC) are made on the host. With the same toxic waste the
// result is the key dev_setup writes to a .zkey, point for point (tests/cuda/prover).
#pragma once

#include <optional>
#include <string>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "cuda/prover/cuda_backend.hpp"
#include "formats/r1cs.hpp"
#include "formats/zkey.hpp"
#include "groth16/proof.hpp"
#include "groth16/setup.hpp"

namespace cuzk::cuda {

template <class C>
struct DeviceDevKey {
  formats::Zkey<C> zkey;        // header, IC and section 4; no points (Zkey::held_elsewhere)
  DeviceKeyPoints<C> points;    // A, B1, B2, C, H on the current device
  groth16::VerifyingKey<C> vk;  // the key's verification key
  // Seconds: the host's scalars, the G1 and G2 sections on the device, in all.
  double scalars_s = 0, g1_s = 0, g2_s = 0, total_s = 0;
};

// Builds `r1cs`'s dev key on the current device. Every device byte comes from its accounted
// allocator; on failure everything allocated is freed. `label` names the key in messages.
// `toxic` empty: sampled (groth16::sample_toxic_waste).
template <class C>
Result<DeviceDevKey<C>> dev_setup_on_device(const formats::R1cs<typename C::Fr>& r1cs, std::string label,
                                            ThreadPool& pool, const groth16::SetupProgress& progress = {},
                                            const std::optional<groth16::ToxicWaste<typename C::Fr>>& toxic = {});

}  // namespace cuzk::cuda
