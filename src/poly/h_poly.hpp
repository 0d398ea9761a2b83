// The Groth16 quotient ("H") step, in the two conventions cuzk's users need.
//
// Both start from a, b, c: the evaluations on the n-domain <omega> of the polynomials
// A, B, C (degree < n) built from the witness, with A·B − C vanishing on the domain.
//
// snarkjs (snarkjs/src/groth16_prove.js, reference/snarkjs-formats.md §4.4): the H points
// of a .zkey are [L^(2n)_{2i+1}(tau)/delta]_1, the Lagrange basis of the 2n-domain at its
// odd points. So the prover needs P = A·B − C itself (not divided by Z) at the odd points
// w2^(2i+1) = w2·omega^i, where w2 is the primitive 2n-th root of the snarkjs convention
// (w2^2 = omega). When log2 n equals the field's 2-adicity no such root exists and snarkjs
// uses the coset shift 25 (ffjavascript's Fr.shift = nqr^2) instead; cuzk does the same.
// The scalars are returned in standard (non-Montgomery) form, ready for the H MSM.
//
// bellperson / supraseal: H points are [tau^i Z(tau)/delta]_1, so the prover needs the
// coefficients of h = (A·B − C)/Z. On a coset g·<omega>, Z(g·omega^i) = g^n − 1 is a
// constant, so h is: coset evaluations of A, B, C, pointwise (a·b − c)/(g^n − 1), then
// a coset inverse transform.
#pragma once

#include <span>
#include <string>

#include "core/status.hpp"
#include "core/thread_pool.hpp"
#include "poly/domain.hpp"

namespace cuzk::poly {

namespace detail {

template <class F>
Status check_sizes(const char* what, const EvaluationDomain<F>& d, size_t a, size_t b, size_t c, size_t out) {
  size_t n = d.size();
  if (a != n || b != n || c != n || out != n) {
    return invalid_argument(std::string("poly: ") + what + ": a, b, c, out have sizes " + std::to_string(a) + ", " +
                            std::to_string(b) + ", " + std::to_string(c) + ", " + std::to_string(out) +
                            ", expected the domain size " + std::to_string(n));
  }
  return Status::ok();
}

}  // namespace detail

// The coset shift snarkjs uses to reach the odd points of the 2n-domain.
template <class F>
F snarkjs_odd_shift(const EvaluationDomain<F>& d) {
  if (d.log_size() < F::S) return ff::two_adic_root<F>(d.log_size() + 1, d.convention());
  return F::from_u64(25);
}

// Converts Montgomery-form elements to canonical integers, in parallel.
template <class F>
void to_canonical(std::span<const F> in, std::span<typename F::Int> out, ThreadPool& pool) {
  pool.parallel_for(
      0, in.size(),
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) out[i] = in[i].to_canonical();
      },
      detail::kMinParallel);
}

// p[i] = A(s·omega^i)·B(s·omega^i) − C(s·omega^i) in standard form, s = snarkjs_odd_shift(d).
// a, b and c are overwritten (used as scratch).
template <class F>
Status snarkjs_h(const EvaluationDomain<F>& d, std::span<F> a, std::span<F> b, std::span<F> c,
                 std::span<typename F::Int> p, ThreadPool& pool) {
  CUZK_RETURN_IF_ERROR(detail::check_sizes("snarkjs H", d, a.size(), b.size(), c.size(), p.size()));
  F shift = snarkjs_odd_shift(d);
  d.shift_evaluations(a, shift, pool);
  d.shift_evaluations(b, shift, pool);
  d.shift_evaluations(c, shift, pool);
  const bool in_lanes = detail::use_lanes<F>();
  pool.parallel_for(
      0, d.size(),
      [&](size_t lo, size_t hi) {
        if constexpr (lanes::kSupported<F>) {
          if (in_lanes) {
            lanes::mul_sub_canonical_run(a.data() + lo, b.data() + lo, c.data() + lo, hi - lo, p.data() + lo);
            return;
          }
        }
        for (size_t i = lo; i < hi; ++i) p[i] = (a[i] * b[i] - c[i]).to_canonical();
      },
      detail::kMinParallel);
  return Status::ok();
}

// The coefficients of h = (A·B − C)/Z, Z = X^n − 1, written into a (Montgomery form; h has
// degree <= n − 2, so a[n−1] comes out 0 for consistent inputs). `shift` must not be an
// n-th root of unity (bellperson uses the field's multiplicative generator). b and c are
// overwritten.
template <class F>
Status bellperson_h(const EvaluationDomain<F>& d, std::span<F> a, std::span<F> b, std::span<F> c, const F& shift,
                    ThreadPool& pool) {
  CUZK_RETURN_IF_ERROR(detail::check_sizes("bellperson H", d, a.size(), b.size(), c.size(), d.size()));
  F z = shift.pow(uint64_t(d.size())) - F::one();
  if (z.is_zero()) return invalid_argument("poly: bellperson H: the coset shift is an n-th root of unity");
  d.shift_evaluations(a, shift, pool);
  d.shift_evaluations(b, shift, pool);
  d.shift_evaluations(c, shift, pool);
  const bool in_lanes = detail::use_lanes<F>();
  pool.parallel_for(
      0, d.size(),
      [&](size_t lo, size_t hi) {
        if constexpr (lanes::kSupported<F>) {
          if (in_lanes) {
            lanes::mul_sub_run(a.data() + lo, b.data() + lo, c.data() + lo, hi - lo, a.data() + lo);
            return;
          }
        }
        for (size_t i = lo; i < hi; ++i) a[i] = a[i] * b[i] - c[i];
      },
      detail::kMinParallel);
  // 1/Z folds into the inverse transform's 1/n scaling.
  d.coset_intt_scaled(a, shift, z.inverse(), pool);
  return Status::ok();
}

}  // namespace cuzk::poly
