// two_adic_root against the values snarkjs uses (shared/reference/snarkjs-formats.md 4.1).
#include <gtest/gtest.h>

#include "ff/decimal.hpp"
#include "ff/fields.hpp"
#include "ff/roots.hpp"

namespace cuzk::ff {
namespace {

template <class F>
F dec(const char* s) {
  F x;
  EXPECT_TRUE(field_from_decimal(s, x)) << s;
  return x;
}

// w has multiplicative order exactly 2^k: w^(2^k) = 1 and w^(2^(k-1)) = -1.
template <class F>
void expect_order(const F& w, size_t k) {
  F x = w;
  for (size_t i = 0; i + 1 < k; ++i) x = x.square();
  EXPECT_EQ(x, -F::one()) << "w^(2^(k-1)) for k = " << k;
  EXPECT_TRUE(x.square().is_one());
}

TEST(Roots, Bn254MatchSnarkjs) {
  using F = bn254::Fr;
  EXPECT_EQ(F::S, 28u);
  F w28 = two_adic_root<F>(28);
  EXPECT_EQ(w28, dec<F>("19103219067921713944291392827692070036145651957329286315305642004821462161904"));
  EXPECT_EQ(two_adic_root<F>(10), dec<F>("3161067157621608152362653341354432744960400845131437947728257924963983317266"));
  EXPECT_EQ(two_adic_root<F>(11), dec<F>("1120550406532664055539694724667294622065367841900378087843176726913374367458"));
  for (size_t k : {1, 10, 11, 28}) expect_order(two_adic_root<F>(k), k);
  EXPECT_TRUE(two_adic_root<F>(0).is_one());
}

TEST(Roots, Bls12381MatchSnarkjs) {
  using F = bls12_381::Fr;
  EXPECT_EQ(F::S, 32u);
  EXPECT_EQ(two_adic_root<F>(32), dec<F>("937917089079007706106976984802249742464848817460758522850752807661925904159"));
  EXPECT_EQ(two_adic_root<F>(10),
            dec<F>("21328829733576761151404230261968752855781179864716879432436835449516750606329"));
  EXPECT_EQ(two_adic_root<F>(11),
            dec<F>("30450688096165933124094588052280452792793350252342406284806180166247113753719"));
  for (size_t k : {1, 10, 11, 32}) expect_order(two_adic_root<F>(k), k);
}

TEST(Roots, Bls12381SevenConventionIsTheOtherRoot) {
  using F = bls12_381::Fr;
  F w7 = two_adic_root<F>(32, RootConvention::kSeven);
  EXPECT_EQ(w7, dec<F>("10238227357739495823651030575849232062558860180284477541189508159991286009131"));
  expect_order(w7, 32);
  EXPECT_NE(w7, two_adic_root<F>(32));
}

}  // namespace
}  // namespace cuzk::ff
