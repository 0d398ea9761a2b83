// Kernels and launchers behind cuda/arith.hpp. Included only by the arith_*.cu files, each
// of which instantiates the launchers for a few types, so the device build of the types
// is split across translation units that compile in parallel.
#pragma once

#include <string>

#include "cuda/arith.hpp"
#include "cuda/cuda_status.hpp"

namespace cuzk::cuda::arith_detail {

constexpr unsigned kThreads = 256;
constexpr size_t kMaxBlocks = 8192;

inline unsigned blocks_for(size_t n) {
  size_t b = (n + kThreads - 1) / kThreads;
  return unsigned(b < kMaxBlocks ? b : kMaxBlocks);
}

__device__ __forceinline__ size_t first_index() { return size_t(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ size_t index_stride() { return size_t(gridDim.x) * blockDim.x; }

template <class T>
Status need(const DeviceBuffer<T>& b, size_t n, const char* what, const char* fn) {
  if (b.size() >= n) return Status::ok();
  return invalid_argument(std::string(fn) + ": buffer `" + what + "` holds " + std::to_string(b.size()) +
                          " elements, the call needs " + std::to_string(n));
}

template <class F, BinaryOp OP>
__global__ void field_binary_kernel(const F* a, const F* b, F* out, size_t n) {
  for (size_t i = first_index(); i < n; i += index_stride()) {
    if constexpr (OP == BinaryOp::kAdd) out[i] = a[i] + b[i];
    if constexpr (OP == BinaryOp::kSub) out[i] = a[i] - b[i];
    if constexpr (OP == BinaryOp::kMul) out[i] = a[i] * b[i];
  }
}

template <class F, UnaryOp OP>
__global__ void field_unary_kernel(const F* a, F* out, size_t n) {
  for (size_t i = first_index(); i < n; i += index_stride()) {
    if constexpr (OP == UnaryOp::kSquare) out[i] = a[i].square();
    if constexpr (OP == UnaryOp::kInverse) out[i] = a[i].inverse();
  }
}

template <class F>
__global__ void field_sqrt_kernel(const F* a, F* out, uint8_t* ok, size_t n) {
  for (size_t i = first_index(); i < n; i += index_stride()) {
    F r = F::zero();
    bool is_square = a[i].sqrt(r);
    out[i] = is_square ? r : F::zero();
    ok[i] = is_square ? 1 : 0;
  }
}

// Out-of-line point formulas. Every kernel of a point type calls these one copy of each,
// instead of inlining the formulas again at every use: inlined, the scalar multiplication
// alone cost more device compile time than all the other point kernels together.
template <class P>
__device__ __noinline__ P add_out_of_line(const P& a, const P& b) {
  return a + b;
}
template <class P>
__device__ __noinline__ P dbl_out_of_line(const P& a) {
  return a.dbl();
}

template <class P>
__global__ void point_add_kernel(const P* a, const P* b, P* out, size_t n) {
  for (size_t i = first_index(); i < n; i += index_stride()) out[i] = add_out_of_line(a[i], b[i]);
}

template <class P>
__global__ void point_add_mixed_kernel(const P* a, const AffineOf<P>* b, P* out, size_t n) {
  for (size_t i = first_index(); i < n; i += index_stride()) out[i] = a[i] + b[i];
}

template <class P>
__global__ void point_dbl_kernel(const P* a, P* out, size_t n) {
  for (size_t i = first_index(); i < n; i += index_stride()) out[i] = dbl_out_of_line(a[i]);
}

template <class P>
__global__ void point_mul_u64_kernel(const P* a, const uint64_t* k, P* out, size_t n) {
  for (size_t i = first_index(); i < n; i += index_stride()) {
    // Most-significant-bit-first double-and-add over the out-of-line formulas.
    P acc = P::infinity();
    const P p = a[i];
    const uint64_t e = k[i];
    for (int bit = 63; bit >= 0; --bit) {
      acc = dbl_out_of_line(acc);
      if ((e >> bit) & 1) acc = add_out_of_line(acc, p);
    }
    out[i] = acc;
  }
}

}  // namespace cuzk::cuda::arith_detail

namespace cuzk::cuda {

template <class F>
Status field_binary(BinaryOp op, const DeviceBuffer<F>& a, const DeviceBuffer<F>& b, DeviceBuffer<F>& out, size_t n,
                    const Stream& s) {
  using namespace arith_detail;
  CUZK_RETURN_IF_ERROR(need(a, n, "a", "field_binary"));
  CUZK_RETURN_IF_ERROR(need(b, n, "b", "field_binary"));
  CUZK_RETURN_IF_ERROR(need(out, n, "out", "field_binary"));
  if (n == 0) return Status::ok();
  switch (op) {
    case BinaryOp::kAdd:
      field_binary_kernel<F, BinaryOp::kAdd><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), b.data(), out.data(), n);
      break;
    case BinaryOp::kSub:
      field_binary_kernel<F, BinaryOp::kSub><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), b.data(), out.data(), n);
      break;
    case BinaryOp::kMul:
      field_binary_kernel<F, BinaryOp::kMul><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), b.data(), out.data(), n);
      break;
  }
  return check_launch("field_binary_kernel");
}

