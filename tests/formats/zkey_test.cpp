#include "formats/zkey.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "formats/test_util.hpp"

namespace cuzk::formats {
namespace {

using testing::make_binfile;
using testing::random_point;
using testing::RawSection;
using testing::read_bytes;
using testing::split_binfile;
using testing::write_bytes;

// A synthetic key with random (valid) points: the formats layer checks structure and
// curve membership, not that the points form a consistent Groth16 key.
template <class C>
struct Synthetic {
  using G1 = ec::Affine<typename C::G1>;
  using G2 = ec::Affine<typename C::G2>;
  using Fr = typename C::Fr;
  ZkeyHeader<C> header;
  std::vector<G1> ic, a, b1, c, h;
  std::vector<G2> b2;
  std::vector<ZkeyCoefficient<Fr>> coefs;

  explicit Synthetic(uint32_t n_vars = 9, uint32_t n_public = 2, uint32_t domain = 16, uint64_t seed = 1) {
    std::mt19937_64 rng(seed);
    auto g1 = [&] { return random_point<typename C::G1>(rng); };
    auto g2 = [&] { return random_point<typename C::G2>(rng); };
    header.n_vars = n_vars;
    header.n_public = n_public;
    header.domain_size = domain;
    header.alpha1 = g1();
    header.beta1 = g1();
    header.delta1 = g1();
    header.beta2 = g2();
    header.gamma2 = C::G2::generator();
    header.delta2 = g2();
    for (uint32_t i = 0; i <= n_public; ++i) ic.push_back(g1());
    for (uint32_t i = 0; i < n_vars; ++i) {
      a.push_back(g1());
      b1.push_back(i == 3 ? G1::infinity() : g1());
      b2.push_back(i == 3 ? G2::infinity() : g2());
    }
    for (uint32_t i = n_public + 1; i < n_vars; ++i) c.push_back(g1());
    for (uint32_t i = 0; i < domain; ++i) h.push_back(g1());
    for (uint32_t i = 0; i < 2 * domain; ++i) {
      coefs.push_back({i % 2, uint32_t(rng() % domain), uint32_t(rng() % n_vars), Fr::random(rng)});
    }
  }
  ZkeyContents<C> contents() const {
    ZkeyContents<C> z;
    z.header = header;
    z.ic = ic;
    z.a = a;
    z.b1 = b1;
    z.b2 = b2;
    z.c = c;
    z.h = h;
    z.coefficients = coefs;
    return z;
  }
};

template <class C>
class ZkeyTest : public ::testing::Test {
 protected:
  testing::ScratchDir dir_;
  std::string path_ = dir_.file("circuit.zkey");

