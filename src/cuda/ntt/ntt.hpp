// Number-theoretic transforms over a scalar field on the device, and the Groth16 H steps
// built on them: the device counterparts of poly::EvaluationDomain (poly/domain.hpp) and of
// poly::snarkjs_h / poly::bellperson_h (poly/h_poly.hpp), computing the same values.
//
// Elements live in device memory in Montgomery form, natural order in and out. Every call
// is asynchronous on the caller's stream; a domain is read-only after creation except for
// its coset-table cache (below), so one domain may serve several streams at once.
//
// Instantiated for bn254::Fr and bls12_381::Fr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/status.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/pacer.hpp"
#include "cuda/stream.hpp"
#include "ff/roots.hpp"

namespace cuzk::cuda {

struct NttOptions {
  // Elements per tile (one block's shared memory) as a power of two, 6 ..= 11.
  unsigned tile_log = 11;
  // Overlap the bit reversal that ends forward, inverse, coset_forward, coset_inverse and
  // bellperson_h with their last pass (ntt_pass.hpp, overlap_launches) where the plan allows;
  // false runs it after the pass. The results are the same.
  bool overlap_bit_reversal = true;
};

template <class Fr>
class NttDomain {
 public:
  static constexpr unsigned kMaxLog = 28;

  // A domain of 2^log_n elements (1 <= log_n <= min(28, Fr::S)) with the root of `conv`
  // (ff/roots.hpp). Builds its tables on `s` and waits for them.
  static Result<NttDomain> create(unsigned log_n, const Stream& s,
                                  ff::RootConvention conv = ff::RootConvention::kSnarkjs, NttOptions options = {});
  // Device bytes a domain of these options holds: the table of w^i, i < n/2, and the two
  // tables of the snarkjs shift's factors (row tables of at most 2^12 elements where the
  // factor folds into the last two passes, else coset tables). Creation needs one more
  // coset table for a moment.
  static size_t device_bytes(unsigned log_n, NttOptions options = {});
  // Device bytes of one coset table (see coset_forward).
  static size_t coset_table_bytes(unsigned log_n);
  // Scratch device memory snarkjs_h and bellperson_h allocate: none.
  static size_t snarkjs_h_scratch_bytes(unsigned log_n);

  NttDomain(NttDomain&&) noexcept;
  NttDomain& operator=(NttDomain&&) noexcept;
  ~NttDomain();

  unsigned log_size() const;
  size_t size() const;
  ff::RootConvention convention() const;
  const Fr& omega() const;
  // poly::snarkjs_odd_shift: the primitive 2n-th root, or 25 when log_n == Fr::S.
  const Fr& snarkjs_shift() const;

  // In place on n elements at d (16-byte aligned device memory), natural order. These four
  // end in a bit reversal. Given `scratch` (n elements of device memory apart from d, whose
  // contents are overwritten) it rides on the last pass, which reads the scratch and stores
  // every element at its place in d: no bit-reversal kernel. Without, it runs beside the last
  // pass (NttOptions::overlap_bit_reversal) or after it.
  // Coefficients -> evaluations at w^i.
  Status forward(Fr* d, const Stream& s, Fr* scratch = nullptr) const;
  // Evaluations at w^i -> coefficients.
  Status inverse(Fr* d, const Stream& s, Fr* scratch = nullptr) const;
  // Coefficients -> evaluations at shift * w^i. The first call with a new shift builds a
  // coset table (coset_table_bytes, kept until the domain goes) and waits for it on `s`;
  // snarkjs_shift's table is built at creation.
  Status coset_forward(Fr* d, const Fr& shift, const Stream& s, Fr* scratch = nullptr) const;
  // Evaluations at shift * w^i -> coefficients (a coset table for shift^-1, as above).
  Status coset_inverse(Fr* d, const Fr& shift, const Stream& s, Fr* scratch = nullptr) const;
  // Evaluations at w^i -> evaluations at shift * w^i. When shift^2 = omega (snarkjs_shift
  // below 2^Fr::S) and the plan has two passes or more, the coset factor rides on the last
  // two inverse passes (one product per element instead of two; ntt_pass.hpp, kRowCoset).
  Status shift_evaluations(Fr* d, const Fr& shift, const Stream& s) const;

  // For benchmarks: forward(d) (passes, then the bit reversal) and shift_evaluations(d,
  // snarkjs_shift()) (the inverse DIF passes, then the DIT passes), timed per kernel with
  // events on `s`; waits for them and returns each kernel's milliseconds in launch order.
  // An overlapped last pass and bit reversal count as one kernel (forward's last entry); with
  // `scratch` there is no bit-reversal entry (the last pass stores reversed).
  Result<std::vector<float>> forward_kernel_ms(Fr* d, const Stream& s, Fr* scratch = nullptr) const;
  Result<std::vector<float>> shift_evaluations_kernel_ms(Fr* d, const Stream& s) const;

  struct State;
  const State& state() const { return *state_; }

 private:
  explicit NttDomain(std::unique_ptr<State> st);
  std::unique_ptr<State> state_;
};

// poly::snarkjs_h on the device: p[i] = A(s w^i) * B(s w^i) - C(s w^i) in canonical form,
// s = domain.snarkjs_shift(). a, b, c: n elements each (evaluations on the domain,
// Montgomery form), overwritten. p may be the same memory as a. With `pace`, its boundary
// comes between the six transforms (so paced work can give way within one transform).
template <class Fr>
Status snarkjs_h(const NttDomain<Fr>& d, Fr* a, Fr* b, Fr* c, typename Fr::Int* p, const Stream& s,
                 Pacer* pace = nullptr);

// Scratch device memory snarkjs_h / bellperson_h allocate for a domain of 2^log_n: none
// (the same as NttDomain<Fr>::snarkjs_h_scratch_bytes).
template <class Fr>
size_t snarkjs_h_scratch_bytes(unsigned log_n) {
  return NttDomain<Fr>::snarkjs_h_scratch_bytes(log_n);
}

// poly::bellperson_h on the device: the coefficients of h = (A B - C) / (X^n - 1) into a
// (Montgomery form); b and c are overwritten. `shift` must not be an n-th root of unity.
// The first call with a shift builds two coset tables (see coset_forward).
template <class Fr>
Status bellperson_h(const NttDomain<Fr>& d, Fr* a, Fr* b, Fr* c, const Fr& shift, const Stream& s);

}  // namespace cuzk::cuda
