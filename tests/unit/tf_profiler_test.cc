// The TF profiler module (core/formats/tf_profiler.cc, tf_profiler_clock.cc): TF traces,
// their .metadata sidecars, and which sidecar places each trace.
#include <gtest/gtest.h>

#include "formats/format.h"
#include "formats/tf_profiler.h"
#include "format_util.h"

namespace tracemerge {
namespace {

using test::IdentityOf;
using test::ParseFile;

// A job of parsed sources, identified as IdentifySources does (non-TF first,
// then the TF traces' sidecars chosen): the TF traces' clocks in facts.
struct TfJob {
  std::vector<ParsedSource> sources;
  JobFacts facts;
  void Sidecar(const std::string& path) { facts.sidecars.emplace(ParseSidecar(path)->step_dir, path); }
  const TfClock* Decide(const std::string& trace) {
    for (ParsedSource& s : sources) {
      s.report.included = true;  // (as the merge admits them)
      if (s.cls.kind != Kind::kTfTrace) s.identity = IdentityOf(s, facts);
    }
    ChooseTfClocks(sources, &facts);
    auto it = facts.tf_clocks.find(trace);
    return it == facts.tf_clocks.end() ? nullptr : &it->second;
  }
};
const std::string kStep = "job/framework/tensorflow/detailed_profiling/2020091312/000000005";
std::string TfTrace(const std::string& ops) {
  return R"J({"displayTimeUnit":"ns","traceEvents":[{"ph":"X","name":"MatMul","pid":1,"tid":1,"ts":5.5,"dur":1})J" + ops + "]}";
}

TEST(TfProfiler, TheSidecarOfItsHostElseTheStepFoldersOnlyOne) {
  const std::string path = kStep + "/plugins/profile/2020_09_13/host-b.trace.json.gz";
  TfJob job;
  job.sources.push_back(ParseFile(path, TfTrace("")));
  const ParsedSource& s = job.sources[0];
  EXPECT_EQ(s.cls.format, FormatId::kTfProfiler);
  EXPECT_EQ(s.cls.kind, Kind::kTfTrace);
  EXPECT_EQ(s.cls.node, "host-b");
  job.Sidecar(kStep + "/3-host-a_1596659864000000_1596659864100000.metadata");
  job.Sidecar(kStep + "/7-host-b_1596659865000000_1596659865100000.metadata");
  const TfClock* c = job.Decide(path);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->sidecar, "7-host-b_1596659865000000_1596659865100000.metadata");
  EXPECT_EQ(c->why, "its own host's");
  EXPECT_EQ(c->detail, "the sidecar of its own host");
  const TimeBase tb = FormatOf(s.cls.format).Clock(s, job.facts);
  EXPECT_EQ(tb.kind, BaseKind::kTfSidecar);
  EXPECT_EQ(tb.base_ns, int64_t{1596659865000000} * 1000);
  EXPECT_EQ(tb.value, "7-host-b_1596659865000000_1596659865100000.metadata");
  Identity id = IdentityOf(s, job.facts);
  EXPECT_EQ(id.host, "host-b");
  EXPECT_STREQ(id.host_from, "TF sidecar");
  EXPECT_EQ(id.run, "job");

  TfJob only;  // SageMaker: the node's host is not TF's host name, but it is the step's only sidecar
  only.sources.push_back(ParseFile(path, TfTrace("")));
  only.Sidecar(kStep + "/0-algo-2_1596659864000000_1596659864100000.metadata");
  c = only.Decide(path);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->detail, "the step folder's only sidecar");
  EXPECT_EQ(IdentityOf(only.sources[0], only.facts).host, "algo-2");

  TfJob none;
  none.sources.push_back(ParseFile(path, TfTrace("")));
  EXPECT_EQ(none.Decide(path), nullptr);
  EXPECT_EQ(FormatOf(s.cls.format).Clock(none.sources[0], none.facts).kind, BaseKind::kNone) << "without a sidecar: no clock";
  EXPECT_EQ(IdentityOf(none.sources[0], none.facts).host, "") << "TF's file name alone says no host";
}

