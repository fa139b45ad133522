// Alignment: the moves that put sources side by side — after the clocks
// (stages.h: ApplyClocks) and before the job's shape (DescribeJob). Every
// host's clock is always checked against its run's reference (clock_check.h)
// and reported; it moves only when asked:
//
//   --align clocks  each checked host corrected once by its estimate (an
//                   offset, or an offset and a rate over a long job)
//   --align steps   each host shifted once so that a step all share starts together
//
// Sources without an absolute clock, mixed with sources that have one, and
// placed by neither --offset nor --align, move where the job starts — those
// of one recording together, by one shift; a job of relative times only that
// would start before 0 is moved to start at 0. Every move is recorded in its
// source's report.
//
//   rank0.json (reference), rank1.json (host-b) whose kernels end 1523.4 µs later
//   → host-b: offset +1523.4 µs, CLOCK_SKEW; with --align clocks, aligned_ns −1523400
#pragma once

#include <vector>

#include "match.h"
#include "stages.h"

namespace tracemerge {

// The whole stage: the clock check into the report (Report::clock_hosts,
// SourceReport::clock_host) and its warnings, the --align moves, clockless
// sources placed. Sets report->align(_step). The matcher names the collectives
// (match.h); it forgets them when times moved.
void AlignSources(Job& job, const Options& options, CollectiveMatcher& matcher, Report* report,
                  std::vector<Diagnostic>* warnings);

// Moves s's times as its host's clock says: t − offset(t) (an offset and a
// rate), ends too, so that what nested still nests.
void CorrectSource(ParsedSource& s, const HostClock& clock);

}  // namespace tracemerge
