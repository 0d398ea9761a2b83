// Host/device annotations shared by every layer that is compiled by both g++ and nvcc.
#pragma once

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__
#define CUZK_INLINE __host__ __device__ __forceinline__
#else
#define CUZK_HD
#define CUZK_INLINE inline __attribute__((always_inline))
#endif

#if defined(__CUDACC__)
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_UNROLL _Pragma("GCC unroll 16")
#endif
