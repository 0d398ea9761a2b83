// Which sections a GPU backend streams when the device cannot hold a whole key: of the
// sets that fit, the fewest bytes streamed; ties to fewer sections, then to sets without H.
// The fits() predicate here is the backend's arithmetic in miniature: the device holds
// `budget` bytes, a resident section costs its bytes, and streaming any section adds a
// fixed working set (its chunk buffers).
#include "groth16/section_placement.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace cuzk::groth16 {
namespace {

using S = MsmSection;

// Index order is MsmSection's: H, A, B1, B2, L.
constexpr std::array<size_t, kMsmSections> kBytes = {12, 12, 12, 24, 12};  // a 2^27 key in GiB

struct Device {
  size_t budget, fixed, chunk;
  std::vector<unsigned> asked;
  bool fits(SectionSet set) {
    asked.push_back(set.bits);
    size_t need = fixed + (set.empty() ? 0 : chunk);
    for (size_t i = 0; i < kMsmSections; ++i) need += set.has(S(i)) ? 0 : kBytes[i];
    return need <= budget;
  }
};

std::optional<SectionSet> choose(Device& d) {
  return choose_streamed(kBytes, [&](SectionSet s) { return d.fits(s); });
}

TEST(SectionPlacement, NothingStreamedWhenTheKeyFits) {
  Device d{100, 20, 1, {}};
  auto got = choose(d);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->empty());
  EXPECT_EQ(d.asked.size(), 1u);  // the cheapest candidate first, and it fit
  EXPECT_EQ(describe(*got), "none");
}

TEST(SectionPlacement, StreamsTheFewestBytesThatMakeItFit) {
  // 72 GiB of points and 20 of working set on a 80 GiB device: 12 GiB short (13 with the
  // chunk buffers). One 12 GiB G1 section is not enough; 24 GiB is: B2 alone (one section)
  // beats two G1 sections of the same bytes.
  Device d{80, 20, 1, {}};
  auto got = choose(d);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->bits, SectionSet{1u << size_t(S::kB2)}.bits);
  EXPECT_EQ(describe(*got), "B2");
  // Every candidate asked streams no more bytes than the answer.
  for (unsigned bits : d.asked) {
    size_t total = 0;
    for (size_t i = 0; i < kMsmSections; ++i) total += SectionSet{bits}.has(S(i)) ? kBytes[i] : 0;
    EXPECT_LE(total, 24u);
  }
}

TEST(SectionPlacement, OneG1SectionPrefersOneWithoutH) {
  Device d{90, 20, 1, {}};  // 3 GiB short: any 12 GiB section will do
  auto got = choose(d);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->bits, SectionSet{1u << size_t(S::kA)}.bits);
  EXPECT_FALSE(got->has(S::kH));
}

TEST(SectionPlacement, AllStreamedOrNothingFits) {
  Device tight{21, 20, 1, {}};
  auto all = choose(tight);
  ASSERT_TRUE(all.has_value());
  EXPECT_TRUE(all->full());
  EXPECT_EQ(describe(*all), "all");
  Device none{20, 20, 1, {}};
  EXPECT_FALSE(choose(none).has_value());
  EXPECT_EQ(none.asked.size(), size_t(1) << kMsmSections);  // each set asked once
}

// A caller's own rule (everything or nothing) is its predicate's: the other sets are
// asked, refused, and the cheapest allowed one that fits comes back.
TEST(SectionPlacement, CallerRulesThroughThePredicate) {
  Device d{80, 20, 1, {}};
  auto got = choose_streamed(kBytes, [&](SectionSet s) { return (s.empty() || s.full()) && d.fits(s); });
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->full());
  EXPECT_EQ(d.asked, (std::vector<unsigned>{0u, SectionSet::all().bits}));
}

// Against a brute force over random section sizes and budgets: the answer fits, and no
// set that fits streams fewer bytes.
TEST(SectionPlacement, MatchesBruteForce) {
  std::mt19937_64 rng(20261205);
  for (int round = 0; round < 2000; ++round) {
    std::array<size_t, kMsmSections> bytes;
    for (auto& b : bytes) b = rng() % 50;
    const size_t budget = rng() % 300, fixed = rng() % 40;
    auto fits = [&](SectionSet s) {
      size_t need = fixed;
      for (size_t i = 0; i < kMsmSections; ++i) need += s.has(S(i)) ? 0 : bytes[i];
      return need <= budget;
    };
    auto got = choose_streamed(bytes, fits);
    std::optional<size_t> best;
    for (unsigned bits = 0; bits < (1u << kMsmSections); ++bits) {
      if (!fits(SectionSet{bits})) continue;
      size_t total = 0;
      for (size_t i = 0; i < kMsmSections; ++i) total += SectionSet{bits}.has(S(i)) ? bytes[i] : 0;
      if (!best || total < *best) best = total;
    }
    ASSERT_EQ(got.has_value(), best.has_value()) << round;
    if (!got) continue;
    ASSERT_TRUE(fits(*got)) << round;
    size_t total = 0;
    for (size_t i = 0; i < kMsmSections; ++i) total += got->has(S(i)) ? bytes[i] : 0;
    EXPECT_EQ(total, *best) << round;
  }
}

TEST(SectionPlacement, Describes) {
  SectionSet s;
  s.add(S::kH);
  s.add(S::kA);
  s.add(S::kL);
  EXPECT_EQ(describe(s), "A, L and H");
  s = {};
  s.add(S::kB2);
  s.add(S::kH);
  EXPECT_EQ(describe(s), "B2 and H");
}

}  // namespace
}  // namespace cuzk::groth16
