// What viewers make of the times we write. numbers.h writes each time as the
// exact decimal of its µs ("1594662618873063.125"); readers do not keep it:
//
// - Perfetto's JSON importer parses a number with its own StringToDouble —
//   double(integer part) + double(fraction digits) / 10^digits — and keeps
//   llround(x * 1000) ns, or x * 1000 exactly when x came out integral
//   (CoerceToTs, json_trace_tokenizer.cc). An integer token stays exact.
// - JS viewers (chrome://tracing, speedscope) hold JSON.parse's double: the
//   correctly rounded µs.
// Near 1.7e15 µs a double's step is 0.25 µs, ×1000 it is 256 ns: slices that
// touch or nest exactly may overlap as read. The lanes stage (lanes.cc)
// decides on all three readings; tests/viewer_check.h checks them from the text.
//
//   PerfettoNs(1594662618873063300) → 1594662618873063168   PerfettoNs(5125) → 5125
//   PerfettoNs(1594662618873063125) → 1594662618873063000 (x = …063.125 is a tie, to even: integral)
//   JsMicros(1594662618873063300)   → 1594662618873063.25 (the nearest double)
#pragma once

#include <cstdint>

namespace tracemerge {

int64_t PerfettoNs(int64_t ns);  // what Perfetto's importer keeps of a written ts or dur
double JsMicros(int64_t ns);     // what JSON.parse gives for it, in µs

}  // namespace tracemerge
