// The clocks stage (clocks.cc): each source's time base, smdebug headers, Kineto's base
// time, TF sidecars, manual offsets — alone on a job, and through whole merges.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "stage_util.h"

namespace tracemerge::test {
namespace {

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

TEST(Clocks, RepeatedSmdebugHeaderRebasesLaterEvents) {
  std::string trace = std::string("[") + kHeader + R"(
    {"name":"a","ph":"X","pid":1,"ts":5,"dur":1},
    {"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":2000000}},
    {"name":"b","ph":"X","pid":1,"ts":5,"dur":1}])";
  auto ev = NonMeta(MergeInputs({{"x/1_0001_model_timeline.json", trace}}, {}));
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].ts, 1000005);
  EXPECT_EQ(ev[1].ts, 2000005);
}

TEST(Clocks, KinetoBaseTimeAndManualOffset) {
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

TEST(Clocks, SourceWithoutClockIsFlagged) {
  MergeResult r = MergeInputs({{"t.json", R"([{"ph":"i","name":"a","ts":5,"pid":1}])"}}, {});
  EXPECT_TRUE(HasWarning(r.report, Code::kNoClock, "t.json"));
  EXPECT_FALSE(r.report.sources[0].absolute);
}

}  // namespace
}  // namespace tracemerge::test
