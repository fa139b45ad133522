// The smdebug module (core/formats/smdebug.cc): pythontimeline, model_timeline and Horovod
// timelines — their clock header, steps, collectives and node ids.
#include <gtest/gtest.h>

#include "formats/format.h"
#include "format_util.h"

namespace tracemerge {
namespace {

using test::IdentityOf;
using test::ParseFile;

TEST(Smdebug, NodeIdNamesTheHostAndTheStreamRunsAcrossRotatedFiles) {
  ParsedSource s = ParseFile("job/framework/pevents/2020091312/1600000000_1-algo-2_horovod_timeline.json",
                         R"J([{"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":1600000000000000}},
                             {"name":"process_name","ph":"M","pid":4,"args":{"name":"HorovodAllreduce_grad_3"}},
                             {"name":"ALLREDUCE","ph":"B","pid":4,"ts":10},
                             {"name":"BROADCAST","ph":"B","pid":4,"ts":20},{"pid":4,"ph":"E","ts":30},
                             {"pid":4,"ph":"E","ts":40}])J");
  EXPECT_EQ(s.cls.format, FormatId::kSmdebug);
  EXPECT_EQ(s.cls.kind, Kind::kHorovod);
  EXPECT_TRUE(s.said.header);
  EXPECT_EQ(s.events[0].ts, 1600000000000010000) << "based on the header";
  ASSERT_EQ(s.anchors.size(), 1u) << "ALLREDUCE, not BROADCAST";
  EXPECT_EQ(s.anchors[0].tier, AnchorTier::kHorovod);
  const TimeBase tb = FormatOf(s.cls.format).Clock(s, {});
  EXPECT_EQ(tb.kind, BaseKind::kSmdebugHeader);
  EXPECT_EQ(tb.value, "1600000000000000");
  const Identity id = IdentityOf(s);
  EXPECT_EQ(id.run, "job");
  EXPECT_EQ(id.host, "algo-2");
  EXPECT_STREQ(id.host_from, "node id");
  EXPECT_EQ(id.node, "1-algo-2");
  EXPECT_EQ(id.stream, "horovod 1-algo-2");
  EXPECT_EQ(id.label, "1-algo-2 · horovod");
  EXPECT_EQ(HostOfNodeId("88359-8c859046be41.ant.amazon.com"), "8c859046be41.ant.amazon.com");
  EXPECT_EQ(HostOfNodeId("algo-1"), "algo-1") << "no rank or pid: the id is the host";
}

TEST(Smdebug, PythontimelineStepsAndAHeaderThatIsNotANumber) {
  ParsedSource s = ParseFile("j/framework/pevents/1/1_0-h_pythontimeline.json",
                         R"J([{"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":"x"}},
                             {"name":"Step:ModeKeys.TRAIN","ph":"X","pid":1,"ts":5,"dur":1,"args":{"step_num":"3"}}])J");
  EXPECT_EQ(s.report.events_dropped, 1u);
  EXPECT_EQ(s.warnings[0].code, Code::kBadEvent);
  EXPECT_EQ(s.step_kind, StepKind::kStepNum);
  EXPECT_EQ(s.steps, (Marks{{3, 0}}));
  EXPECT_EQ(FormatOf(s.cls.format).Clock(s, {}).kind, BaseKind::kNone);
}

}  // namespace
}  // namespace tracemerge
