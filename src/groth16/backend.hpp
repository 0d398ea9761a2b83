// The compute backend behind the prover: the multi-scalar multiplications and the H
// polynomial. The prover is written against this interface only; the CPU backend lives
// here, a CUDA backend implements the same calls.
#pragma once

#include <span>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "ec/points.hpp"
#include "ff/cpu_lanes.hpp"
#include "msm/pippenger.hpp"
#include "poly/domain.hpp"
#include "poly/h_poly.hpp"

namespace cuzk::groth16 {

template <class C>
class Backend {
 public:
  using Fr = typename C::Fr;
  using Scalar = typename Fr::Int;  // canonical (standard-form) scalars, < r
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;

  virtual ~Backend() = default;
  virtual const char* name() const = 0;

  // sum_i scalars[i]·bases[i]; the spans have equal length.
  virtual Result<ec::Jacobian<typename C::G1>> msm_g1(std::span<const G1> bases, std::span<const Scalar> scalars) = 0;
  virtual Result<ec::Jacobian<typename C::G2>> msm_g2(std::span<const G2> bases, std::span<const Scalar> scalars) = 0;

  // The snarkjs H scalars: p[i] = (A·B − C)(w2·omega^i) in standard form, from the domain
  // evaluations a, b, c (Montgomery form; overwritten). See poly/h_poly.hpp.
  virtual Status h_poly(const poly::EvaluationDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                        std::span<Scalar> p) = 0;
};

template <class C>
class CpuBackend final : public Backend<C> {
 public:
  using typename Backend<C>::Fr;
  using typename Backend<C>::Scalar;
  using typename Backend<C>::G1;
  using typename Backend<C>::G2;

  explicit CpuBackend(ThreadPool& pool) : pool_(pool) {}
  // Says whether the MSM and NTT run their AVX-512 IFMA lanes (ff/cpu_lanes.hpp).
  const char* name() const override { return ff::lanes::enabled() ? "cpu (AVX-512 IFMA lanes)" : "cpu"; }

  Result<ec::Jacobian<typename C::G1>> msm_g1(std::span<const G1> bases, std::span<const Scalar> scalars) override {
    if (bases.size() != scalars.size()) return size_mismatch("G1", bases.size(), scalars.size());
    return msm::msm<typename C::G1>(bases, scalars, pool_);
  }
  Result<ec::Jacobian<typename C::G2>> msm_g2(std::span<const G2> bases, std::span<const Scalar> scalars) override {
    if (bases.size() != scalars.size()) return size_mismatch("G2", bases.size(), scalars.size());
    return msm::msm<typename C::G2>(bases, scalars, pool_);
  }
  Status h_poly(const poly::EvaluationDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                std::span<Scalar> p) override {
    return poly::snarkjs_h(domain, a, b, c, p, pool_);
  }

 private:
  static Status size_mismatch(const char* group, size_t bases, size_t scalars) {
    return invalid_argument(std::string("cpu backend: ") + group + " MSM with " + std::to_string(bases) +
                            " bases but " + std::to_string(scalars) + " scalars");
  }

  ThreadPool& pool_;
};

}  // namespace cuzk::groth16
