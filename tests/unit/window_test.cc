// The window stage (window.cc): time and step windows, the reference rule, pairs kept or
// dropped together — alone on a job, and through whole merges.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "stage_util.h"

namespace tracemerge::test {
namespace {

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
  ASSERT_TRUE(ResolveWindow(o, shape).ok());
  const Window w = ResolveWindow(o, shape).value();
  EXPECT_EQ(w.start_ns, 10000);
  EXPECT_EQ(w.end_ns, 29000) << "1 µs before the end step";
  ApplyWindow(w, job);
  int kept = 0;
  for (const Event& e : job.sources[0].events) kept += e.keep;
  EXPECT_EQ(kept, 2) << "step 3's slice starts after the window";
  o.end = 9;
  const Result<Window> bad = ResolveWindow(o, shape);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Code::kUnknownStep);
  EXPECT_NE(bad.error().message.find("1-3"), std::string::npos) << bad.error().message;
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

}  // namespace
}  // namespace tracemerge::test
