// The collective matcher (match.cc): collectives named across ranks by key and place.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "match.h"
#include "stage_util.h"

namespace tracemerge::test {
namespace {

// Collectives named across ranks (match.h): the same one on two ranks is the
// same key at the same place among that key's — whatever else comes between.
// Kineto kernels without a Seq; rank 1 runs its all-gather first, so its first
// all-reduce sits where rank 0's second one does.
TEST(Match, CollectivesAreNamedByKeyAndPlaceNotByPosition) {
  auto kernel = [](const char* op, int ts) {
    return std::string(R"({"ph":"X","cat":"kernel","name":"ncclDevKernel_)") + op +
           R"x((ncclDevComm*)","pid":1,"tid":7,"ts":)x" + std::to_string(ts) + R"(,"dur":10})";
  };
  Job job = MakeJob({{"job/rank0.pt.trace.json", Trace(kernel("AllReduce_Sum_f32_RING_LL", 100) + "," +
                                                       kernel("AllReduce_Sum_f32_RING_LL", 200) + "," +
                                                       kernel("AllGather_RING_LL", 300))},
                     {"job/rank1.pt.trace.json", Trace(kernel("AllGather_RING_LL", 1100) + "," +
                                                       kernel("AllReduce_Sum_f32_RING_LL", 1200) + "," +
                                                       kernel("AllReduce_Sum_f32_RING_LL", 1300))}});
  ASSERT_EQ(job.sources.size(), 2u);
  CollectiveMatcher matcher(job);
  uint32_t cids = 0;
  const std::vector<CollectiveMatcher::Seen> seen = matcher.Name(AnchorTier::kKernel, &cids);
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(cids, 3u);
  auto cid_at = [&](uint32_t source, int64_t start_us) {
    for (const auto& x : seen)
      if (x.source == source && x.start == start_us * 1000) return x.cid;
    return UINT32_MAX;
  };
  EXPECT_EQ(cid_at(0, 100), cid_at(1, 1200)) << "the first all-reduce of each";
  EXPECT_EQ(cid_at(0, 200), cid_at(1, 1300)) << "the second";
  EXPECT_EQ(cid_at(0, 300), cid_at(1, 1100)) << "the all-gather";
  EXPECT_NE(cid_at(0, 100), cid_at(0, 200));
  // Named once and kept; read again once forgotten (times moved).
  ShiftSource(job.sources[1], 5000);
  EXPECT_EQ(matcher.Name(AnchorTier::kKernel, &cids)[3].start, seen[3].start) << "kept";
  matcher.Forget();
  const auto& again = matcher.Name(AnchorTier::kKernel, &cids);
  ASSERT_EQ(again.size(), 6u);
  EXPECT_EQ(again[3].start, seen[3].start + 5000) << "read again";
}

}  // namespace
}  // namespace tracemerge::test
