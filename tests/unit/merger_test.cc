// Merge semantics on small hand-made inputs: system metrics, limits, output form and
// what no one stage decides (the stages' own: window_test, clocks_test, tracks_test).
#include "merger.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "simdjson.h"
#include "test_util.h"

namespace tracemerge::test {

TEST(MergedMetrics, EverySampleBecomesACounterPerNode) {
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

TEST(MergedOutput, MetadataFirstSortedStableAndReportEmbedded) {
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

TEST(MergedOutput, GzipOutputInflatesToThePlainOutput) {
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
