// A scan as map and reduce: each file's parse thinned to what the scan's
// stages read of it (the map, ThinSource), and the stages run on those — in
// this process (a local scan thins every source before its stages) or on
// summaries made elsewhere (a Dask worker's `tracemerge FILE --summarize OUT`,
// read back by `tracemerge OUT… --scan`). One code path: the local scan is
// the same map and reduce in one process.
//
// A thinned source keeps its processes, threads, marks, anchors and warnings,
// and of its events only: its first, those its marks and anchors name (and
// the matching ends of its B/E events kept), the earliest and the latest of
// its events (by time base: based or not), and one event for each of up to
// kFineBins stretches of its span that holds any — each event, when it has no
// more (Thinned::weights: how many it stands for; Thinned::samples: their
// system-metric samples). No templates.
//
//   corpus/real/pytorch_kineto_multirank: 8 files, 26 538 events → 8 summaries, 257 kB
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "buffer.h"
#include "source.h"
#include "status.h"

namespace tracemerge {

constexpr size_t kFineBins = 1024;  // stretches of a source's span (the page's overview has 256 over the job's)

// The map of one parsed source: its pieces (a file of several ranks is one
// source per rank, identity.h SplitRanks), each thinned.
std::vector<ParsedSource> SummarizeSource(ParsedSource s);
// Thins s in place (once: a thinned source is left as it is).
void ThinSource(ParsedSource& s);

// A summary file: "tmsummary" version count (size bytes)… — each a thinned
// source as transfer.h writes it. The version changes with the layout.
constexpr std::string_view kSummaryMagic = "tmsummary";
constexpr uint64_t kSummaryVersion = 1;
std::string SummaryBytes(std::vector<ParsedSource> pieces);
// The thinned sources of a summary file named `name`, or what is wrong with
// it (another version, cut, damaged: the file and the byte named).
Result<std::vector<ParsedSource>> ReadSummary(std::string_view bytes, const std::string& name);
inline bool LooksLikeSummary(std::string_view head) { return head.substr(0, kSummaryMagic.size()) == kSummaryMagic; }

}  // namespace tracemerge
