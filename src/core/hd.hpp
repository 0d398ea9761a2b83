// Host/device annotations shared by every layer that is compiled by both g++ and nvcc.
#pragma once

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__
#if defined(CUZK_CUDA_CHECK_ONLY)
// A build that only checks the CUDA files compile (CMake CUZK_CUDA_CHECK_ONLY: CI without
// a GPU) leaves inlining to nvcc: cicc then compiles each field and point step once
// instead of into every kernel (ntt_bls12_381.cu 16 -> 3 s of cicc).
#define CUZK_INLINE __host__ __device__ inline
#else
#define CUZK_INLINE __host__ __device__ __forceinline__
#endif
#elif defined(__OPTIMIZE__) && !defined(CUZK_SANITIZE)
#define CUZK_HD
#define CUZK_INLINE inline __attribute__((always_inline))
#else
// Unoptimised host builds do not force inlining: with nothing to optimise it buys no
// speed, and forcing the field tower into every caller made src/pairing/pairing.cpp take
// over 19 CPU-minutes and 14 GB with clang and ASan (under a second without it). The
// sanitizer build (CMake CUZK_SANITIZE, -O1) leaves inlining to the compiler as well: it
// checks the same code for memory and undefined behaviour, and instrumenting every field
// product inlined into every point formula was a fifth of its compile time (docs/TESTING.md,
// "CI time"). The x86 field assembly is still what it runs (ff/fp.hpp needs __OPTIMIZE__).
#define CUZK_HD
#define CUZK_INLINE inline
#endif

#if defined(__CUDACC__)
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_UNROLL _Pragma("GCC unroll 16")
#endif
