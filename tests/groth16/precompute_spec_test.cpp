// The precompute spec of the daemon's TOML and the command line: auto, off, or a list of
// section names in order; anything else is refused with the option's name.
#include "groth16/precompute_spec.hpp"

#include <gtest/gtest.h>

namespace cuzk::groth16 {
namespace {

TEST(PrecomputeSpec, ParsesAutoOffAndLists) {
  auto a = parse_precompute_spec("auto", "x");
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(*a, precompute_auto_order());
  EXPECT_EQ(a->front(), MsmSection::kH);
  auto off = parse_precompute_spec("off", "x");
  ASSERT_TRUE(off.is_ok());
  EXPECT_TRUE(off->empty());
  auto l = parse_precompute_spec("l,h", "x");
  ASSERT_TRUE(l.is_ok());
  EXPECT_EQ(*l, (std::vector<MsmSection>{MsmSection::kL, MsmSection::kH}));
  for (const char* bad : {"", "h,", "H", "h,h", "c", "b3", "auto,h"}) {
    auto r = parse_precompute_spec(bad, "--precompute");
    EXPECT_FALSE(r.is_ok()) << bad;
    if (!r.is_ok()) {
      EXPECT_NE(r.status().message().find("--precompute"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace cuzk::groth16
