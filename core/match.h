// Collectives matched across ranks by their identity — for the clock check
// (clock_check.h, across hosts) and the waits (waits.h, across ranks). The same
// collective on two sources is the same process group and Seq when PyTorch
// records them, else the same key (group, op, name) at the same place among
// those of its stream that cover the same profiled steps; never nearness.
// A stream is a source, or an smdebug node's files of one kind (rotated).
//
//   rank0.json: ncclDevKernel_AllReduce… ×8 in ProfilerStep#3, rank1.json: the same
//   → 8 collectives, each seen twice (cid 0..7), each with its start and end per source
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "stages.h"

namespace tracemerge {

// Each B event of s → its matching E (per thread, in file order).
std::unordered_map<uint32_t, uint32_t> MatchingEnds(const ParsedSource& s);
// A B anchor's key with its tensor — a Horovod op's pid is named after it:
// "allreduce\x1fALLREDUCE\x1fAdam_Allreduce/HorovodAllreduce_grad_0".
std::string TensorKey(const ParsedSource& s, const Anchor& a);

class CollectiveMatcher {
 public:
  explicit CollectiveMatcher(const Job& job);

  // One end of one collective on one source.
  struct Seen {
    uint32_t cid;     // the collective (0, 1, …: the same on every source that saw it)
    uint32_t source;  // job.sources index
    int64_t start;    // when it began there (the rank's arrival)
    int64_t end;      // when it ended there
  };
  // Every collective of `tier` in the job, each named by its identity; *cids:
  // how many. Seen in stream order, each stream's in time order. Named once a
  // tier (the clock check and the waits both ask) — Forget() once the
  // sources' times moved.
  const std::vector<Seen>& Name(AnchorTier tier, uint32_t* cids);
  void Forget();
  // Whether a source has collectives of any tier.
  bool HasAnchors(uint32_t source) const { return has_[source]; }

 private:
  struct Stream {
    uint32_t by_seq, by_place;  // its collectives' scopes with a Seq (its run), without (its run and steps)
    std::vector<uint32_t> sources;
  };
  struct Named {
    bool done = false;
    uint32_t cids = 0;
    std::vector<Seen> seen;
  };
  const Job& job_;
  std::vector<Stream> streams_;
  std::vector<bool> has_;
  Named named_[3];  // by AnchorTier
};

}  // namespace tracemerge
