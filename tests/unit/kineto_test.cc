// The Kineto module (core/formats/kineto.cc): PyTorch profiler traces — their clock,
// steps, collectives, ranks and default file names.
#include <gtest/gtest.h>

#include "formats/format.h"
#include "format_util.h"

namespace tracemerge {
namespace {

using test::IdentityOf;
using test::ParseFile;

TEST(Kineto, TopLevelKeysStepsAndCollectives) {
  ParsedSource s = ParseFile("r/rank-3.json", R"J({"schemaVersion":1,"traceEvents":[
      {"ph":"X","name":"ProfilerStep#7","ts":1,"dur":100,"pid":1,"tid":1},
      {"ph":"X","name":"record_param_comms","ts":2,"dur":1,"pid":1,"tid":1,
       "args":{"Collective name":"allreduce","Seq":12,"Process Group Name":"0"}},
      {"ph":"X","name":"record_param_comms","ts":3,"dur":1,"pid":1,"tid":1,"args":{"Collective name":"broadcast"}},
      {"ph":"X","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)","ts":4,"dur":5,"pid":0,"tid":7},
      {"ph":"X","name":"ncclDevKernel_Generic_4(x)","ts":9,"dur":5,"pid":0,"tid":7,"args":{"Collective name":"_allgather_base"}},
      {"ph":"X","name":"ncclKernel_SendRecv_RING(x)","ts":14,"dur":5,"pid":0,"tid":7}],
      "distributedInfo":{"backend":"nccl","rank":3},"host_name":"ip-10-0-0-7","baseTimeNanoseconds":1700000000000000000})J");
  EXPECT_EQ(s.cls.format, FormatId::kKineto);
  EXPECT_EQ(s.said.rank, 3);
  EXPECT_EQ(s.said.host, "ip-10-0-0-7");
  EXPECT_EQ(s.step_kind, StepKind::kProfilerStep);
  EXPECT_EQ(s.steps, (Marks{{7, 0}}));
  ASSERT_EQ(s.anchors.size(), 4u) << "the all-reduce op, its kernel, the generic kernel's all-gather, the send/recv";
  EXPECT_EQ(s.anchors[3].tier, AnchorTier::kExchange) << "time in communication, never matched";
  EXPECT_EQ(s.anchors[0].tier, AnchorTier::kHostOp);
  EXPECT_TRUE(s.anchors[0].seq);
  EXPECT_EQ(s.anchors[0].key, "0\x1f" "allreduce\x1f" "seq 12");
  EXPECT_EQ(s.anchors[1].tier, AnchorTier::kKernel);
  EXPECT_FALSE(s.anchors[1].seq);
  EXPECT_EQ(s.anchors[2].key.substr(0, 11), "\x1f" "allgather\x1f");
  const TimeBase tb = FormatOf(s.cls.format).Clock(s, {});
  EXPECT_EQ(tb.kind, BaseKind::kKinetoBase);
  EXPECT_EQ(tb.base_ns, 1700000000000000000);
  const Identity id = IdentityOf(s);
  EXPECT_EQ(id.host, "ip-10-0-0-7");
  EXPECT_STREQ(id.host_from, "host_name");
  EXPECT_EQ(id.rank, 3);
  EXPECT_EQ(id.run, "r");
  EXPECT_EQ(id.label, "rank 3 · ip-10-0-0-7");
  EXPECT_EQ(id.device, "") << "no process says its GPU";
  ParsedSource g = ParseFile("r/rank-1.json", R"J({"schemaVersion":1,"traceEvents":[
      {"ph":"M","name":"process_labels","pid":1,"args":{"labels":"GPU 1"}},
      {"ph":"M","name":"process_labels","pid":2,"args":{"labels":"CPU"}},
      {"ph":"X","name":"k","ts":1,"dur":1,"pid":1,"tid":7}]})J");
  EXPECT_EQ(IdentityOf(g).device, "GPU 1");
}

TEST(Kineto, PyTorchsDefaultFileNameIsReadAsHostPidAndStamp) {
  const auto name = ParseKinetoName("ip-10-0-0-7_4242.1700000000123456789.pt.trace.json.gz");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->host, "ip-10-0-0-7");
  EXPECT_EQ(name->pid, "4242");
  EXPECT_EQ(name->stamp, "1700000000123456789");
  EXPECT_EQ(ParseKinetoName("node_a.b_17.1694128201545.pt.trace.json")->host, "node_a.b") << "the pattern; believed or not later";
  EXPECT_FALSE(ParseKinetoName("rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")) << "not its pattern";
  EXPECT_FALSE(ParseKinetoName("host_12.1700000000123456789.json"));
  EXPECT_FALSE(ParseKinetoName("_12.1700000000123456789.pt.trace.json"));
}

// The name says a host only when the trace agrees: its pid is one of the
// trace's and its stamp a nanosecond one, not before the trace.
TEST(Kineto, AFileNameSaysTheHostOnlyWhenTheTraceAgrees) {
  const char* kTrace = R"J({"schemaVersion":1,"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":4242,"tid":1}],
                           "distributedInfo":{"rank":5},"baseTimeNanoseconds":1700000000000000000})J";
  ParsedSource s = ParseFile("job/gpu-7_4242.1700000000123456789.pt.trace.json.gz", kTrace);
  Identity id = IdentityOf(s);
  EXPECT_EQ(id.host, "gpu-7");
  EXPECT_STREQ(id.host_from, "file name");
  EXPECT_EQ(id.host_note, "");
  EXPECT_EQ(id.label, "rank 5 · gpu-7");

  id = IdentityOf(ParseFile("job/worker0_step_12.1700000000123456789.pt.trace.json", kTrace));
  EXPECT_EQ(id.host, "") << "12 is no pid of the trace";
  EXPECT_STREQ(id.host_from, "");
  EXPECT_NE(id.host_note.find("12 is no pid of its events"), std::string::npos) << id.host_note;
  EXPECT_EQ(id.label, "rank 5") << "a rank, not a made-up host";

  id = IdentityOf(ParseFile("job/gpu-7_4242.1694128201545.pt.trace.json", kTrace));
  EXPECT_EQ(id.host, "") << "a millisecond stamp";
  EXPECT_NE(id.host_note.find("not a nanosecond stamp (13 digits, not 19)"), std::string::npos) << id.host_note;

  id = IdentityOf(ParseFile("job/gpu-7_4242.1600000000000000000.pt.trace.json", kTrace));
  EXPECT_EQ(id.host, "") << "a stamp three years before the trace it names";
  EXPECT_NE(id.host_note.find("before the trace's first event"), std::string::npos) << id.host_note;
}

TEST(Kineto, ABadBaseTimeIsIgnoredWithAWarning) {
  ParsedSource s = ParseFile("a.pt.trace.json", R"J({"traceEvents":[{"ph":"i","ts":1}],"baseTimeNanoseconds":"x"})J");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0].code, Code::kBadEvent);
  EXPECT_EQ(FormatOf(s.cls.format).Clock(s, {}).kind, BaseKind::kNone);
}

}  // namespace
}  // namespace tracemerge
