// Merge semantics on small hand-made inputs: windows, pairs, clocks, ids,
// tracks, lanes, grouping, output form.
#include "merger.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "simdjson.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

std::vector<OutEvent> Events(const MergeResult& r) {
  std::string err;
  auto ev = ParseOutput(r.output, &err);
  EXPECT_EQ(err, "") << r.output;
  return ev;
}

std::vector<OutEvent> NonMeta(const MergeResult& r) {
  std::vector<OutEvent> out;
  for (auto& e : Events(r))
    if (e.ph != "M") out.push_back(e);
  return out;
}

std::set<std::string> Names(const std::vector<OutEvent>& ev) {
  std::set<std::string> s;
  for (auto& e : ev) s.insert(e.name);
  return s;
}

bool HasWarning(const Report& r, Code code, const std::string& file = "") {
  for (auto& w : r.warnings)
    if (w.code == code && (file.empty() || w.file == file)) return true;
  return false;
}

const char kHeader[] =
    R"({"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":1000000}},)";

}  // namespace

TEST(Window, KeepsOverlapsEndsIncludedAndPairsTogether) {
  std::string trace = std::string("[") + kHeader + R"(
    {"name":"before","ph":"X","pid":1,"ts":0,"dur":99},
    {"name":"touches_start","ph":"X","pid":1,"ts":0,"dur":100},
    {"name":"straddles","ph":"B","pid":1,"tid":1,"ts":50},
    {"name":"inside_i","ph":"i","pid":1,"ts":150},
    {"ph":"E","pid":1,"tid":1,"ts":170},
    {"name":"late_b","ph":"B","pid":1,"tid":2,"ts":150},
    {"ph":"E","pid":1,"tid":2,"ts":400},
    {"name":"lonely_b_out","ph":"B","pid":1,"tid":3,"ts":10},
    {"name":"touches_end","ph":"C","pid":1,"ts":200,"args":{"v":1}},
    {"name":"after","ph":"i","pid":1,"ts":201}])";
  Options o;
  o.start = 1000100;
  o.end = 1000200;
  MergeResult r = MergeInputs({{"a/1_n_pythontimeline.json", trace}}, o);
  ASSERT_FALSE(r.report.fatal);
  auto ev = NonMeta(r);
  EXPECT_EQ(Names(ev), (std::set<std::string>{"touches_start", "straddles", "", "inside_i", "late_b", "touches_end"}));
  EXPECT_EQ(ev.size(), 7u);  // both E events came along with their B
  EXPECT_EQ(r.report.sources[0].events_outside, 3u);
}

TEST(Window, StepWindowFollowsTheReferenceRule) {
  std::string trace = std::string("[") + kHeader + R"(
    {"name":"s","ph":"X","pid":1,"ts":30,"dur":5,"args":{"step_num":"3"}},
    {"name":"s","ph":"X","pid":1,"ts":10,"dur":5,"args":{"step_num":"1"}},
    {"name":"s","ph":"X","pid":1,"ts":20,"dur":5,"args":{"step_num":2}},
    {"name":"s","ph":"X","pid":1,"ts":22,"dur":1,"args":{"step_num":"1"}}])";
  Options o;
  o.unit = Unit::kStep;
  o.start = 1;
  o.end = 3;
  MergeResult r = MergeInputs({{"a/1_n_pythontimeline.json", trace}}, o);
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(r.report.window_start_ns, 1000010000);
  EXPECT_EQ(r.report.window_end_ns, 1000029000);  // 1 µs before step 3
  EXPECT_EQ(NonMeta(r).size(), 3u);

  o.end = 9;
  r = MergeInputs({{"a/1_n_pythontimeline.json", trace}}, o);
  ASSERT_TRUE(r.report.fatal);
  EXPECT_EQ(r.report.fatal->code, Code::kUnknownStep);
  EXPECT_NE(r.report.fatal->message.find("1-3"), std::string::npos) << r.report.fatal->message;
  EXPECT_TRUE(r.output.empty());
}

