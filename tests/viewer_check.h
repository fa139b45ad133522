// Reads a merged output the way its viewers do and says what they would find
// wrong — independent of the core's own rules (it parses the text itself).
// Used by the golden and corpus tests and by the merge fuzzer.
//
// CheckReadings: X slices of one track (pid, tid) that partially overlap, or
// a child that sticks out of its parent, when the times are read
//   exact    — the decimals as written, in ns;
//   perfetto — as Perfetto's JSON importer reads them (its StringToDouble,
//              then llround(x * 1000) ns; ts and dur each on their own);
//   js       — as JSON.parse's doubles, in µs (end = ts + dur in doubles).
// Each reading's slices go in its own order (by start, longest first, then as
// written) through Perfetto's slice-tracker rule: half-open intervals, a
// slice that starts inside another and ends after it overlaps.
//
//   CheckReadings(R"({"traceEvents":[{"ph":"X","ts":0,"dur":10,"pid":1,"tid":1},
//                                    {"ph":"X","ts":5,"dur":10,"pid":1,"tid":1}]})")
//   → slices 2, overlaps {1, 1, 1}
#pragma once

#include <cstdint>
#include <string>

namespace tracemerge::test {

struct Readings {
  uint64_t slices = 0;
  uint64_t overlaps[3] = {0, 0, 0};  // exact, perfetto, js
  std::string first;                  // the first overlap found, in words
  std::string error;                  // not a trace we can read
  bool ok() const { return error.empty() && !overlaps[0] && !overlaps[1] && !overlaps[2]; }
};
Readings CheckReadings(const std::string& json);

// Perfetto's reading of one JSON number token, in ns (its CoerceToTs).
int64_t PerfettoTokenNs(const std::string& token);

}  // namespace tracemerge::test
