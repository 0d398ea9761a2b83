// cuzk against @noble/curves: every vector gen_vectors.mjs wrote must come out of our
// code as the same text, token for token.
#include <gtest/gtest.h>

#include <string>

#include "ec/curves.hpp"
#include "interop/noble_vectors.hpp"

namespace cuzk::interop {
namespace {

std::vector<Vector> vectors_for(const char* curve, const char* group, const char* op) {
  const VectorFile& file = VectorFile::get();
  EXPECT_EQ(file.error(), "");
  auto vs = file.select(curve, group, op);
  // An empty selection would let every check below pass vacuously.
  EXPECT_FALSE(vs.empty()) << "no `" << curve << " " << group << " " << op << "` vectors in " << file.path();
  return vs;
}

template <class A, class Fn>
void check_unary(const char* curve, const char* group, const char* op, Fn fn) {
  for (const Vector& v : vectors_for(curve, group, op)) {
    size_t pos = 0;
    A a;
    ASSERT_TRUE(get(v.args, pos, a) && pos == v.args.size()) << where(v);
    EXPECT_EQ(text(fn(a)), v.results) << where(v) << ": " << group << " " << op;
  }
}

template <class A, class B, class Fn>
void check_binary(const char* curve, const char* group, const char* op, Fn fn) {
  for (const Vector& v : vectors_for(curve, group, op)) {
    size_t pos = 0;
    A a;
    B b;
    ASSERT_TRUE(get(v.args, pos, a) && get(v.args, pos, b) && pos == v.args.size()) << where(v);
    EXPECT_EQ(text(fn(a, b)), v.results) << where(v) << ": " << group << " " << op;
  }
}

// Which of the two roots a sqrt returns is unspecified, so either sign matches; a
// non-square ("none") must be refused.
template <class F>
void check_sqrt(const char* curve, const char* group) {
  size_t squares = 0, non_squares = 0;
  for (const Vector& v : vectors_for(curve, group, "sqrt")) {
    size_t pos = 0;
    F a;
    ASSERT_TRUE(get(v.args, pos, a)) << where(v);
    F root;
    bool found = a.sqrt(root);
    if (v.results == Tokens{"none"}) {
      ++non_squares;
      EXPECT_FALSE(found) << where(v) << ": " << group << " sqrt of a non-square";
      continue;
    }
    ++squares;
    ASSERT_TRUE(found) << where(v) << ": " << group << " sqrt of a square";
    EXPECT_TRUE(text(root) == v.results || text(-root) == v.results) << where(v) << ": " << group << " sqrt";
  }
  EXPECT_GT(squares, 0u);
  EXPECT_GT(non_squares, 0u);
}

template <class F>
void check_prime_field(const char* curve, const char* group) {
  check_binary<F, F>(curve, group, "add", [](const F& a, const F& b) { return a + b; });
  check_binary<F, F>(curve, group, "sub", [](const F& a, const F& b) { return a - b; });
  check_binary<F, F>(curve, group, "mul", [](const F& a, const F& b) { return a * b; });
  check_unary<F>(curve, group, "neg", [](const F& a) { return -a; });
  check_unary<F>(curve, group, "square", [](const F& a) { return a.square(); });
  check_unary<F>(curve, group, "inv", [](const F& a) { return a.inverse(); });
  check_sqrt<F>(curve, group);
}

template <class C>
class NobleVectors : public ::testing::Test {};

struct CurveNames {
  template <class C>
  static std::string GetName(int) {
    return C::NAME;
  }
};
using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(NobleVectors, Curves, CurveNames);

TEST(NobleVectorFile, IsPresentAndWellFormed) {
  const VectorFile& file = VectorFile::get();
  EXPECT_EQ(file.error(), "");
}

TYPED_TEST(NobleVectors, FqArithmeticMatches) {
  check_prime_field<typename TypeParam::Fq>(TypeParam::NAME, "Fq");
}

TYPED_TEST(NobleVectors, FrArithmeticMatches) {
  check_prime_field<typename TypeParam::Fr>(TypeParam::NAME, "Fr");
}

TYPED_TEST(NobleVectors, Fq2ArithmeticMatches) {
  using F2 = typename TypeParam::Fq2;
  const char* c = TypeParam::NAME;
  check_binary<F2, F2>(c, "Fq2", "mul", [](const F2& a, const F2& b) { return a * b; });
  check_unary<F2>(c, "Fq2", "square", [](const F2& a) { return a.square(); });
  check_unary<F2>(c, "Fq2", "inv", [](const F2& a) { return a.inverse(); });
  check_sqrt<F2>(c, "Fq2");
}

// Same tower (Fq6 = Fq2[v]/(v^3 - xi), Fq12 = Fq6[w]/(w^2 - v)) as noble, so the twelve
// coefficients must agree one by one.
TYPED_TEST(NobleVectors, Fq12ArithmeticMatches) {
  using F12 = typename TypeParam::Fq12;
  const char* c = TypeParam::NAME;
  check_binary<F12, F12>(c, "Fq12", "mul", [](const F12& a, const F12& b) { return a * b; });
  check_unary<F12>(c, "Fq12", "square", [](const F12& a) { return a.square(); });
  check_unary<F12>(c, "Fq12", "inv", [](const F12& a) { return a.inverse(); });
}

}  // namespace
}  // namespace cuzk::interop
