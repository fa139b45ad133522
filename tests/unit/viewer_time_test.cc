// Perfetto's and JS's readings of our written times (viewer_time.h), checked
// against the text they read: Perfetto's StringToDouble and CoerceToTs redone
// here from its source, strtod for JSON.parse (both correctly rounded).
#include "viewer_time.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "numbers.h"

namespace tracemerge {
namespace {

// Perfetto's reading of a number token (json_parser.h StringToDouble, then
// CoerceToTs), done on the text.
int64_t PerfettoFromText(const std::string& t) {
  if (t.find_first_of(".eE") == std::string::npos) return std::stoll(t) * 1000;
  size_t i = 0;
  const bool negative = t[i] == '-';
  i += negative;
  int64_t int_part = 0;
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); i++) int_part = int_part * 10 + (t[i] - '0');
  double fraction = 0;
  if (i < t.size() && t[i] == '.') {
    int64_t fract_int = 0;
    uint64_t divisor = 1;
    for (i++; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); i++) {
      fract_int = (t[i] - '0') + fract_int * 10;
      divisor *= 10;
    }
    fraction = static_cast<double>(fract_int) / static_cast<double>(divisor);
  }
  double x = static_cast<double>(int_part) + fraction;
  x = negative ? -x : x;
  return x == std::trunc(x) ? static_cast<int64_t>(x) * 1000 : static_cast<int64_t>(std::llround(x * 1000.0));
}

TEST(ViewerTime, PerfettoAndJsReadingsEqualThoseOfTheWrittenText) {
  std::mt19937_64 rng(11);
  for (int k = 0; k < 200000; k++) {
    int64_t ns;
    switch (k % 5) {
      case 4: {  // about 2^50 ns (±), where PerfettoNs stops taking the ns as they are
        ns = (int64_t{1} << 50) - 5000000000000 + static_cast<int64_t>(rng() % 10000000000000);
        if (rng() % 2) ns = -ns;
        break;
      }
      case 0: ns = 1500000000000000000 + static_cast<int64_t>(rng() % 400000000000000000); break;  // epoch ns
      case 1: ns = static_cast<int64_t>(rng() % 100000000000); break;                               // durations
      case 2: ns = -static_cast<int64_t>(rng() % 10000000000000); break;                            // before 0
      default: ns = static_cast<int64_t>(rng() % 9100000000000000000ull);                          // up to where Perfetto overflows
    }
    if (k % 7 == 0) ns -= ns % 1000;  // whole µs: written as integers
    const std::string text = FormatMicros(ns);
    ASSERT_EQ(PerfettoNs(ns), PerfettoFromText(text)) << text;
    ASSERT_EQ(JsMicros(ns), std::strtod(text.c_str(), nullptr)) << text;
  }
  EXPECT_EQ(PerfettoNs(1594662618873063300), 1594662618873063168);
  EXPECT_EQ(PerfettoNs(1594662618873063125), 1594662618873063000);
  EXPECT_EQ(PerfettoNs(5125), 5125);
  // (fuzz_merge: near the int64 ends the ×1000 overflowed; there is no reading to match)
  EXPECT_EQ(PerfettoNs(INT64_MAX - 1), INT64_MAX - 1);
  EXPECT_EQ(PerfettoNs(INT64_MIN + 1), INT64_MIN + 1);
  EXPECT_EQ(JsMicros(1594662618873063300), 1594662618873063.25);
}

}  // namespace
}  // namespace tracemerge
