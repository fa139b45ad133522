// Who waits for whom: at every symmetric collective matched across ranks
// (match.h), each rank's kernel (or Horovod op) runs from its arrival to the
// end they share — so the last rank to arrive has the shortest, and each
// other rank waited the difference. Durations are each rank's own: no clock
// correction is needed (an unchecked host's arrival times are unsure, its
// waits are not).
//
// Per step (its ranks' step marks): each rank's waiting, the rank last most
// often, and what all ranks together lost waiting for it. It is named the
// step's straggler only when it was last consistently — at 3 or more of the
// step's collectives, three quarters of them, and far more often than chance
// (each of R ranks last with 1/R).
//
//   step 3: rank 1 arrived last at 8 of 8 all-reduces, 2 ms after the others
//   → steps[3]: last 1, straggler, lost_ns = Σ over them of the others' waits
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
