// Alignment: where each source's clock stands against the others', and the
// moves that put sources side by side — between clocks (stages.h: after
// ApplyClocks) and the job's shape (DescribeJob).
//
// A collective ends at nearly the same instant on every rank that takes part,
// whenever each arrived (source.h: Anchor — NCCL kernels, Horovod ops,
// Kineto's record_param_comms / nccl:* host ops). Matched across sources by
// their key and place, the median of their end differences estimates one
// clock against another, with its spread (the median absolute deviation) and
// the number of anchors. Always estimated and reported (CLOCK_SKEW when a
// clock is off by more than its spread says is noise); applied only when asked:
//
//   --align clocks  each host (its clock domain) shifted once by its estimate
//   --align steps   each host shifted once so that a step all share starts together
//
// A source without an absolute clock, mixed with sources that have one, and
// placed by neither --offset nor --align, starts where the job starts
// (placed_ns, flagged); a job of relative times only that would start before 0
// is moved to start at 0. Every move is recorded in the source's report.
//
//   rank0.json (reference), rank1.json whose kernels end 1523.4 µs later
//   → rank1: clock_shift_ns −1523400, CLOCK_SKEW; with --align clocks, aligned_ns −1523400
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stages.h"

namespace tracemerge {

// Sources that share anchors (an smdebug stream rotated over files: its kind
// and node; else one file) and sources that share a clock (a host: Kineto's
// host_name or smdebug's node, within one run — an smdebug job's root, else
// the file's folder; else the stream).
std::string StreamKey(const ParsedSource& s);
std::string DomainKey(const ParsedSource& s);

struct ClockEstimate {
  bool known = false;
  int64_t shift_ns = 0;   // add to the source's times to line up with the reference
  int64_t spread_ns = 0;
  uint32_t anchors = 0;
  uint32_t reference = 0;  // job.sources index of the reference
  std::string from;        // what the anchors were, or "host <x>" when taken from its host
};
// One estimate per source (its stream's, else its host's).
std::vector<ClockEstimate> EstimateClocks(const Job& job);

// The whole stage: estimates into the reports (and CLOCK_SKEW warnings), the
// --align moves, clockless sources placed. Sets report->align(_step).
void AlignSources(Job& job, const Options& options, Report* report, std::vector<Diagnostic>* warnings);

// (clock_check.cc, for align.cc) Whether an estimate may be applied: tight
// (a spread within 50 µs) or clearly more than noise (3× its spread); the
// CLOCK_SKEW warnings (NOTEs once aligned), one per host; a lower median.
bool Usable(const ClockEstimate& c);
void WarnSkew(Job& job, const std::vector<ClockEstimate>& est, bool aligned);
int64_t LowerMedian(std::vector<int64_t> v);

}  // namespace tracemerge
