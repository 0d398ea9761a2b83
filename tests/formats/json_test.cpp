#include "formats/json.hpp"

#include <gtest/gtest.h>

namespace cuzk::formats {
namespace {

TEST(Json, RoundTripsNestedValuesCompactAndPretty) {
  Json v(Json::Object{{"a", Json(Json::Array{"x", Json::number("12"), Json(true), Json()})},
                      {"b", Json(Json::Object{})},
                      {"c", Json(Json::Array{})}});
  for (int indent : {-1, 0, 1, 4}) {
    auto back = Json::parse(v.dump(indent));
    ASSERT_TRUE(back.is_ok()) << back.status().to_string();
    EXPECT_EQ(*back, v) << v.dump(indent);
  }
  EXPECT_EQ(v.dump(), R"({"a":["x",12,true,null],"b":{},"c":[]})");
}

TEST(Json, PrettyPrintMatchesJsonStringifyWithOneSpace) {
  Json v(Json::Object{{"pi_a", Json(Json::Array{"1", "2"})}, {"protocol", "groth16"}});
  EXPECT_EQ(v.dump(1), "{\n \"pi_a\": [\n  \"1\",\n  \"2\"\n ],\n \"protocol\": \"groth16\"\n}");
}

TEST(Json, KeepsHugeNumbersExactly) {
  std::string big = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
  auto v = Json::parse("[" + big + ", -0.5e+10]");
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(v->as_array()[0].as_string(), big);
  EXPECT_EQ(v->as_array()[1].as_string(), "-0.5e+10");
}

TEST(Json, DecodesEscapesAndSurrogatePairs) {
  auto v = Json::parse(R"("a\"b\\c\/\n\t\u00e9\ud83d\ude00")");
  ASSERT_TRUE(v.is_ok()) << v.status().to_string();
  EXPECT_EQ(v->as_string(), "a\"b\\c/\n\t\xc3\xa9\xf0\x9f\x98\x80");
  auto back = Json::parse(v->dump());
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(*back, *v);
}

TEST(Json, FindsMembersByKeyInOrder) {
  auto v = Json::parse(R"({"z": 1, "a": 2})");
  ASSERT_TRUE(v.is_ok());
  ASSERT_NE(v->find("a"), nullptr);
  EXPECT_EQ(v->find("a")->as_string(), "2");
  EXPECT_EQ(v->find("missing"), nullptr);
  EXPECT_EQ(v->as_object()[0].first, "z");
}

TEST(Json, RejectsMalformedInputNamingLineAndColumn) {
  auto v = Json::parse("{\n  \"a\": [1, 2,]\n}");
  ASSERT_FALSE(v.is_ok());
  EXPECT_EQ(v.status().message(), "JSON line 2 column 14: unexpected character ']'");
  for (const char* bad : {"", "[", "{\"a\" 1}", "[1 2]", "01", "1.", "-", "1e", "\"abc", "\"\\x\"", "\"\\ud800\"",
                          "tru", "nul", "[1]x", "{\"a\":1,}", "\"a\nb\"", "{1:2}"}) {
    EXPECT_FALSE(Json::parse(bad).is_ok()) << bad;
  }
}

TEST(Json, RejectsDeepNestingWithoutCrashing) {
  std::string deep(100000, '[');
  auto v = Json::parse(deep);
  ASSERT_FALSE(v.is_ok());
  EXPECT_NE(v.status().message().find("nesting deeper"), std::string::npos);
}

}  // namespace
}  // namespace cuzk::formats