template <class F>
Status field_unary(UnaryOp op, const DeviceBuffer<F>& a, DeviceBuffer<F>& out, size_t n, const Stream& s) {
  using namespace arith_detail;
  CUZK_RETURN_IF_ERROR(need(a, n, "a", "field_unary"));
  CUZK_RETURN_IF_ERROR(need(out, n, "out", "field_unary"));
  switch (op) {
    case UnaryOp::kSquare:
      if constexpr (DeviceFieldOps<F>::kSquare) {
        if (n == 0) return Status::ok();
        field_unary_kernel<F, UnaryOp::kSquare><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), out.data(), n);
      } else {
        return failed_precondition("field_unary: square is not built for the device for this field");
      }
      break;
    case UnaryOp::kInverse:
      if constexpr (DeviceFieldOps<F>::kInverse) {
        if (n == 0) return Status::ok();
        field_unary_kernel<F, UnaryOp::kInverse><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), out.data(), n);
      } else {
        return failed_precondition("field_unary: inverse is not built for the device for this field");
      }
      break;
  }
  return check_launch("field_unary_kernel");
}

template <class F>
Status field_sqrt(const DeviceBuffer<F>& a, DeviceBuffer<F>& out, DeviceBuffer<uint8_t>& ok, size_t n,
                  const Stream& s) {
  using namespace arith_detail;
  if constexpr (!DeviceFieldOps<F>::kSqrt) {
    return failed_precondition("field_sqrt: square root is not built for the device for this field");
  } else {
    CUZK_RETURN_IF_ERROR(need(a, n, "a", "field_sqrt"));
    CUZK_RETURN_IF_ERROR(need(out, n, "out", "field_sqrt"));
    CUZK_RETURN_IF_ERROR(need(ok, n, "ok", "field_sqrt"));
    if (n == 0) return Status::ok();
    field_sqrt_kernel<F><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), out.data(), ok.data(), n);
    return check_launch("field_sqrt_kernel");
  }
}

template <class P>
Status point_add(const DeviceBuffer<P>& a, const DeviceBuffer<P>& b, DeviceBuffer<P>& out, size_t n,
                 const Stream& s) {
  using namespace arith_detail;
  CUZK_RETURN_IF_ERROR(need(a, n, "a", "point_add"));
  CUZK_RETURN_IF_ERROR(need(b, n, "b", "point_add"));
  CUZK_RETURN_IF_ERROR(need(out, n, "out", "point_add"));
  if (n == 0) return Status::ok();
  point_add_kernel<P><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), b.data(), out.data(), n);
  return check_launch("point_add_kernel");
}

template <class P>
Status point_add_mixed(const DeviceBuffer<P>& a, const DeviceBuffer<AffineOf<P>>& b, DeviceBuffer<P>& out, size_t n,
                       const Stream& s) {
  using namespace arith_detail;
  CUZK_RETURN_IF_ERROR(need(a, n, "a", "point_add_mixed"));
  CUZK_RETURN_IF_ERROR(need(b, n, "b", "point_add_mixed"));
  CUZK_RETURN_IF_ERROR(need(out, n, "out", "point_add_mixed"));
  if (n == 0) return Status::ok();
  point_add_mixed_kernel<P><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), b.data(), out.data(), n);
  return check_launch("point_add_mixed_kernel");
}

