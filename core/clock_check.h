// The clock check: how far each host's clock stands from its run's reference
// host, measured from the collectives they share — or why that cannot be told.
//
// A symmetric collective (formats/collectives.h) ends at nearly the same
// instant on every rank that takes part, whenever each arrived. The same
// collective on two hosts is known by its identity, never by nearness: its
// process group and sequence number when PyTorch records them, else its key
// (group, op, name) and its place among those of its stream that cover the
// same profiled steps. Per run, the reference is the host that shares the
// most; the others are estimated outward from it (a host through hosts
// already estimated), each from all its sources' collectives pooled, by tier
// (NCCL kernels, Horovod ops, host-side ops — a host-side op ends when it is
// launched, so it passes only when its ends agree as tightly as a kernel's).
//
// An estimate stands only when the data supports it: 3 or more matched
// collectives (the ends of one collective on a host's several ranks count
// once), a majority of their ends within a few spreads of it, a spread under 50 µs, far more ends
// agreeing at it than at shifts a few collectives away (else "cannot tell"),
// and — between two absolute clocks — no larger than the time both recorded.
// Over a long job it is an offset and a rate (ppm) when a rate explains the
// ends beyond their noise. The uncertainty adds the hosts it was measured
// through; a host is off (CLOCK_SKEW) beyond 3σ by Student's t — more than 3
// uncertainties when few collectives measured it — and 5 µs. Cost: linear in the sources and n log n in the collectives.
//
//   host-a (reference), host-b whose kernels end 350 µs later
//   → host-b: checked, offset +350 µs ± 0.2, CLOCK_SKEW; --align clocks moves it by −350 µs
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "match.h"
#include "stages.h"

namespace tracemerge {

// (HostClock, one host's result, is in merger.h: the report carries it.)
struct ClockCheck {
  std::vector<HostClock> hosts;      // the clock domains with events, in path order of their first source
  std::vector<int32_t> host_of;      // per source: its index in hosts (-1: none)
  bool attempted = false;            // some run had two clocked hosts with collectives to compare
};

// Below 5 µs a difference is not worth a warning, nor a move: ranks of one
// clock end one collective that far apart (the corpus's 8 ranks of one machine: ±4 µs).
constexpr int64_t kSkewFloorNs = 5000;

// Why a host with no collectives went unchecked (HostClock::collectives false).
extern const char* const kNoCollectives;  // "no collectives (NCCL kernels, Horovod ops, …) to compare"

// Estimates every clock domain of every run with two or more of them, from
// the collectives the matcher names (match.h).
ClockCheck CheckClocks(const Job& job, CollectiveMatcher& matcher);

// The clock check's verdicts as diagnostics: CLOCK_SKEW per host beyond its
// noise (a NOTE once --align clocks moved it), and one NOTE per run naming
// the hosts that could not be checked and why.
void WarnClocks(Job& job, const ClockCheck& check, bool aligned, std::vector<Diagnostic>* warnings);

}  // namespace tracemerge
