// Perfetto's JSON importer, as far as what it refuses, drops or counts goes
// — the rules read in its source (google/perfetto, importers/json/
// json_trace_tokenizer.cc, json_trace_parser.cc, common/slice_tracker.cc,
// flow_tracker.cc, sorter/trace_sorter.h; see the README's "Perfetto shows
// everything we write") — applied to a trace's text. Used on every golden and
// corpus output and on the merge fuzzer's, and on inputs, to tell what their
// data forces. Checked against trace_processor_shell on the corpus by hand.
//
//   PerfettoImport r = CheckPerfettoImport(R"({"traceEvents":[{"ph":"X","ts":1,"pid":1,"tid":1}]})");
//   → r.stats["json_parser_failure"] == 1, r.reasons["X without dur"] == 1
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tracemerge::test {

struct PerfettoImport {
  std::string fatal;                       // what makes Perfetto refuse the whole trace ("" when none)
  std::map<std::string, uint64_t> stats;   // Perfetto's stat name → count (errors and data loss only)
  std::map<std::string, uint64_t> reasons; // why, for json_parser_failure / json_tokenizer_failure
  std::map<std::string, uint64_t> forced;  // of those reasons, the ones only the data can remove
  uint64_t events = 0;
};
PerfettoImport CheckPerfettoImport(const std::string& json);

// The stats and reasons that our writing could have avoided: all of them but
// those the data forces (ids missing or reused, B/E children outliving their
// X parent, counters without numbers, metadata without names).
std::map<std::string, uint64_t> Avoidable(const PerfettoImport& r);

}  // namespace tracemerge::test
