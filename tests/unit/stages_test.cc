// The stages after ingest without a test file of their own, each called alone on a job of
// a few parsed sources: join, lanes, order, output (stages.h; the others: window_test,
// clocks_test, match_test, tracks_test).
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

TEST(Join, SourcesInPathOrderThenArrival) {
  Job job = MakeJob({{"b.json", Trace("")}, {"a.json", Trace("")}, {"b.json", Trace(R"({"ph":"i","ts":1})")}});
  ASSERT_EQ(job.sources.size(), 3u);
  EXPECT_EQ(job.sources[0].path, "a.json");
  EXPECT_EQ(job.sources[1].arrival, 0u);
  EXPECT_EQ(job.sources[2].arrival, 2u);
}

TEST(Lanes, NestedAndFollowingShareALaneOverlapsMove) {
  // ts, dur: a parent, its child, a slice that starts inside the parent and
  // ends after it, one that starts where the parent ends, one overlapping
  // both lanes, one equal to the third.
  std::vector<LaneSlice> slices{{0, 100, 0}, {10, 20, 1}, {50, 100, 2}, {100, 10, 3}, {60, 100, 4}, {50, 100, 5}};
  std::vector<uint8_t> lanes;
  EXPECT_EQ(AssignLanes(slices, &lanes), 3u);
  EXPECT_EQ(lanes, (std::vector<uint8_t>{0, 0, 1, 0, 2, 1})) << "an equal slice nests";
  EXPECT_EQ(AssignLanes({}, &lanes), 1u);
  // Equal starts: the longest is the parent, whatever the input order.
  EXPECT_EQ(AssignLanes({{0, 5, 0}, {0, 10, 1}}, &lanes), 1u);
  EXPECT_EQ(lanes, (std::vector<uint8_t>{0, 0}));
}

// Slices that nest exactly but not once rounded go apart: A ends where B
// starts; Perfetto and JS read A's end past B's start (ts and dur rounded
// apart at epoch scale).
TEST(Lanes, TouchingExactlyButOverlappingAsReadTakeTwoLanes) {
  const int64_t a = 1712195495406752200, b = 1712195495406752600;
  std::vector<uint8_t> lanes;
  EXPECT_EQ(AssignLanes({{a, b - a, 0}, {b, 1000, 1}}, &lanes), 2u);
  EXPECT_EQ(AssignLanes({{a - 200, 1000, 0}, {a + 800, 1000, 1}}, &lanes), 1u) << "whole µs are read exactly";
}

TEST(Lanes, AtMost255LanesAndEverySliceKeepsOne) {
  std::vector<LaneSlice> slices;
  for (int k = 0; k < 400; k++) slices.push_back({k, 1000, static_cast<uint64_t>(k)});
  std::vector<uint8_t> lanes;
  bool capped = false;
  EXPECT_EQ(AssignLanes(slices, &lanes, &capped), 255u);
  EXPECT_TRUE(capped);
  EXPECT_EQ(lanes.size(), 400u);
  EXPECT_EQ(lanes[399], 254);
}

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

TEST(Output, ValidJsonWithTracksFirstIdsUniqueAndTheReport) {
  Job job = MakeJob({{"a.json", Trace(R"({"ph":"s","id":1,"ts":1594662618000001,"pid":1,"tid":1,"name":"f"})")},
                     {"b.json", Trace(R"({"ph":"s","id":1,"ts":1594662618000002,"pid":1,"tid":1,"name":"f"})")}});
  ApplyClocks(job, {});
  const TrackPlan plan = AssignTracks(job, Group::kSource);
  const OutputOrder order = OrderOutput(job, plan);
  Report report;
  std::string out;
  WriteOutput(job, plan, order, Options(), &report, [&](std::string_view b) { out.append(b); });
  std::string error;
  std::vector<OutEvent> events = ParseOutput(out, &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(events.size(), 6u);  // 2 process names, 2 thread names, 2 flows
  EXPECT_EQ(events[0].name, "process_name");
  EXPECT_EQ(events[3].name, "thread_name");
  EXPECT_NE(out.find(R"("id":1,)"), std::string::npos);
  EXPECT_NE(out.find(R"("id":2,)"), std::string::npos) << "b's id 1 is renumbered after a's";
  EXPECT_EQ(report.events_written, 2u);
  EXPECT_EQ(job.sources[1].report.events_kept, 1u);
  EXPECT_NE(out.find("\"metadata\":{\"tracemerge\":{\"version\""), std::string::npos);
}

}  // namespace
}  // namespace tracemerge::test