TEST(Window, StepsFromPyTorchProfilerStepsWithoutPythontimeline) {
  std::string trace = R"({"traceEvents":[
    {"name":"ProfilerStep#4","ph":"X","pid":1,"tid":1,"ts":100,"dur":50},
    {"name":"k","ph":"X","pid":1,"tid":1,"ts":120,"dur":5},
    {"name":"ProfilerStep#5","ph":"X","pid":1,"tid":1,"ts":150,"dur":50},
    {"name":"k2","ph":"X","pid":1,"tid":1,"ts":170,"dur":5}],"baseTimeNanoseconds":0})";
  Options o;
  o.unit = Unit::kStep;
  o.start = 4;
  o.end = 5;
  MergeResult r = MergeInputs({{"rank0.json", trace}}, o);
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(Names(NonMeta(r)), (std::set<std::string>{"ProfilerStep#4", "k"}));
}

TEST(Window, EmptyWindowIsValidJsonWithAWarning) {
  Options o;
  o.start = 5;
  o.end = 6;
  MergeResult r = MergeInputs({{"a.json", R"([{"ph":"X","name":"a","ts":100,"dur":1,"pid":1}])"}}, o);
  ASSERT_FALSE(r.report.fatal);
  EXPECT_TRUE(Events(r).empty());
  EXPECT_TRUE(HasWarning(r.report, Code::kEmptyWindow));
}

TEST(Clock, RepeatedSmdebugHeaderRebasesLaterEvents) {
  std::string trace = std::string("[") + kHeader + R"(
    {"name":"a","ph":"X","pid":1,"ts":5,"dur":1},
    {"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":2000000}},
    {"name":"b","ph":"X","pid":1,"ts":5,"dur":1}])";
  auto ev = NonMeta(MergeInputs({{"x/1_0001_model_timeline.json", trace}}, {}));
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].ts, 1000005);
  EXPECT_EQ(ev[1].ts, 2000005);
}

TEST(Clock, KinetoBaseTimeAndManualOffset) {
  std::string trace = R"({"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":1.5,"dur":2}],
                          "baseTimeNanoseconds":1700000000000000000})";
  Options o;
  o.offsets_us = {{"rank1.json", 10}};
  MergeResult r = MergeInputs({{"r/rank0.json", trace}, {"r/rank1.json", trace}}, o);
  auto ev = NonMeta(r);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_DOUBLE_EQ(ev[0].ts, 1700000000000001.5);
  EXPECT_DOUBLE_EQ(ev[1].ts, 1700000000000011.5);
  EXPECT_TRUE(r.report.sources[0].absolute);
  EXPECT_EQ(r.report.sources[1].offset_us, 10);
}

TEST(Clock, SourceWithoutClockIsFlagged) {
  MergeResult r = MergeInputs({{"t.json", R"([{"ph":"i","name":"a","ts":5,"pid":1}])"}}, {});
  EXPECT_TRUE(HasWarning(r.report, Code::kNoClock, "t.json"));
  EXPECT_FALSE(r.report.sources[0].absolute);
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

TEST(SystemMetrics, EverySampleBecomesACounterPerNode) {
  std::string lines =
      R"({"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":4.76,"NodeId":"algo-1","Timestamp":1591160699.4570894})"
      "\n"
      R"({"Type":"gpu","Name":"gpu0","Dimension":"GPUUtilization","Value":99.5,"NodeId":"algo-2","Timestamp":1591160700})"
      "\n"
      R"({"Type":"gpu","Name":"gpu0","Dimension":"GPUUtil)";
  MergeResult r = MergeInputs({{"j/system/incremental/1/1591160699.algo-1.json", lines}}, {});
  auto ev = NonMeta(r);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].ph, "C");
  EXPECT_EQ(ev[0].name, "cpu0_CPUUtilization");
  EXPECT_DOUBLE_EQ(ev[0].ts, 1591160699457089.4);
  EXPECT_NE(ev[0].pid, ev[1].pid);  // one process per node
  EXPECT_TRUE(HasWarning(r.report, Code::kNote));  // the broken last line
}

