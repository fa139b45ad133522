#include "viewer_time.h"

#include <cmath>
#include <cstdlib>

#include "numbers.h"

namespace tracemerge {

int64_t PerfettoNs(int64_t ns) {
  if (ns == INT64_MIN) return ns;
  const uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  const uint64_t whole = mag / 1000, frac = mag % 1000;
  if (frac == 0) return ns;  // written as an integer: its int64 path, exact
  // The fraction's digits over their power of ten: the same double whatever
  // trailing zeros were dropped (12/100 and 120/1000 divide to one double).
  double x = static_cast<double>(whole) + static_cast<double>(frac) / 1000.0;
  // Beyond ±9.2e15 µs Perfetto's own ×1000 overflows; no reading to match there.
  if (x >= 9.2e15) return ns;
  if (ns < 0) x = -x;
  if (x == std::trunc(x)) return static_cast<int64_t>(x) * 1000;
  return static_cast<int64_t>(std::llround(x * 1000.0));
}

double JsMicros(int64_t ns) {
  // Below 2^53 ns the value is exact as a double, and one division rounds
  // correctly. Above, the µs part is exact and the fraction's rounding error
  // is far below half a step of the sum (steps ≥ 2^-9 µs there), so the one
  // rounding of the sum is the correct one. Beyond 2^53 µs (year 2255): parse.
  constexpr int64_t k53 = int64_t{1} << 53;
  if (ns > -k53 && ns < k53) return static_cast<double>(ns) / 1000.0;
  const int64_t whole = ns / 1000, frac = ns % 1000;
  if (whole > -k53 && whole < k53) return static_cast<double>(whole) + static_cast<double>(frac) / 1000.0;
  return std::strtod(FormatMicros(ns).c_str(), nullptr);
}

}  // namespace tracemerge
