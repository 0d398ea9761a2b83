// The dev setup split in two (groth16/setup.hpp): the scalars of a key (dev_key_scalars),
// then its points (scalars times a generator, wherever a backend computes them). With
// fixed toxic waste the key is reproducible, and every point of the written .zkey is its
// scalar times the generator; a key held elsewhere (formats::Zkey::held_elsewhere) has no
// host points, checks its parts, and the CPU backend refuses it clearly.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "ec/jacobian.hpp"
#include "formats/zkey.hpp"
#include "groth16/demo_circuit.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "scratch_dir.hpp"

namespace cuzk::groth16 {
namespace {

template <class C>
class DevKeyScalarsTest : public ::testing::Test {};
using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(DevKeyScalarsTest, Curves);

template <class Fr>
ToxicWaste<Fr> fresh_toxic(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto draw = [&] { return Fr::from_u64(rng()) * Fr::from_u64(rng()) + Fr::from_u64(rng() | 1); };
  return {draw(), draw(), draw(), draw()};
}

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class G>
bool same_point(const ec::Affine<G>& a, const ec::Affine<G>& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <class G>
ec::Affine<G> times_generator(const typename G::Scalar& k) {
  return ec::Jacobian<G>::from_affine(G::generator()).mul(k).to_affine();
}

template <class G>
void check_section(const char* name, const std::vector<typename G::Scalar>& scalars,
                   std::span<const ec::Affine<G>> points) {
  ASSERT_EQ(scalars.size(), points.size()) << name;
  for (size_t i = 0; i < scalars.size(); ++i) {
    ASSERT_TRUE(same_point(times_generator<G>(scalars[i]), points[i])) << name << " point " << i;
  }
}

TYPED_TEST(DevKeyScalarsTest, FixedToxicWasteGivesTheSameKeyFile) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  testing::ScratchDir dir;
  ThreadPool pool(2);
  auto circuit = make_demo_circuit<Fr>(500, 3);
  ASSERT_TRUE(circuit.is_ok());
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("toxic waste seed " + std::to_string(seed));
  const auto tw = fresh_toxic<Fr>(seed);
  ASSERT_TRUE(dev_setup<C>(circuit->r1cs, dir.file("a.zkey"), pool, {}, {}, tw).is_ok());
  ASSERT_TRUE(dev_setup<C>(circuit->r1cs, dir.file("b.zkey"), pool, {}, {}, tw).is_ok());
  ASSERT_TRUE(dev_setup<C>(circuit->r1cs, dir.file("c.zkey"), pool, {}, {}, fresh_toxic<Fr>(seed + 1)).is_ok());
  EXPECT_EQ(file_bytes(dir.file("a.zkey")), file_bytes(dir.file("b.zkey")));
  EXPECT_NE(file_bytes(dir.file("a.zkey")), file_bytes(dir.file("c.zkey")));
}

// Every point the writer stored is its scalar times the generator, section by section, and
// section 4 is the scalars' coefficient bytes exactly.
TYPED_TEST(DevKeyScalarsTest, EveryPointIsItsScalarTimesTheGenerator) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  using G1 = typename C::G1;
  using G2 = typename C::G2;
  testing::ScratchDir dir;
  ThreadPool pool(2);
  auto circuit = make_demo_circuit<Fr>(120, 5);
  ASSERT_TRUE(circuit.is_ok());
  const auto tw = fresh_toxic<Fr>(std::random_device{}());
  ASSERT_TRUE(dev_setup<C>(circuit->r1cs, dir.file("k.zkey"), pool, {}, {}, tw).is_ok());
  auto zkey = formats::Zkey<C>::open(dir.file("k.zkey"));
  ASSERT_TRUE(zkey.is_ok()) << zkey.status().to_string();
  auto k = dev_key_scalars<C>(circuit->r1cs, pool, tw);
  ASSERT_TRUE(k.is_ok()) << k.status().to_string();
  const auto& h = zkey->header();
  EXPECT_EQ(k->n_vars, h.n_vars);
  EXPECT_EQ(k->n_public, h.n_public);
  EXPECT_EQ(k->domain_size, h.domain_size);
  EXPECT_TRUE(same_point(times_generator<G1>(tw.alpha), h.alpha1));
  EXPECT_TRUE(same_point(times_generator<G1>(tw.beta), h.beta1));
  EXPECT_TRUE(same_point(times_generator<G1>(tw.delta), h.delta1));
  EXPECT_TRUE(same_point(times_generator<G2>(tw.beta), h.beta2));
  EXPECT_TRUE(same_point(times_generator<G2>(tw.delta), h.delta2));
  check_section<G1>("A", k->a, zkey->a());
  check_section<G1>("B1", k->b, zkey->b1());
  check_section<G2>("B2", k->b, zkey->b2());
  check_section<G1>("IC", k->ic, zkey->ic());
  check_section<G1>("C", k->c, zkey->c());
  check_section<G1>("H", k->h, zkey->h());
  const auto stored = zkey->coefficients().bytes();
  EXPECT_EQ(std::vector<uint8_t>(stored.begin(), stored.end()), k->coefficients);
}

TYPED_TEST(DevKeyScalarsTest, ToxicWasteWithAZeroIsRejected) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  ThreadPool pool(1);
  auto circuit = make_demo_circuit<Fr>(20, 1);
  ASSERT_TRUE(circuit.is_ok());
  auto tw = fresh_toxic<Fr>(7);
  tw.beta = Fr::zero();
  auto k = dev_key_scalars<C>(circuit->r1cs, pool, tw);
  ASSERT_FALSE(k.is_ok());
  EXPECT_NE(k.status().message().find("toxic waste"), std::string::npos) << k.status().message();
}