  std::string write(const Synthetic<C>& s) {
    Status st = write_zkey<C>(path_, s.contents());
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return path_;
  }
  // Rewrites the file with `edit` applied to its sections.
  template <class F>
  void edit_sections(F edit) {
    auto secs = split_binfile(read_bytes(path_));
    edit(secs);
    write_bytes(path_, make_binfile("zkey", 1, secs));
  }
  static RawSection& find(std::vector<RawSection>& secs, uint32_t id) {
    return *std::find_if(secs.begin(), secs.end(), [&](const RawSection& s) { return s.id == id; });
  }
  std::string error_of_reading() {
    auto z = Zkey<C>::open(path_);
    EXPECT_FALSE(z.is_ok());
    return z.is_ok() ? std::string() : z.status().message();
  }
};

using Curves = ::testing::Types<bn254::Curve, bls12_381::Curve>;
TYPED_TEST_SUITE(ZkeyTest, Curves);

TYPED_TEST(ZkeyTest, WriteThenReadGivesBackEveryField) {
  using C = TypeParam;
  Synthetic<C> s;
  auto z = Zkey<C>::open(this->write(s));
  ASSERT_TRUE(z.is_ok()) << z.status().to_string();
  const auto& h = z->header();
  EXPECT_EQ(h.n_vars, s.header.n_vars);
  EXPECT_EQ(h.n_public, s.header.n_public);
  EXPECT_EQ(h.domain_size, s.header.domain_size);
  EXPECT_EQ(h.alpha1, s.header.alpha1);
  EXPECT_EQ(h.beta1, s.header.beta1);
  EXPECT_EQ(h.beta2, s.header.beta2);
  EXPECT_EQ(h.gamma2, s.header.gamma2);
  EXPECT_EQ(h.delta1, s.header.delta1);
  EXPECT_EQ(h.delta2, s.header.delta2);
  auto same = [](auto span, const auto& vec) { return std::equal(span.begin(), span.end(), vec.begin(), vec.end()); };
  EXPECT_TRUE(same(z->ic(), s.ic));
  EXPECT_TRUE(same(z->a(), s.a));
  EXPECT_TRUE(same(z->b1(), s.b1));
  EXPECT_TRUE(same(z->b2(), s.b2));
  EXPECT_TRUE(same(z->c(), s.c));
  EXPECT_TRUE(same(z->h(), s.h));
  ASSERT_EQ(z->coefficients().size(), s.coefs.size());
  for (size_t i = 0; i < s.coefs.size(); ++i) {
    EXPECT_EQ(z->coefficients()[i].matrix, s.coefs[i].matrix);
    EXPECT_EQ(z->coefficients()[i].constraint, s.coefs[i].constraint);
    EXPECT_EQ(z->coefficients()[i].signal, s.coefs[i].signal);
    EXPECT_EQ(z->coefficients()[i].value, s.coefs[i].value);
  }
  ASSERT_TRUE(z->mpc().has_value());
  EXPECT_EQ(z->mpc()->n_contributions, 0u);
}

TYPED_TEST(ZkeyTest, RewriteIsByteIdentical) {
  using C = TypeParam;
  this->write(Synthetic<C>());
  auto z = Zkey<C>::open(this->path_);
  ASSERT_TRUE(z.is_ok());
  std::string copy = this->dir_.file("copy.zkey");
  ASSERT_TRUE(write_zkey<C>(copy, z->contents()).is_ok());
  EXPECT_EQ(read_bytes(copy), read_bytes(this->path_));
}

// A key opened for one-shot proving reads the same contents, and its coefficient table
// (a view into the mapping) iterates the entries in file order.
TYPED_TEST(ZkeyTest, KeyNotKeptResidentReadsTheSameAndCoefficientsIterateInOrder) {
  using C = TypeParam;
  auto s = Synthetic<C>();
  this->write(s);
  ZkeyReadOptions opts;
  opts.keep_resident = false;
  auto z = Zkey<C>::open(this->path_, opts);
  ASSERT_TRUE(z.is_ok()) << z.status().to_string();
  z->done_with(z->a());
  z->done_with_coefficients();
  EXPECT_EQ(std::vector<ec::Affine<typename C::G1>>(z->a().begin(), z->a().end()), s.a);
  size_t i = 0;
  for (const auto& e : z->coefficients()) {
    ASSERT_LT(i, s.coefs.size());
    EXPECT_EQ(e.signal, s.coefs[i].signal);
    EXPECT_EQ(e.value, s.coefs[i].value);
    ++i;
  }
  EXPECT_EQ(i, s.coefs.size());
  std::string copy = this->dir_.file("copy.zkey");
  ASSERT_TRUE(write_zkey<C>(copy, z->contents()).is_ok());
  EXPECT_EQ(read_bytes(copy), read_bytes(this->path_));
}

TYPED_TEST(ZkeyTest, WriterRejectsTwoSourcesOfCoefficients) {
  using C = TypeParam;
  auto s = Synthetic<C>();
  this->write(s);
  auto z = Zkey<C>::open(this->path_);
  ASSERT_TRUE(z.is_ok());
  ZkeyContents<C> both = z->contents();
  both.coefficients = s.coefs;
  Status st = write_zkey<C>(this->dir_.file("both.zkey"), both);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("both in-memory and stored coefficients"), std::string::npos) << st.message();
}

TYPED_TEST(ZkeyTest, PointTableBorrowsAlignedBytesAndCopiesMisalignedOnes) {
  using P = typename TypeParam::G2;
  using Point = ec::Affine<P>;
  std::mt19937_64 rng(3);
  std::vector<Point> pts = {random_point<P>(rng), Point::infinity(), random_point<P>(rng)};
  // 8-aligned storage, then the same bytes at offset 4 (where binfile sections often land).
  std::vector<uint64_t> buf(pts.size() * sizeof(Point) / 8 + 1);
  auto* base = reinterpret_cast<uint8_t*>(buf.data());
  for (size_t shift : {size_t(0), size_t(4)}) {
    std::memcpy(base + shift, pts.data(), pts.size() * sizeof(Point));
    PointTable<P> t(std::span<const uint8_t>(base + shift, pts.size() * sizeof(Point)));
    EXPECT_EQ(t.borrowed(), shift == 0);
    EXPECT_EQ(reinterpret_cast<const uint8_t*>(t.span().data()) == base + shift, shift == 0);
    ASSERT_EQ(t.size(), pts.size());
    for (size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(t.span()[i], pts[i]);
    PointTable<P> moved = std::move(t);
    for (size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(moved.span()[i], pts[i]);
  }
}

TYPED_TEST(ZkeyTest, ReadsSectionsInSnarkjsSetupOrder) {
  using C = TypeParam;
  Synthetic<C> s;
  this->write(s);
  this->edit_sections([](std::vector<RawSection>& secs) {
    std::vector<RawSection> out;
    for (uint32_t id : {1, 2, 4, 3, 9, 8, 5, 6, 7, 10}) out.push_back(ZkeyTest<TypeParam>::find(secs, id));
    secs = out;
  });
  auto z = Zkey<C>::open(this->path_);
  ASSERT_TRUE(z.is_ok()) << z.status().to_string();
  EXPECT_TRUE(std::equal(z->h().begin(), z->h().end(), s.h.begin(), s.h.end()));
  EXPECT_EQ(z->coefficients().size(), s.coefs.size());
}

TYPED_TEST(ZkeyTest, CoefficientStoredFormTimesRawWitnessIsTheTrueProduct) {
  using Fr = typename TypeParam::Fr;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20; ++i) {
    Fr coef = Fr::random(rng), w = Fr::random(rng);
    ZkeyCoefficient<Fr> e{0, 0, 0, ZkeyCoefficient<Fr>::stored(coef)};
    EXPECT_EQ(e.coefficient(), coef);
    // The witness enters as its standard-form limbs, unconverted.
    Fr raw = Fr::from_mont(w.to_canonical());
    EXPECT_EQ(e.value * raw, coef * w);
  }
}

TYPED_TEST(ZkeyTest, RejectsEveryTruncationWithoutCrashing) {
  using C = TypeParam;
  this->write(Synthetic<C>(5, 1, 4));
  auto full = read_bytes(this->path_);
  for (size_t len = 0; len < full.size(); len += 17) {  // a prime stride lands in every field
    write_bytes(this->path_, std::vector<uint8_t>(full.begin(), full.begin() + long(len)));
    auto z = Zkey<C>::open(this->path_);
    EXPECT_FALSE(z.is_ok()) << "length " << len;
  }
}

TYPED_TEST(ZkeyTest, RejectsKeyOfTheOtherCurve) {
  using C = TypeParam;
  using Other = std::conditional_t<std::is_same_v<C, bn254::Curve>, bls12_381::Curve, bn254::Curve>;
  Synthetic<Other> s;
  ASSERT_TRUE(write_zkey<Other>(this->path_, s.contents()).is_ok());
  std::string msg = this->error_of_reading();
  EXPECT_NE(msg.find("circuit.zkey: section 2 (Groth header): "), std::string::npos) << msg;
  EXPECT_NE(msg.find("wrong curve"), std::string::npos) << msg;
  auto id = detect_curve(this->path_);
  ASSERT_TRUE(id.is_ok());
  constexpr bool kOtherIsBn = std::is_same_v<Other, bn254::Curve>;
  EXPECT_EQ(*id, kOtherIsBn ? CurveId::kBn254 : CurveId::kBls12_381);
}

TYPED_TEST(ZkeyTest, NamesTheHSectionWhoseCountDisagreesWithTheDomain) {
  using C = TypeParam;
  this->write(Synthetic<C>(9, 2, 16));
  this->edit_sections([](std::vector<RawSection>& secs) {
    auto& h = ZkeyTest<TypeParam>::find(secs, zkey_section::kH);
    h.data.resize(h.data.size() / 2);
  });
  EXPECT_EQ(this->error_of_reading(), "circuit.zkey: section 9 (H points) has 8 points, expected 16 (domain size)");
}

TYPED_TEST(ZkeyTest, RejectsPointSectionWithPartialPoint) {
  using C = TypeParam;
  this->write(Synthetic<C>());
  this->edit_sections([](std::vector<RawSection>& secs) { ZkeyTest<TypeParam>::find(secs, zkey_section::kB2).data.push_back(0); });
  std::string msg = this->error_of_reading();
  EXPECT_NE(msg.find("section 7 (B2 points): size"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is not a multiple of the " + std::to_string(sizeof(ec::Affine<typename C::G2>)) +
                     "-byte point size"),
            std::string::npos)
      << msg;
}

TYPED_TEST(ZkeyTest, NamesThePointThatIsOffTheCurve) {
  using C = TypeParam;
  this->write(Synthetic<C>());
  this->edit_sections([](std::vector<RawSection>& secs) {
    auto& a = ZkeyTest<TypeParam>::find(secs, zkey_section::kA);
    a.data[sizeof(ec::Affine<typename C::G1>) * 5 + 3] ^= 1;  // point 5's x
  });
  EXPECT_EQ(this->error_of_reading(), "circuit.zkey: section 5 (A points): point 5 is not on the curve");
}

TYPED_TEST(ZkeyTest, RejectsUnreducedCoordinate) {
  using C = TypeParam;
  using Fq = typename C::Fq;
  this->write(Synthetic<C>());
  this->edit_sections([](std::vector<RawSection>& secs) {
    auto& b2 = ZkeyTest<TypeParam>::find(secs, zkey_section::kB2);
    Fq::write_le(Fq::MODULUS, b2.data.data() + 2 * sizeof(ec::Affine<typename C::G2>) + Fq::BYTES);  // point 2 x.c1
  });
  EXPECT_EQ(this->error_of_reading(),
            "circuit.zkey: section 7 (B2 points): point 2 x coordinate is not reduced below q");
}

TYPED_TEST(ZkeyTest, RejectsBadHeaderPoint) {
  using C = TypeParam;
  this->write(Synthetic<C>());
  this->edit_sections([](std::vector<RawSection>& secs) {
    auto& g = ZkeyTest<TypeParam>::find(secs, zkey_section::kGrothHeader);
    g.data[g.data.size() - 1] ^= 0x01;  // delta_2's y.c1, last byte
  });
  std::string msg = this->error_of_reading();
  EXPECT_EQ(msg.rfind("circuit.zkey: section 2 (Groth header): delta_2 ", 0), 0u) << msg;
}

TYPED_TEST(ZkeyTest, RejectsCoefficientOutsideTheCircuit) {
  using C = TypeParam;
  Synthetic<C> s;
  s.coefs[3].signal = s.header.n_vars;
  this->write(s);
  EXPECT_EQ(this->error_of_reading(), "circuit.zkey: section 4 (coefficients): entry 3: signal 9 is not below nVars 9");
  s = Synthetic<C>();
  s.coefs[1].matrix = 2;
  this->write(s);
  EXPECT_EQ(this->error_of_reading(),
            "circuit.zkey: section 4 (coefficients): entry 1: matrix 2 is not 0 (A) or 1 (B)");
}

TYPED_TEST(ZkeyTest, RejectsCoefficientCountThatDisagreesWithTheSection) {
  using C = TypeParam;
  this->write(Synthetic<C>());
  this->edit_sections([](std::vector<RawSection>& secs) { ZkeyTest<TypeParam>::find(secs, zkey_section::kCoefficients).data[0] += 1; });
  std::string msg = this->error_of_reading();
  EXPECT_NE(msg.find("section 4 (coefficients): nCoef 33 needs"), std::string::npos) << msg;
}

TYPED_TEST(ZkeyTest, RejectsPlonkKeys) {
  using C = TypeParam;
  this->write(Synthetic<C>());
  this->edit_sections([](std::vector<RawSection>& secs) { ZkeyTest<TypeParam>::find(secs, zkey_section::kHeader).data[0] = 2; });
  EXPECT_EQ(this->error_of_reading(),
            "circuit.zkey: section 1 (header): protocol 2 (PLONK) is not supported, only 1 (Groth16)");
}

TYPED_TEST(ZkeyTest, NamesAMissingSection) {
  using C = TypeParam;
  this->write(Synthetic<C>());
  this->edit_sections([](std::vector<RawSection>& secs) {
    secs.erase(std::find_if(secs.begin(), secs.end(), [](auto& s) { return s.id == zkey_section::kB2; }));
  });
  EXPECT_EQ(this->error_of_reading(), "circuit.zkey: missing section 7 (B2 points)");
}

TYPED_TEST(ZkeyTest, ReadsKeyWithoutMpcSection) {
  using C = TypeParam;
  this->write(Synthetic<C>());
  this->edit_sections([](std::vector<RawSection>& secs) { secs.pop_back(); });
  auto z = Zkey<C>::open(this->path_);
  ASSERT_TRUE(z.is_ok()) << z.status().to_string();
  EXPECT_FALSE(z->mpc().has_value());
}

TYPED_TEST(ZkeyTest, RejectsMpcSectionWithTruncatedContribution) {
  using C = TypeParam;
  this->write(Synthetic<C>());
  this->edit_sections([](std::vector<RawSection>& secs) { ZkeyTest<TypeParam>::find(secs, zkey_section::kMpc).data[64] = 1; });
  std::string msg = this->error_of_reading();
  EXPECT_NE(msg.find("section 10 (MPC params): truncated reading contribution deltaAfter"), std::string::npos) << msg;
}

TYPED_TEST(ZkeyTest, WriterRejectsSectionsThatDisagreeWithTheHeader) {
  using C = TypeParam;
  Synthetic<C> s;
  s.h.pop_back();
  Status st = write_zkey<C>(this->path_, s.contents());
  EXPECT_EQ(st.message(), "circuit.zkey: section 9 (H points) has 15 points, expected 16 (domain size)");
}

TEST(CheckPoints, ReportsLowestBadIndexAcrossThreads) {
  using G1 = bn254::G1Affine;
  std::vector<G1> pts(40000, bn254::G1Config::generator());
  pts[39000].y = pts[39000].y + bn254::Fq::one();
  pts[21000].x = pts[21000].x + bn254::Fq::one();
  Status s = check_points<bn254::G1Config>(pts, "w", 4);
  EXPECT_EQ(s.message(), "w: point 21000 is not on the curve");
  pts[21000] = G1::infinity();
  s = check_points<bn254::G1Config>(pts, "w", 4);
  EXPECT_EQ(s.message(), "w: point 39000 is not on the curve");
}

}  // namespace
}  // namespace cuzk::formats
