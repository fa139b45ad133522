#include "numbers.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace tracemerge {

TEST(ParseMicros, IntegersFloatsAndStrings) {
  EXPECT_EQ(ParseMicros("12"), 12000);
  EXPECT_EQ(ParseMicros("12.5"), 12500);
  EXPECT_EQ(ParseMicros("\"7\""), 7000);
  EXPECT_EQ(ParseMicros("-1.25"), -1250);
  EXPECT_EQ(ParseMicros("573720829732.261"), 573720829732261);
  EXPECT_EQ(ParseMicros("1.0005"), 1001);  // rounds the first dropped digit
  EXPECT_EQ(ParseMicros("1e3"), 1000000);
  EXPECT_EQ(ParseMicros(" 5 "), 5000);
}

TEST(ParseMicros, KeepsNanosecondsOfAbsoluteTimes) {
  // A double would round this to the nearest 0.25 µs.
  EXPECT_EQ(ParseMicros("1759873794829732.261"), 1759873794829732261);
}

TEST(ParseMicros, RejectsMalformedAndOutOfRange) {
  EXPECT_FALSE(ParseMicros(""));
  EXPECT_FALSE(ParseMicros("abc"));
  EXPECT_FALSE(ParseMicros("1e400"));
  EXPECT_FALSE(ParseMicros("99999999999999999999"));
  EXPECT_FALSE(ParseMicros("01"));
  EXPECT_FALSE(ParseMicros("1."));
  EXPECT_FALSE(ParseMicros("{}"));
}

TEST(ParseScaled, SecondsToNanoseconds) {
  EXPECT_EQ(ParseScaled("1591160699.4570894", 1000000000), 1591160699457089400);
}

TEST(FormatMicros, TrimsTrailingZeros) {
  EXPECT_EQ(FormatMicros(1594662618873063000), "1594662618873063");
  EXPECT_EQ(FormatMicros(12500), "12.5");
  EXPECT_EQ(FormatMicros(1), "0.001");
  EXPECT_EQ(FormatMicros(-1500), "-1.5");
  EXPECT_EQ(FormatMicros(0), "0");
}

TEST(IsJsonNumber, FollowsTheGrammar) {
  EXPECT_TRUE(IsJsonNumber("0"));
  EXPECT_TRUE(IsJsonNumber("-0.5e+10"));
  EXPECT_TRUE(IsJsonNumber("10159970886766084423"));
  EXPECT_FALSE(IsJsonNumber("+1"));
  EXPECT_FALSE(IsJsonNumber(".5"));
  EXPECT_FALSE(IsJsonNumber("NaN"));
  EXPECT_FALSE(IsJsonNumber("1e"));
}

}  // namespace tracemerge

namespace tracemerge {
namespace {

// The fast path (plain decimals) and the general path agree: a leading space
// sends the same token down the general path.
TEST(ParseScaled, FastAndGeneralPathsAgree) {
  std::mt19937_64 rng(7);
  const char* fixed[] = {"0", "0.5", "1.0005", "1.0004", "0.0009", "12.", "012", "1600000123456.789",
                         "999999999999999999", "9223372036854775", "9223372036854775.807", "9223372036854775807",
                         "1.99999999", "7.4999", "7.5", "00", "5e3", "12345678", "1234567.89", "12345678.5",
                         "123456789012345678.5", "1234567890123456789", "00000000123", "1234567a"};
  std::vector<std::string> tokens(std::begin(fixed), std::end(fixed));
  for (int i = 0; i < 20000; i++) {
    std::string t = std::to_string(rng() % 1000000000000000000ull >> (rng() % 60));
    if (rng() % 2) {
      t += '.';
      for (int k = rng() % 8; k >= 0; k--) t += static_cast<char>('0' + rng() % 10);
    }
    tokens.push_back(t);
  }
  for (const std::string& t : tokens)
    for (int64_t scale : {int64_t{1}, int64_t{1000}, int64_t{1000000000}})
      EXPECT_EQ(ParseScaled(t, scale), ParseScaled(" " + t, scale)) << t << " × " << scale;
}

}  // namespace
}  // namespace tracemerge

namespace tracemerge {
namespace {

// The two-digits-a-step writer against std::to_string, at every digit count
// and at the 10^8 and 10^16 seams where it changes method.
TEST(WriteUint, MatchesToString) {
  std::vector<uint64_t> values = {0, 9, 10, 99, 100, 12345678, 99999999, 100000000, 100000001,
                                  9999999999999999ull, 10000000000000000ull, 10000000000000001ull,
                                  UINT64_MAX};
  for (uint64_t p = 1; p && p <= UINT64_MAX / 10; p *= 10) values.insert(values.end(), {p - 1, p, p + 1, p * 5});
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; i++) values.push_back(rng() >> (rng() % 64));
  for (uint64_t v : values) {
    char buf[24];
    EXPECT_EQ(std::string(buf, WriteUint(buf, v)), std::to_string(v)) << v;
  }
}

}  // namespace
}  // namespace tracemerge

namespace tracemerge {
namespace {

// What the page and the CLI accept as a window bound: one rule (the page asks the core).
TEST(ParseTimeText, WholeMicrosOrAUtcDateTime) {
  EXPECT_EQ(ParseTimeText("1594662618874598"), 1594662618874598);
  EXPECT_EQ(ParseTimeText(" -5 "), -5);
  EXPECT_EQ(ParseTimeText("2020-07-13 17:50:18.874598"), 1594662618874598);
  EXPECT_EQ(ParseTimeText("2020-07-13T17:50:18.5Z"), 1594662618500000);
  EXPECT_EQ(ParseTimeText("2020-07-13 17:50:18.123456789 UTC"), 1594662618123456) << "beyond µs: cut";
  EXPECT_EQ(ParseTimeText("2020-07-13 17:50"), 1594662600000000);
  EXPECT_EQ(ParseTimeText("2020-07-13"), 1594598400000000);
  EXPECT_EQ(ParseTimeText("1970-01-01"), 0);
  EXPECT_EQ(ParseTimeText("2024-02-29 00:00:00"), 1709164800000000);
  for (const char* bad : {"", "12.5", "2023-02-29", "2020-13-01", "2020-07-13 25:00", "2020-07-13 17:50:18.",
                          "2020-07-13 17:50:18 CET", "yesterday", "1e6", "2020-7-13"})
    EXPECT_FALSE(ParseTimeText(bad)) << bad;
}

}  // namespace
}  // namespace tracemerge