// Three nodes profiled step 5; TF names its trace "ip-10-0-0-9", no node's
// name. Its HorovodAllreduce ops end where algo-3's timeline ends those
// tensors' ALLREDUCE — placed by algo-3's sidecar; by the others', 900 and 500 µs off.
TEST(TfProfiler, AmongSeveralSidecarsTheHostItsHorovodOpsLineUpWith) {
  const std::string path = kStep + "/plugins/profile/2020_09_13/ip-10-0-0-9.trace.json.gz";
  const int64_t start[] = {1600000000000000, 1600000000000400, 1600000000000900};  // algo-1, -2, -3
  // ALLREDUCE of grad_k ends on every node at one instant, algo-3's start + 1000 k + 300 (clocks in sync):
  // each node's timeline says it relative to its own start.
  auto horovod = [&](int node) {
    const int64_t skew_us = start[2] - start[node];
    std::string text = R"J([{"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":)J" +
                       std::to_string(start[node]) + "}}";
    for (int k = 0; k < 4; k++) {
      text += R"J(,{"name":"process_name","ph":"M","pid":)J" + std::to_string(k + 1) +
              R"J(,"args":{"name":"Adam/HorovodAllreduce_grad_)J" + std::to_string(k) + "\"}}";
      text += R"J(,{"name":"ALLREDUCE","ph":"B","pid":)J" + std::to_string(k + 1) + ",\"ts\":" + std::to_string(1000 * k + 100) + "}";
      text += R"J(,{"ph":"E","pid":)J" + std::to_string(k + 1) + ",\"ts\":" + std::to_string(1000 * k + 300 + skew_us) + "}";
    }
    return text + "]";
  };
  std::string ops;
  for (int k = 0; k < 4; k++)  // (relative to the trace's start: the same as the node's header here)
    ops += R"J(,{"ph":"X","name":"Adam/HorovodAllreduce_grad_)J" + std::to_string(k) + R"J(:HorovodAllreduce","pid":1,"tid":2,"ts":)J" +
           std::to_string(1000 * k + 50) + ",\"dur\":" + std::to_string(252 + k % 2) + "}";
  TfJob job;
  for (int n = 0; n < 3; n++)
    job.sources.push_back(ParseFile("job/framework/pevents/2020091312/1_" + std::to_string(n) + "-algo-" + std::to_string(n + 1) +
                                "_horovod_timeline.json", horovod(n)));
  job.sources.push_back(ParseFile(path, TfTrace(ops)));
  for (int n = 0; n < 3; n++)
    job.Sidecar(kStep + "/" + std::to_string(n) + "-algo-" + std::to_string(n + 1) + "_" + std::to_string(start[n]) + "_" +
                std::to_string(start[n] + 5000) + ".metadata");
  EXPECT_EQ(job.sources[3].anchors.size(), 4u);
  const TfClock* c = job.Decide(path);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->host, "algo-3");
  EXPECT_STREQ(c->host_from, "Horovod ops");
  EXPECT_EQ(c->start_us, start[2]);
  EXPECT_EQ(c->code, Code::kOk);
  EXPECT_EQ(c->why, "algo-3's: its Horovod ops line up");
  EXPECT_NE(c->detail.find("line up with algo-3's timeline"), std::string::npos) << c->detail;
  EXPECT_EQ(IdentityOf(job.sources[3], job.facts).host, "algo-3");

  // Where the nodes started the step together, the ops cannot tell them apart:
  // the sidecars agree (within 1% of the window) — that time, no host.
  TfJob together;
  for (int n = 0; n < 3; n++) together.sources.push_back(ParseFile("job/framework/pevents/2020091312/1_" + std::to_string(n) + "-algo-" +
                                                               std::to_string(n + 1) + "_horovod_timeline.json", horovod(n)));
  together.sources.push_back(ParseFile(path, TfTrace(ops)));
  for (int n = 0; n < 3; n++)
    together.Sidecar(kStep + "/" + std::to_string(n) + "-algo-" + std::to_string(n + 1) + "_" + std::to_string(start[2] + n) + "_" +
                     std::to_string(start[2] + 5000) + ".metadata");
  c = together.Decide(path);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->host, "");
  EXPECT_EQ(c->code, Code::kNote);
  EXPECT_EQ(c->sidecar, "0-algo-1_1600000000000900_1600000000005900.metadata");
  EXPECT_EQ(c->why, "3 sidecars agree within 2 µs; host not known");
}

// Nothing ties a trace without Horovod ops; sidecars 400 and 900 µs apart in a
// 5 ms window do not agree: smdebug's rule (the first), UNSURE_CLOCK naming the spread.
TEST(TfProfiler, SidecarsThatDisagreeAndNothingTiesAreAGuessSaidSo) {
  const std::string path = kStep + "/plugins/profile/2020_09_13/ip-10-0-0-9.trace.json.gz";
  TfJob job;
  job.sources.push_back(ParseFile(path, TfTrace("")));
  job.Sidecar(kStep + "/1-algo-2_1600000000000400_1600000000005400.metadata");
  job.Sidecar(kStep + "/0-algo-1_1600000000000000_1600000000005000.metadata");
  job.Sidecar(kStep + "/2-algo-3_1600000000000900_1600000000005900.metadata");
  const TfClock* c = job.Decide(path);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->sidecar, "0-algo-1_1600000000000000_1600000000005000.metadata") << "the first by name";
  EXPECT_EQ(c->host, "");
  EXPECT_EQ(c->code, Code::kUnsureClock);
  EXPECT_EQ(c->why, "a guess: 3 sidecars up to 900 µs apart; host not known");
  EXPECT_NE(c->detail.find("it has no Horovod ops"), std::string::npos) << c->detail;
}

TEST(TfProfiler, SidecarNamesAndStepFolders) {
  const Classification c = Classify("j/000000000/80807-host_1596659864545103_1596659864854168.metadata", "");
  EXPECT_EQ(c.kind, Kind::kSidecar);
  EXPECT_EQ(c.format, FormatId::kTfProfiler);
  auto sc = ParseSidecar("j/000000000/80807-host_1596659864545103_1596659864854168.metadata");
  ASSERT_TRUE(sc);
  EXPECT_EQ(sc->step_dir, "j/000000000");
  EXPECT_EQ(sc->node, "80807-host");
  EXPECT_EQ(sc->start_us, 1596659864545103);
  EXPECT_FALSE(ParseSidecar("j/x_1_y.metadata"));
  EXPECT_EQ(TfStepDir("j/000000000/plugins/profile/d/host.trace.json.gz"), "j/000000000");
}

}  // namespace
}  // namespace tracemerge