TEST(Output, MetadataFirstSortedStableAndReportEmbedded) {
  std::string trace = R"([{"ph":"i","name":"late","pid":1,"ts":9},{"ph":"i","name":"tie1","pid":1,"ts":5},
                          {"ph":"M","name":"process_sort_index","pid":1,"args":{"sort_index":3}},
                          {"ph":"i","name":"tie2","pid":1,"ts":5}])";
  MergeResult r = MergeInputs({{"t.json", trace}}, {});
  auto ev = Events(r);
  size_t first_non_meta = 0;
  while (first_non_meta < ev.size() && ev[first_non_meta].ph == "M") first_non_meta++;
  for (size_t i = first_non_meta; i < ev.size(); i++) EXPECT_NE(ev[i].ph, "M");
  ASSERT_EQ(ev.size() - first_non_meta, 3u);
  EXPECT_EQ(ev[first_non_meta].name, "tie1");
  EXPECT_EQ(ev[first_non_meta + 1].name, "tie2");
  EXPECT_NE(r.output.find("\"metadata\":{\"tracemerge\":{\"version\""), std::string::npos);
  EXPECT_NE(r.output.find("\"displayTimeUnit\":\"ms\""), std::string::npos);
}

TEST(Output, GzipOutputInflatesToThePlainOutput) {
  std::vector<Input> in = {{"t.json", R"([{"ph":"X","name":"a","pid":1,"ts":1,"dur":1}])"}};
  Options o;
  MergeResult plain = MergeInputs(in, o);
  o.gzip = true;
  MergeResult gz = MergeInputs(in, o);
  ASSERT_GE(gz.output.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz.output[0]), 0x1f);
  EXPECT_EQ(Inflate(gz.output), plain.output);
}

TEST(Input, GzippedInputInTinyChunks) {
  std::string trace = R"([{"ph":"X","name":"a","pid":1,"ts":1,"dur":1},{"ph":"X","name":"b","pid":1,"ts":3,"dur":1}])";
  std::string gz = Gzip(trace);
  MergeResult whole = MergeInputs({{"t.json", trace}}, {});
  for (size_t chunk : {1, 2, 7}) {
    MergeResult r = MergeInputs({{"t.json", gz}}, {}, chunk);
    EXPECT_EQ(NonMeta(r).size(), 2u) << chunk;
  }
  EXPECT_EQ(NonMeta(whole).size(), 2u);
}

TEST(Input, NothingToMergeIsFatal) {
  MergeResult r = MergeInputs({{"notes.txt", "hello"}}, {});
  ASSERT_TRUE(r.report.fatal);
  EXPECT_TRUE(r.output.empty());
}

TEST(Input, BadEventsAreReportedWithOffsetAndTheRestMerges) {
  std::string trace = R"([{"ph":"X","name":"ok","pid":1,"ts":1,"dur":1},{"ph":"X","name":"bad","ts":tru},)"
                      R"({"name":"no_ph","ts":1},{"ph":"X","name":"big","ts":1e400},{"ph":"X","name":"ok2","pid":1,"ts":2,"dur":-5}])";
  MergeResult r = MergeInputs({{"t.json", trace}}, {});
  EXPECT_EQ(Names(NonMeta(r)), (std::set<std::string>{"ok", "ok2"}));
  bool found = false;
  for (auto& w : r.report.warnings)
    if (w.code == Code::kBadJson && w.file == "t.json" && w.offset == 75) found = true;  // at "tru"
  EXPECT_TRUE(found) << r.report.Summary();
  const SourceReport& s = r.report.sources[0];
  EXPECT_EQ(s.events_read, 5u);
  EXPECT_EQ(s.events_dropped, 3u);
  EXPECT_EQ(s.events_kept, 2u);
}

}  // namespace tracemerge::test