// A key whose points live elsewhere: header, IC and coefficients only, each checked.
TYPED_TEST(DevKeyScalarsTest, KeyHeldElsewhereHasNoHostPointsAndTheCpuRefusesIt) {
  using C = TypeParam;
  using Fr = typename C::Fr;
  using G1 = ec::Affine<typename C::G1>;
  testing::ScratchDir dir;
  ThreadPool pool(2);
  auto circuit = make_demo_circuit<Fr>(100, 9);
  ASSERT_TRUE(circuit.is_ok());
  ASSERT_TRUE(dev_setup<C>(circuit->r1cs, dir.file("k.zkey"), pool).is_ok());
  auto file = formats::Zkey<C>::open(dir.file("k.zkey"));
  ASSERT_TRUE(file.is_ok());
  const auto ic = std::vector<G1>(file->ic().begin(), file->ic().end());
  const auto bytes = file->coefficients().bytes();
  const std::vector<uint8_t> coefs(bytes.begin(), bytes.end());

  auto z = formats::Zkey<C>::held_elsewhere("test key", file->header(), ic, coefs);
  ASSERT_TRUE(z.is_ok()) << z.status().to_string();
  EXPECT_FALSE(z->has_points());
  EXPECT_TRUE(file->has_points());
  EXPECT_EQ(z->path(), "test key");
  EXPECT_TRUE(z->a().empty());
  EXPECT_EQ(z->coefficients().size(), file->coefficients().size());
  CpuBackend<C> cpu(pool);
  auto p = Prover<C>::create(*z, cpu, pool);
  ASSERT_FALSE(p.is_ok());
  EXPECT_NE(p.status().message().find("test key"), std::string::npos) << p.status().message();
  EXPECT_NE(p.status().message().find("not in host memory"), std::string::npos) << p.status().message();

  // Bad parts: a coefficient's signal out of range, the IC count, the domain size.
  std::vector<uint8_t> bad = coefs;
  const uint32_t too_big = file->header().n_vars;
  std::memcpy(bad.data() + formats::CoefficientTable<Fr>::kEntryBytes * 2 + 8, &too_big, 4);
  auto e1 = formats::Zkey<C>::held_elsewhere("test key", file->header(), ic, bad);
  ASSERT_FALSE(e1.is_ok());
  EXPECT_NE(e1.status().message().find("entry 2: signal"), std::string::npos) << e1.status().message();
  auto e2 = formats::Zkey<C>::held_elsewhere("test key", file->header(), std::vector<G1>(ic.begin(), ic.end() - 1),
                                             coefs);
  ASSERT_FALSE(e2.is_ok());
  EXPECT_NE(e2.status().message().find("IC points"), std::string::npos) << e2.status().message();
  auto hdr = file->header();
  hdr.domain_size = 3000;
  auto e3 = formats::Zkey<C>::held_elsewhere("test key", hdr, ic, coefs);
  ASSERT_FALSE(e3.is_ok());
  EXPECT_NE(e3.status().message().find("power of two"), std::string::npos) << e3.status().message();
}

// The demo circuit sizes its vectors from a dry run of its shape: exactly, so a large
// circuit is built without a doubled copy of its terms.
TEST(DemoCircuitReserve, CountsAreExact) {
  for (uint32_t n : {4u, 5u, 33u, 34u, 100u, 1000u, (1u << 12) - 5}) {
    auto c = make_demo_circuit<bn254::Fr>(n, n);
    ASSERT_TRUE(c.is_ok());
    EXPECT_EQ(c->r1cs.terms.capacity(), c->r1cs.terms.size()) << n << " constraints";
    EXPECT_EQ(c->r1cs.offsets.capacity(), c->r1cs.offsets.size()) << n << " constraints";
    EXPECT_EQ(c->r1cs.n_constraints, n);
  }
}

}  // namespace
}  // namespace cuzk::groth16
