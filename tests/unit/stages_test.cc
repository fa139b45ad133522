// The stages after ingest, each called alone on a job of a few parsed
// sources: clocks, window, tracks and lanes, order, output (stages.h).
#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "identity.h"
#include "layout.h"
#include "match.h"
#include "parse.h"
#include "stages.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

// A job as ingest makes it: each text streamed in, parsed and laid out.
Job MakeJob(const std::vector<Input>& inputs) {
  std::deque<ParsedSource> parsed;
  Budget budget(UINT64_MAX, nullptr);
  EventParser parser;
  uint32_t arrival = 0;
  for (const Input& in : inputs) {
    SourceStream stream(in.name, arrival++, 1 << 30, false, ByteBuffer(), in.bytes.size());
    stream.Append(in.bytes);
    SourceBytes bytes = std::move(stream).End();
    bytes.Inflate();
    parsed.push_back(ParseSource(bytes, ParseLimits(), parser, nullptr));
    LayOut(parsed.back(), bytes.data, budget);
  }
  Job job = JoinSources(std::move(parsed), 1);
  IdentifySources(job);
  return job;
}

std::string Trace(const std::string& events, const std::string& extra = "") {
  return "{\"traceEvents\":[" + events + "]" + extra + "}";
}

TEST(Join, SourcesInPathOrderThenArrival) {
  Job job = MakeJob({{"b.json", Trace("")}, {"a.json", Trace("")}, {"b.json", Trace(R"({"ph":"i","ts":1})")}});
  ASSERT_EQ(job.sources.size(), 3u);
  EXPECT_EQ(job.sources[0].path, "a.json");
  EXPECT_EQ(job.sources[1].arrival, 0u);
  EXPECT_EQ(job.sources[2].arrival, 2u);
}

TEST(Clocks, EachSourceByItsTimeBaseAndOffset) {
  Job job = MakeJob({
      {"k.json", Trace(R"({"ph":"i","ts":5,"pid":1})", R"(,"baseTimeNanoseconds":1000000000000000000)")},
      {"j/framework/pevents/1/1_n_pythontimeline.json",
       R"([{"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":2000}},{"ph":"i","ts":1,"pid":1}])"},
      {"rel.json", Trace(R"({"ph":"i","ts":7,"pid":1})")},
      {"unix.json", Trace(R"({"ph":"i","ts":1594662618873063,"pid":1})")},
  });
  ApplyClocks(job, {{"rel.json", -2}});
  auto ts = [&](const std::string& path) {
    for (const ParsedSource& s : job.sources)
      if (s.path == path) return s.events[0].ts;
    return int64_t{-1};
  };
  EXPECT_EQ(ts("k.json"), 1000000000000005000);
  EXPECT_EQ(ts("j/framework/pevents/1/1_n_pythontimeline.json"), 2001000);
  EXPECT_EQ(ts("rel.json"), 5000) << "relative, shifted by its offset";
  EXPECT_EQ(ts("unix.json"), 1594662618873063000);
  EXPECT_TRUE(TakeWarnings(job).empty()) << "the align stage places clockless sources and says so";
  EXPECT_EQ(job.sources[2].report.time_base, "none: times stay relative");
  EXPECT_EQ(job.sources[2].report.offset_us, -2);
  EXPECT_FALSE(job.sources[2].report.absolute);
  EXPECT_TRUE(job.sources[3].report.absolute);
}

TEST(Clocks, ATfTraceTakesItsStepDirectorysSidecar) {
  const std::string dir = "j/framework/tensorflow/detailed_profiling/1/000000002";
  Job job = MakeJob({{dir + "/plugins/profile/d/h.trace.json.gz", Trace(R"({"ph":"X","ts":1.5,"dur":1,"pid":1})")},
                     {dir + "/h_1596659864545103_1596659864854168.metadata", ""}});
  ApplyClocks(job, {});
  const ParsedSource& tf = job.sources[0].cls.kind == Kind::kTfTrace ? job.sources[0] : job.sources[1];
  EXPECT_EQ(tf.events[0].ts, 1596659864545104500) << tf.report.time_base;
  EXPECT_NE(tf.report.time_base.find("TF sidecar"), std::string::npos);
}

