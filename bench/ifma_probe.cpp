// A probe for the next step of the CPU MSM, not used by the prover: how fast is a BN254 Fq
// Montgomery product done eight lanes at a time with AVX-512 IFMA (vpmadd52lo/hi), five
// 52-bit limbs and R = 2^260, against cuzk's scalar mulx/adx product? The batched affine
// additions of the MSM are independent across a batch, so they could run in such lanes.
//
// Checks every lane against the scalar field (a·b·2^-260 mod p), then times four independent
// chains of each kind. Exit status 0 when the lanes are right (or the CPU lacks IFMA: then it
// says so and times nothing). Usage: ifma_probe [iterations] (default 2000000).
#include <immintrin.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "ff/fields.hpp"

namespace {

using cuzk::bn254::Fq;
constexpr int kLimbs = 5;
constexpr uint64_t kMask52 = (uint64_t(1) << 52) - 1;

// Limb j of eight field elements.
struct Lanes {
  __m512i limb[kLimbs];
};

struct Modulus52 {
  uint64_t p[kLimbs];
  uint64_t neg_inv;  // -p^-1 mod 2^52
};

void to_limbs52(const cuzk::ff::BigInt<4>& x, uint64_t out[kLimbs]) {
  unsigned __int128 acc = 0;
  int bits = 0, next = 0;
  for (int k = 0; k < kLimbs; ++k) {
    if (bits < 52 && next < 4) {
      acc |= static_cast<unsigned __int128>(x.limb[next++]) << bits;
      bits += 64;
    }
    out[k] = static_cast<uint64_t>(acc) & kMask52;
    acc >>= 52;
    bits -= 52;
  }
}

cuzk::ff::BigInt<4> from_limbs52(const uint64_t in[kLimbs]) {
  cuzk::ff::BigInt<4> r{};
  unsigned __int128 acc = 0;
  int bits = 0, next = 0;
  for (int k = 0; k < kLimbs; ++k) {
    acc |= static_cast<unsigned __int128>(in[k]) << bits;
    bits += 52;
    while (bits >= 64 && next < 4) {
      r.limb[next++] = static_cast<uint64_t>(acc);
      acc >>= 64;
      bits -= 64;
    }
  }
  if (next < 4) r.limb[next] = static_cast<uint64_t>(acc);
  return r;
}

// a·b·2^-260 mod p per lane, operand scanning; inputs < 2p give an output < 2p (4p < 2^260),
// so products chain without a final subtraction.
__attribute__((target("avx512f,avx512ifma"))) Lanes mont_mul(const Lanes& a, const Lanes& b, const Modulus52& m) {
  const __m512i mask = _mm512_set1_epi64(kMask52), zero = _mm512_setzero_si512();
  const __m512i neg_inv = _mm512_set1_epi64(m.neg_inv);
  __m512i t[kLimbs + 1];
  for (auto& v : t) v = zero;
  for (int i = 0; i < kLimbs; ++i) {
    for (int j = 0; j < kLimbs; ++j) {
      t[j] = _mm512_madd52lo_epu64(t[j], a.limb[j], b.limb[i]);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.limb[j], b.limb[i]);
    }
    const __m512i q = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t[0], neg_inv), mask);
    for (int j = 0; j < kLimbs; ++j) {
      const __m512i pj = _mm512_set1_epi64(m.p[j]);
      t[j] = _mm512_madd52lo_epu64(t[j], q, pj);
      t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], q, pj);
    }
    const __m512i carry = _mm512_maskz_srli_epi64(0xff, t[0], 52);  // t[0] = 0 mod 2^52 now; maskz: gcc 12 warns in plain srli
    for (int j = 0; j < kLimbs; ++j) t[j] = t[j + 1];
    t[0] = _mm512_add_epi64(t[0], carry);
    t[kLimbs] = zero;
  }
  Lanes r;
  __m512i carry = zero;
  for (int j = 0; j < kLimbs; ++j) {
    const __m512i v = _mm512_add_epi64(t[j], carry);
    r.limb[j] = _mm512_and_si512(v, mask);
    carry = _mm512_maskz_srli_epi64(0xff, v, 52);
  }
  return r;
}

__attribute__((target("avx512f,avx512ifma"))) int run(long iterations) {
  Modulus52 m;
  to_limbs52(Fq::MODULUS, m.p);
  uint64_t inv = 1;
  for (int i = 0; i < 6; ++i) inv *= 2 - m.p[0] * inv;  // p^-1 mod 2^64 (Newton)
  m.neg_inv = (0 - inv) & kMask52;

  std::mt19937_64 rng(5);
  Fq fa[8], fb[8];
  alignas(64) uint64_t la[kLimbs][8], lb[kLimbs][8], lr[kLimbs][8];
  for (int k = 0; k < 8; ++k) {
    fa[k] = Fq::random(rng);
    fb[k] = Fq::random(rng);
    uint64_t x[kLimbs], y[kLimbs];
    to_limbs52(fa[k].to_canonical(), x);
    to_limbs52(fb[k].to_canonical(), y);
    for (int j = 0; j < kLimbs; ++j) {
      la[j][k] = x[j];
      lb[j][k] = y[j];
    }
  }
  Lanes a, b;
  for (int j = 0; j < kLimbs; ++j) {
    a.limb[j] = _mm512_load_si512(la[j]);
    b.limb[j] = _mm512_load_si512(lb[j]);
  }
  const Lanes r = mont_mul(a, b, m);
  for (int j = 0; j < kLimbs; ++j) _mm512_store_si512(lr[j], r.limb[j]);
  Fq two_260 = Fq::one();
  for (int i = 0; i < 260; ++i) two_260 = two_260 + two_260;
  const Fq r_inv = two_260.inverse();
  int right = 0;
  for (int k = 0; k < 8; ++k) {
    uint64_t z[kLimbs];
    for (int j = 0; j < kLimbs; ++j) z[j] = lr[j][k];
    cuzk::ff::BigInt<4> got = from_limbs52(z);
    if (!got.less_than(Fq::MODULUS)) got.sub_in_place(Fq::MODULUS);
    right += Fq::from_canonical(got) == fa[k] * fb[k] * r_inv;
  }
  std::printf("lanes right: %d of 8\n", right);
  if (right != 8) return 1;

  Lanes x[4] = {a, b, a, b};
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i) {
    for (auto& v : x) v = mont_mul(v, b, m);
  }
  const double ifma = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Fq y[4] = {fa[0], fa[1], fa[2], fa[3]};
  t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < 8 * iterations; ++i) {
    for (auto& v : y) v = v * fb[0];
  }
  const double scalar = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t sink = 0;
  for (int c = 0; c < 4; ++c) {
    alignas(64) uint64_t lane[8];
    _mm512_store_si512(lane, x[c].limb[0]);
    sink ^= lane[0] ^ y[c].mont().limb[0];
  }
  const double products = 32.0 * double(iterations);
  std::printf("BN254 Fq product, 4 independent chains, %.0f products each way (checksum %016llx)\n", products,
              static_cast<unsigned long long>(sink));
  std::printf("  AVX-512 IFMA, 8 lanes: %.2f ns per product\n", ifma / products * 1e9);
  std::printf("  scalar mulx/adx:       %.2f ns per product\n", scalar / products * 1e9);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 2000000;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512ifma")) {
    std::printf("this CPU has no AVX-512 IFMA; nothing to time\n");
    return 0;
  }
  return run(iterations);
}
