// The order stage alone (core/order.cc): the metadata to carry and the kept events by time.
#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "identity.h"
#include "layout.h"
#include "match.h"
#include "parse.h"
#include "stages.h"
#include "stage_util.h"

namespace tracemerge::test {
namespace {

TEST(Order, MetadataOfUsedTracksAndKeptEventsByTime) {
  Job job = MakeJob({{"a.json", Trace(R"({"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":1}},
                                        {"ph":"M","name":"thread_sort_index","pid":1,"tid":2,"args":{"sort_index":1}},
                                        {"ph":"i","ts":1594662618000009,"pid":1,"tid":1},
                                        {"ph":"i","ts":1594662618000001,"pid":1,"tid":1})")}});
  ApplyClocks(job, {});
  const TrackPlan plan = AssignTracks(job, Group::kSource);
  OutputOrder order = OrderOutput(job, plan);
  ASSERT_EQ(order.meta.size(), 1u) << "thread 2 has no kept event";
  EXPECT_EQ(job.sources[0].report.metadata_unused, 1u);
  EXPECT_EQ(order.order.size(), 2u);
  EXPECT_EQ(order.last_end_ns, 1594662618000009000);
  std::vector<TimeOrder::Cursor> all = order.order.Slices(1);
  EventRef refs[4];
  ASSERT_EQ(all[0].Next(refs, 4), 2u);
  EXPECT_EQ(job.sources[0].events[refs[0].index].ts, 1594662618000001000);
}

}  // namespace
}  // namespace tracemerge::test