TEST(Window, ShapeStepsAndTheReferenceRule) {
  Job job = MakeJob({{"j/framework/pevents/1/1_n_pythontimeline.json",
                      R"([{"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":0}},
                          {"ph":"X","ts":30,"dur":5,"pid":1,"args":{"step_num":3}},
                          {"ph":"X","ts":10,"dur":5,"pid":1,"args":{"step_num":1}},
                          {"ph":"X","ts":20,"dur":50,"pid":1,"args":{"step_num":2}}])"}});
  ApplyClocks(job, {});
  const JobShape shape = DescribeJob(job);
  EXPECT_EQ(shape.start_ns, 10000);
  EXPECT_EQ(shape.end_ns, 70000);
  EXPECT_EQ(shape.steps, (std::vector<std::pair<int64_t, int64_t>>{{1, 10000}, {2, 20000}, {3, 30000}}));
  EXPECT_EQ(shape.steps_from, "pythontimeline step_num");
  Options o;
  o.unit = Unit::kStep;
  o.start = 1;
  o.end = 3;
  Window w;
  ASSERT_FALSE(ResolveWindow(o, shape, &w));
  EXPECT_EQ(w.start_ns, 10000);
  EXPECT_EQ(w.end_ns, 29000) << "1 µs before the end step";
  ApplyWindow(w, job);
  int kept = 0;
  for (const Event& e : job.sources[0].events) kept += e.keep;
  EXPECT_EQ(kept, 2) << "step 3's slice starts after the window";
  o.end = 9;
  auto fatal = ResolveWindow(o, shape, &w);
  ASSERT_TRUE(fatal);
  EXPECT_EQ(fatal->code, Code::kUnknownStep);
  EXPECT_NE(fatal->message.find("1-3"), std::string::npos) << fatal->message;
}

TEST(Window, PairsAreKeptOrDroppedTogether) {
  Job job = MakeJob({{"u.json", Trace(R"({"ph":"B","ts":1594662618000000,"pid":1,"tid":1},
                                         {"ph":"E","ts":1594662618000100,"pid":1,"tid":1},
                                         {"ph":"b","cat":"c","id":5,"ts":1594662618000000,"pid":1},
                                         {"ph":"e","cat":"c","id":5,"ts":1594662618000500,"pid":1})")}});
  ApplyClocks(job, {});
  Window w;
  w.bounded = true;
  w.start_ns = 1594662618000050000;
  w.end_ns = 1594662618000060000;
  ApplyWindow(w, job);
  for (const Event& e : job.sources[0].events) EXPECT_TRUE(e.keep) << e.ph << " straddles the window with its partner";
  w.start_ns = 1594662618000200000;
  ApplyWindow(w, job);
  EXPECT_FALSE(job.sources[0].events[0].keep);
  EXPECT_FALSE(job.sources[0].events[1].keep) << "the E inside goes with its B";
  EXPECT_TRUE(job.sources[0].events[2].keep);
}

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

TEST(Tracks, PidsPerSourceNamedAndTidsKeptWhenValid) {
  Job job = MakeJob({{"a.json", Trace(R"({"ph":"M","name":"process_name","pid":"Spans","args":{"name":"spans"}},
                                        {"ph":"X","ts":1,"dur":5,"pid":"Spans","tid":9},
                                        {"ph":"X","ts":2,"dur":5,"pid":"Spans","tid":9},
                                        {"ph":"i","ts":1,"pid":-1,"tid":"x"})")},
                     {"b.json", Trace(R"({"ph":"i","ts":1,"pid":7,"tid":3})")}});
  ApplyClocks(job, {});
  const TrackPlan plan = AssignTracks(job, Group::kSource);
  ASSERT_EQ(plan.process_names.size(), 3u);
  EXPECT_EQ(plan.process_names[0].second, "a · trace · spans (pid Spans)");
  EXPECT_EQ(plan.process_names[1].second, "a · trace · pid -1");
  EXPECT_EQ(plan.process_names[2].second, "b · trace · pid 7");
  const SourceTracks& a = plan.sources[0];
  EXPECT_EQ(a.pid[0], 1u);
  ASSERT_EQ(a.tids[0].size(), 2u) << "two lanes: the slices overlap";
  EXPECT_EQ(a.tids[0][0], 9u) << "the original tid is kept";
  for (const Event& e : job.sources[0].events)
    if (e.ph == 'X') EXPECT_EQ(e.lane, e.ts == 2000 ? 1 : 0);
  EXPECT_EQ(plan.sources[1].tids[0], (std::vector<uint32_t>{3}));
  bool lane_named = false;
  for (auto& [pid, tid, name] : plan.thread_names) lane_named |= name == "tid 9 #2";
  EXPECT_TRUE(lane_named);
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
