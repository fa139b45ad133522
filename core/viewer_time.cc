#include "viewer_time.h"

#include <cmath>
#include <cstdlib>

#include "numbers.h"

namespace tracemerge {

int64_t PerfettoNs(int64_t ns) {
  if (ns == INT64_MIN) return ns;
  const uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  // Below 2^50 ns the reading's relative error (three roundings, ≤ 3.3e-16)
  // stays under half a ns: llround gives ns back. (Every dur, most ts of
  // relative clocks: the lanes stage reads millions.)
  if (mag < (uint64_t{1} << 50)) return ns;
  const uint64_t whole = mag / 1000, frac = mag % 1000;
  if (frac == 0) return ns;  // written as an integer: its int64 path, exact
  // The fraction's digits over their power of ten: the same double whatever
  // trailing zeros were dropped (12/100 and 120/1000 divide to one double).
  double x = static_cast<double>(whole) + static_cast<double>(frac) / 1000.0;
  // Beyond ±9.2e15 µs Perfetto's own ×1000 overflows; no reading to match there.
  if (x >= 9.2e15) return ns;
  if (ns < 0) x = -x;
  const auto integral = static_cast<int64_t>(x);  // (|x| < 9.2e15: no overflow)
  if (static_cast<double>(integral) == x) return integral * 1000;
  // x × 1000 ≥ 2^50 here, and every double beyond 2^52 is a whole number:
  // there llround is the conversion.
  const double v = x * 1000.0;
  return std::fabs(v) >= 4503599627370496.0 ? static_cast<int64_t>(v) : static_cast<int64_t>(std::llround(v));
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
