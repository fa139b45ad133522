// The tracks stage (tracks.cc): pids per source, named; tids kept; ids renumbered and
// linked; lanes for partial overlaps; grouping by phase; rotated smdebug files — alone on a
// job, and through whole merges.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "simdjson.h"
#include "stage_util.h"

namespace tracemerge::test {
namespace {

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

TEST(Tracks, IdsAreRenumberedPerSourceAndStayLinked) {
  std::string trace = R"([{"ph":"s","name":"f","cat":"c","id":1,"pid":1,"tid":1,"ts":1},
                          {"ph":"f","name":"f","cat":"c","id":1,"pid":1,"tid":1,"ts":2,"bp":"e"},
                          {"ph":"b","name":"a","cat":"c","id2":{"global":"0x1"},"pid":1,"ts":1},
                          {"ph":"e","name":"a","cat":"c","id2":{"global":"0x1"},"pid":1,"ts":3}])";
  MergeResult r = MergeInputs({{"a.json", trace}, {"b.json", trace}}, {});
  std::string err;
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  ASSERT_EQ(p.parse(r.output).get(doc), simdjson::SUCCESS);
  std::map<int64_t, std::set<int64_t>> flow_ids, async_ids;  // pid → ids
  simdjson::dom::array events;
  ASSERT_EQ(doc["traceEvents"].get_array().get(events), simdjson::SUCCESS);
  for (simdjson::dom::element e : events) {
    std::string_view ph = e["ph"].get_string().value_unsafe();
    int64_t pid = e["pid"].get_int64().value_unsafe();
    if (ph == "s" || ph == "f") flow_ids[pid].insert(e["id"].get_int64().value_unsafe());
    if (ph == "b" || ph == "e") async_ids[pid].insert(e["id2"]["global"].get_int64().value_unsafe());
  }
  ASSERT_EQ(flow_ids.size(), 2u);
  auto a = flow_ids.begin(), b = std::next(a);
  EXPECT_EQ(a->second.size(), 1u);  // s and f of one source still share their id
  EXPECT_EQ(b->second.size(), 1u);
  EXPECT_NE(*a->second.begin(), *b->second.begin());
  EXPECT_NE(*async_ids.begin()->second.begin(), *std::next(async_ids.begin())->second.begin());
}

TEST(Tracks, StringNegativeAndHugePidsBecomeValidNamedPids) {
  std::string trace = R"({"traceEvents":[
    {"ph":"M","name":"process_name","pid":"Spans","args":{"name":"PyTorch Spans"}},
    {"ph":"X","name":"a","pid":"Spans","tid":"PyTorch Profiler","ts":1,"dur":1},
    {"ph":"X","name":"b","pid":-1,"tid":0,"ts":2,"dur":1},
    {"ph":"X","name":"c","pid":99999999999,"tid":3000000000,"ts":3,"dur":1}]})";
  MergeResult r = MergeInputs({{"k.json", trace}}, {});
  std::map<int64_t, std::string> pname;
  std::set<std::pair<int64_t, int64_t>> threads;
  for (auto& e : Events(r)) {
    EXPECT_GT(e.pid, 0);
    EXPECT_LT(e.pid, int64_t{1} << 31);
    EXPECT_TRUE(e.has_tid);
    if (e.ph != "M") {  // process metadata sits on tid 0
      EXPECT_GT(e.tid, 0);
      EXPECT_LT(e.tid, int64_t{1} << 31);
    }
    if (e.ph == "M" && e.name == "process_name") pname[e.pid] = e.arg_name;
    if (e.ph == "X") threads.insert({e.pid, e.tid});
  }
  ASSERT_EQ(pname.size(), 3u);
  std::string all;
  for (auto& [pid, name] : pname) all += name + "|";
  EXPECT_NE(all.find("PyTorch Spans (pid Spans)"), std::string::npos) << all;
  EXPECT_NE(all.find("pid -1"), std::string::npos) << all;
  EXPECT_NE(all.find("pid 99999999999"), std::string::npos) << all;
  EXPECT_EQ(threads.size(), 3u);
}

TEST(Tracks, PartiallyOverlappingSlicesMoveToExtraLanes) {
  std::string trace = R"([{"ph":"X","name":"a","pid":1,"tid":7,"ts":0,"dur":10},
                          {"ph":"X","name":"nested","pid":1,"tid":7,"ts":2,"dur":3},
                          {"ph":"X","name":"partial","pid":1,"tid":7,"ts":5,"dur":10},
                          {"ph":"X","name":"after","pid":1,"tid":7,"ts":10,"dur":1}])";
  auto ev = Events(MergeInputs({{"t.json", trace}}, {}));
  std::map<std::string, int64_t> tid;
  std::map<int64_t, std::string> tname;
  for (auto& e : ev) {
    if (e.ph == "X") tid[e.name] = e.tid;
    if (e.name == "thread_name") tname[e.tid] = e.arg_name;
  }
  EXPECT_EQ(tid["a"], 7);  // the original tid is kept where it can be
  EXPECT_EQ(tid["nested"], 7);
  EXPECT_EQ(tid["after"], 7);
  EXPECT_NE(tid["partial"], 7);
  EXPECT_EQ(tname[tid["partial"]], "tid 7 #2");
}

TEST(Tracks, GroupByPhaseJoinsProcessNamesAcrossFiles) {
  auto file = [](int base) {
    return "[" + std::string(R"({"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":)") +
           std::to_string(base) + R"(}},{"name":"process_name","ph":"M","pid":1,"args":{"name":"Step:ModeKeys.TRAIN"}},)"
           R"({"name":"s","ph":"X","pid":1,"ts":1,"dur":1}])";
  };
  Options o;
  o.group = Group::kPhase;
  auto ev = Events(MergeInputs({{"j/1_algo-1_pythontimeline.json", file(100)},
                                {"j/1_algo-2_pythontimeline.json", file(200)}}, o));
  std::set<int64_t> pids, tids;
  for (auto& e : ev)
    if (e.ph == "X") pids.insert(e.pid), tids.insert(e.tid);
  EXPECT_EQ(pids.size(), 1u);
  EXPECT_EQ(tids.size(), 2u);
}

TEST(Tracks, RotatedSmdebugFilesOfOneNodeShareTheirProcess) {
  std::string a = std::string("[") + kHeader + R"({"name":"x","ph":"X","pid":1,"ts":1,"dur":1}])";
  std::string b = std::string("[") + kHeader + R"({"name":"y","ph":"X","pid":1,"ts":5,"dur":1}])";
  auto ev = NonMeta(MergeInputs({{"j/1_n_model_timeline.json", a}, {"j/2_n_model_timeline.json", b}}, {}));
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].pid, ev[1].pid);
}

}  // namespace
}  // namespace tracemerge::test
