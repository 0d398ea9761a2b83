// Element-wise field and curve arithmetic on device buffers: out[i] = op(a[i], b[i]).
//
// These are the device builds of the same ff/ and ec/ templates the host runs, one kernel
// per (type, operation). They exist so that every field and point type is compiled for
// the device in every build (device compatibility cannot rot unnoticed) and so that tests
// can compare device results with host results element by element.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/status.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/stream.hpp"
#include "ec/curves.hpp"
#include "ff/fields.hpp"

namespace cuzk::cuda {

enum class BinaryOp { kAdd, kSub, kMul };
enum class UnaryOp { kSquare, kInverse };
const char* op_name(BinaryOp op);
const char* op_name(UnaryOp op);

// Which operations are built for the device. The Fq6 and Fq12 towers get add, sub and mul
// only: they are here to keep the tower compiling for the device, and each further tower
// kernel costs about a minute of device compile time per curve.
template <class F>
struct DeviceFieldOps {
  static constexpr bool kSquare = true;
  static constexpr bool kInverse = true;
  static constexpr bool kSqrt = true;
};
template <class Cfg>
struct DeviceFieldOps<ff::Fp6<Cfg>> {
  static constexpr bool kSquare = false;
  static constexpr bool kInverse = false;
  static constexpr bool kSqrt = false;
};
template <class Cfg>
struct DeviceFieldOps<ff::Fp12<Cfg>> {
  static constexpr bool kSquare = false;
  static constexpr bool kInverse = false;
  static constexpr bool kSqrt = false;
};

// Instantiated for bn254::{Fq, Fr, Fq2, Fq6, Fq12} and bls12_381::{Fq, Fr, Fq2, Fq6, Fq12}.
// Every call is asynchronous on `s` and checks that each buffer holds at least n elements.
template <class F>
Status field_binary(BinaryOp op, const DeviceBuffer<F>& a, const DeviceBuffer<F>& b, DeviceBuffer<F>& out, size_t n,
                    const Stream& s);
// kInverse maps 0 to 0. Fails with kFailedPrecondition where DeviceFieldOps<F> excludes the op.
template <class F>
Status field_unary(UnaryOp op, const DeviceBuffer<F>& a, DeviceBuffer<F>& out, size_t n, const Stream& s);
// ok[i] = 1 and out[i] = a root of a[i] when a[i] is a square; ok[i] = 0 (out[i] = 0) when not.
template <class F>
Status field_sqrt(const DeviceBuffer<F>& a, DeviceBuffer<F>& out, DeviceBuffer<uint8_t>& ok, size_t n,
                  const Stream& s);

// P is a projective point type of ec/ (ec::Jacobian<C>, ec::XYZZ<C>) for the G1 and G2
// configs of both curves.
template <class P>
using AffineOf = ec::Affine<typename P::Curve>;

template <class P>
Status point_add(const DeviceBuffer<P>& a, const DeviceBuffer<P>& b, DeviceBuffer<P>& out, size_t n,
                 const Stream& s);
template <class P>
Status point_add_mixed(const DeviceBuffer<P>& a, const DeviceBuffer<AffineOf<P>>& b, DeviceBuffer<P>& out, size_t n,
                       const Stream& s);
template <class P>
Status point_dbl(const DeviceBuffer<P>& a, DeviceBuffer<P>& out, size_t n, const Stream& s);
// out[i] = [k[i]] a[i] for 64-bit k[i], by double-and-add: the same point as P::mul, not
// necessarily the same projective coordinates.
template <class P>
Status point_mul_u64(const DeviceBuffer<P>& a, const DeviceBuffer<uint64_t>& k, DeviceBuffer<P>& out, size_t n,
                     const Stream& s);

}  // namespace cuzk::cuda
