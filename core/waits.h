// Who waits for whom, step by step. At every symmetric collective matched
// across ranks (match.h) each rank's kernel (or Horovod op) runs from its
// arrival to the end they share — so the last to arrive has the shortest, and
// every other rank waited the difference. Durations are each rank's own: no
// clock correction is needed (an unchecked host's arrival times are unsure,
// its waits are not).
//
// A rank is a group of sources within a run (identity.h: a node's files of
// every kind, one rank's files of every profiled step). Per rank and step:
// how long the step took there (its step marks, first to last moment — to the
// next step's first at most), the
// time it waited in the step's collectives, and its time in communication
// kernels of any kind — send/recv and all-to-all too, which say nothing of
// who waited for whom. Busy = the step less its waiting.
//
// Per step, the ranks the others waited for — one straggler, or several busy
// together (two ranks in send/recv while two wait in an all-reduce) — are
// named only when the data shows it: at 3 or more collectives, the ranks that
// waited least (split at the widest gap of the step's waits, waiting under
// half what any other did, at most half the ranks), each among the last to
// arrive at three quarters of its collectives and far more often than chance,
// while the others lost at least 1% of the step. Otherwise the step says why
// no one is named.
//
//   step 3: rank 1 arrived 2 ms after the others at 8 of 8 all-reduces
//   → steps[3]: held_by [1], lost_ns = Σ of the others' waits
#pragma once

#include <vector>

#include "match.h"
#include "stages.h"

namespace tracemerge {

// host_of: each source's host in hosts (the clock check's), or -1. The
// matcher names the collectives (match.h).
Waits CollectiveWaits(const Job& job, CollectiveMatcher& matcher, const std::vector<HostClock>& hosts,
                      const std::vector<int32_t>& host_of);

}  // namespace tracemerge
