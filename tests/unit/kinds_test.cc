#include "kinds.h"
#include "formats/tf_profiler.h"

#include <gtest/gtest.h>

namespace tracemerge {

TEST(Classify, SmdebugFilesByNameAndContent) {
  auto c = Classify("job/framework/pevents/2020071317/1594662624718694_905-b88ab1bb8259_pythontimeline.json", "[\n{");
  EXPECT_EQ(c.kind, Kind::kPythonTimeline);
  EXPECT_EQ(c.node, "905-b88ab1bb8259");
  EXPECT_EQ(Classify("x/1590461139923994_0001_model_timeline.json", "[").kind, Kind::kModelTimeline);
  c = Classify("p/1593673051472361_88359-host.example.com_horovod_timeline.json", "[");
  EXPECT_EQ(c.kind, Kind::kHorovod);
  EXPECT_EQ(c.node, "88359-host.example.com");
}

TEST(Classify, NameAloneIsNotEnough) {
  EXPECT_EQ(Classify("a/1_n_pythontimeline.json", "PK\x03\x04").kind, Kind::kSkipped);
  EXPECT_EQ(Classify("a/1_n_pythontimeline.json", "").kind, Kind::kSkipped);
}

TEST(Classify, SystemMetricsByContent) {
  auto c = Classify("job/system/incremental/2020/1591160699.algo-1.json",
                    "{\"Type\": \"cpu\", \"Name\":\"cpu0\", \"Dimension\": \"CPUUtilization\", \"Value\":4.76,"
                    "\"NodeId\":\"algo-1\",\"Timestamp\":1591160699.4570894}\n");
  EXPECT_EQ(c.kind, Kind::kSystem);
  EXPECT_EQ(c.node, "algo-1");
}

TEST(Classify, TfTraceAndSidecar) {
  auto c = Classify("j/detailed_profiling/2020080513/000000000/plugins/profile/2020_08_05/host.trace.json.gz",
                    "{\"displayTimeUnit\":\"ns\"");
  EXPECT_EQ(c.kind, Kind::kTfTrace);
  EXPECT_EQ(c.node, "host");
  EXPECT_EQ(Classify("j/000000000/80807-host_1596659864545103_1596659864854168.metadata", "").kind, Kind::kSidecar);
  auto sc = ParseSidecar("j/000000000/80807-host_1596659864545103_1596659864854168.metadata");
  ASSERT_TRUE(sc);
  EXPECT_EQ(sc->step_dir, "j/000000000");
  EXPECT_EQ(sc->node, "80807-host");
  EXPECT_EQ(sc->start_us, 1596659864545103);
  EXPECT_EQ(TfStepDir("j/000000000/plugins/profile/d/host.trace.json.gz"), "j/000000000");
}

TEST(Classify, KinetoTraceIsOtherEvenWithTraceJsonGzName) {
  EXPECT_EQ(Classify("r/rank-0.pt.trace.json.gz", "{\"schemaVersion\":1").kind, Kind::kOther);
}

TEST(Classify, NonTracesAreSkippedWithAReason) {
  auto c = Classify("j/plugins/profile/d/host.kernel_stats.pb", "\x08\x01");
  EXPECT_EQ(c.kind, Kind::kSkipped);
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(Classify("j/cProfile/x/python_stats", "\x80").kind, Kind::kSkipped);
  c = Classify("notes.txt", "hello");
  EXPECT_EQ(c.kind, Kind::kSkipped);
  EXPECT_FALSE(c.quiet);
}

TEST(KindFromFilterName, ReferenceSpellings) {
  EXPECT_EQ(KindFromFilterName("pythontimeline.json"), Kind::kPythonTimeline);
  EXPECT_EQ(KindFromFilterName("trace.json.gz"), Kind::kTfTrace);
  EXPECT_EQ(KindFromFilterName("system"), Kind::kSystem);
  EXPECT_EQ(KindFromFilterName("other"), Kind::kOther);
  EXPECT_FALSE(KindFromFilterName("nope"));
}

}  // namespace tracemerge