namespace tracemerge::test {

TEST(Progress, ReportsStagesAndCanCancel) {
  std::string trace = "[";
  for (int i = 0; i < 50000; i++) trace += R"({"ph":"i","name":"e","pid":1,"ts":)" + std::to_string(i) + "},";
  trace += "]";
  std::vector<std::string> stages;
  Options o;
  o.progress = [&](const Progress& p) {
    if (stages.empty() || stages.back() != p.stage) stages.push_back(p.stage);
    EXPECT_LE(p.done, p.total);
    return true;
  };
  MergeResult r = MergeInputs({{"t.json", trace}}, o);
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(stages, (std::vector<std::string>{"parse", "plan", "write"})) << "the plan's stages move it too";

  for (const char* stop_at : {"parse", "plan", "write"}) {
    o.progress = [&](const Progress& p) { return std::string(p.stage) != stop_at; };
    r = MergeInputs({{"t.json", trace}}, o);
    ASSERT_TRUE(r.report.fatal) << stop_at;
    EXPECT_EQ(r.report.fatal->code, Code::kCancelled);
  }
}

}  // namespace tracemerge::test

namespace tracemerge::test {

TEST(Scan, DescribesTheJobWithoutWriting) {
  Options o;
  o.scan_only = true;
  MergeResult r = MergeInputs(ReadTree(Corpus("smdebug/tests/profiler/resources/merge_traces")), o);
  ASSERT_FALSE(r.report.fatal);
  EXPECT_TRUE(r.output.empty());
  EXPECT_EQ(r.report.job_start_ns, int64_t{1594662608090195} * 1000);
  ASSERT_FALSE(r.report.steps.empty());
  EXPECT_EQ(r.report.steps_from, "pythontimeline step_num");
  EXPECT_NE(r.report.Summary().find("steps (pythontimeline step_num): 0-"), std::string::npos) << r.report.Summary();
  EXPECT_EQ(r.report.sources.size(), 3u);
}

TEST(Classify, RawGzippedHead) {
  std::string gz = Gzip(R"({"traceEvents":[)" + std::string(100000, ' '));
  auto c = ClassifyRaw("r/rank0.json.gz", gz.substr(0, 200));
  EXPECT_EQ(c.kind, Kind::kOther);
  EXPECT_EQ(c.node, "rank0");
  EXPECT_EQ(ClassifyRaw("x.json.gz", std::string("\x1f\x8bgarbage", 9)).kind, Kind::kSkipped);
}

}  // namespace tracemerge::test

namespace tracemerge::test {

TEST(Determinism, TheOrderFilesArriveInDoesNotMatter) {
  auto inputs = ReadTree(Corpus("smdebug/constructed/combined_job"));
  for (auto& extra : ReadTree(Corpus("real/perfetto_fixture"))) inputs.push_back(extra);
  MergeResult sorted = MergeInputs(inputs, {});
  std::reverse(inputs.begin(), inputs.end());
  MergeResult reversed = MergeInputs(inputs, {});
  std::rotate(inputs.begin(), inputs.begin() + 3, inputs.end());
  MergeResult rotated = MergeInputs(inputs, {});
  EXPECT_TRUE(SameText(reversed.output, sorted.output));
  EXPECT_TRUE(SameText(rotated.output, sorted.output));
}

}  // namespace tracemerge::test

namespace tracemerge::test {
namespace {

// An event nested exactly as deep as the limit is kept, one level more is
// dropped as TOO_DEEP — with args (read on their own path) or without.
TEST(Limits, NestingUpToTheDepthLimitIsKept) {
  Options o;
  o.max_depth = 6;
  auto nest = [](const std::string& key, int levels) {  // levels below the event itself
    return "{\"ph\":\"i\",\"ts\":1,\"name\":\"" + key + std::to_string(levels) + "\",\"" + key + "\":" +
           std::string(levels - 1, '[') + "{}" + std::string(levels - 1, ']') + "}";
  };
  for (const std::string key : {"args", "x"}) {
    std::string trace = "[" + nest(key, 5) + "," + nest(key, 6) + "]";
    MergeResult r = MergeInputs({{"t.json", trace}}, o);
    EXPECT_EQ(Names(NonMeta(r)), std::set<std::string>{key + "5"}) << r.output;
    EXPECT_TRUE(HasWarning(r.report, Code::kTooDeep)) << key;
    EXPECT_EQ(r.report.sources.at(0).events_dropped, 1u) << key;
  }
}

}  // namespace
}  // namespace tracemerge::test