template <class P>
Status point_dbl(const DeviceBuffer<P>& a, DeviceBuffer<P>& out, size_t n, const Stream& s) {
  using namespace arith_detail;
  CUZK_RETURN_IF_ERROR(need(a, n, "a", "point_dbl"));
  CUZK_RETURN_IF_ERROR(need(out, n, "out", "point_dbl"));
  if (n == 0) return Status::ok();
  point_dbl_kernel<P><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), out.data(), n);
  return check_launch("point_dbl_kernel");
}

template <class P>
Status point_mul_u64(const DeviceBuffer<P>& a, const DeviceBuffer<uint64_t>& k, DeviceBuffer<P>& out, size_t n,
                     const Stream& s) {
  using namespace arith_detail;
  CUZK_RETURN_IF_ERROR(need(a, n, "a", "point_mul_u64"));
  CUZK_RETURN_IF_ERROR(need(k, n, "k", "point_mul_u64"));
  CUZK_RETURN_IF_ERROR(need(out, n, "out", "point_mul_u64"));
  if (n == 0) return Status::ok();
  point_mul_u64_kernel<P><<<blocks_for(n), kThreads, 0, s.get()>>>(a.data(), k.data(), out.data(), n);
  return check_launch("point_mul_u64_kernel");
}

}  // namespace cuzk::cuda

// Explicit instantiations, used by the arith_*.cu files.
#define CUZK_INSTANTIATE_FIELD_OPS(F)                                                                              \
  template ::cuzk::Status cuzk::cuda::field_binary<F>(cuzk::cuda::BinaryOp, const cuzk::cuda::DeviceBuffer<F>&,     \
                                                      const cuzk::cuda::DeviceBuffer<F>&, cuzk::cuda::DeviceBuffer<F>&, \
                                                      size_t, const cuzk::cuda::Stream&);                           \
  template ::cuzk::Status cuzk::cuda::field_unary<F>(cuzk::cuda::UnaryOp, const cuzk::cuda::DeviceBuffer<F>&,       \
                                                     cuzk::cuda::DeviceBuffer<F>&, size_t, const cuzk::cuda::Stream&); \
  template ::cuzk::Status cuzk::cuda::field_sqrt<F>(const cuzk::cuda::DeviceBuffer<F>&, cuzk::cuda::DeviceBuffer<F>&, \
                                                    cuzk::cuda::DeviceBuffer<uint8_t>&, size_t,                     \
                                                    const cuzk::cuda::Stream&)

#define CUZK_INSTANTIATE_POINT_OPS(P)                                                                              \
  template ::cuzk::Status cuzk::cuda::point_add<P>(const cuzk::cuda::DeviceBuffer<P>&,                             \
                                                   const cuzk::cuda::DeviceBuffer<P>&, cuzk::cuda::DeviceBuffer<P>&, \
                                                   size_t, const cuzk::cuda::Stream&);                             \
  template ::cuzk::Status cuzk::cuda::point_add_mixed<P>(                                                          \
      const cuzk::cuda::DeviceBuffer<P>&, const cuzk::cuda::DeviceBuffer<cuzk::cuda::AffineOf<P>>&,                \
      cuzk::cuda::DeviceBuffer<P>&, size_t, const cuzk::cuda::Stream&);                                            \
  template ::cuzk::Status cuzk::cuda::point_dbl<P>(const cuzk::cuda::DeviceBuffer<P>&, cuzk::cuda::DeviceBuffer<P>&, \
                                                   size_t, const cuzk::cuda::Stream&);                             \
  template ::cuzk::Status cuzk::cuda::point_mul_u64<P>(const cuzk::cuda::DeviceBuffer<P>&,                         \
                                                       const cuzk::cuda::DeviceBuffer<uint64_t>&,                  \
                                                       cuzk::cuda::DeviceBuffer<P>&, size_t, const cuzk::cuda::Stream&)
