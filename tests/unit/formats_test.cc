// Each input format's module (core/formats/) alone: what it recognises, what
// it reads while a file is parsed (clock header, steps, collectives), its time
// base and who recorded the file.
#include <gtest/gtest.h>

#include "formats/collectives.h"
#include "formats/format.h"
#include "formats/tf_profiler.h"
#include "parse.h"
#include "stream.h"

namespace tracemerge {
namespace {

// A file as ingest parses it (classified by its name and bytes).
ParsedSource Parse(const std::string& path, const std::string& text, bool in_folder = true) {
  SourceStream stream(path, 0, 1 << 30, false, ByteBuffer(), text.size());
  stream.SetInFolder(in_folder);
  stream.Append(text);
  SourceBytes bytes = std::move(stream).End();
  bytes.Inflate();
  EventParser parser;
  return ParseSource(bytes, ParseLimits(), parser, nullptr);
}

Identity IdentityOf(const ParsedSource& s, const JobFacts& facts = {}) {
  return FormatOf(s.cls.format).Identify(s, facts);
}

// ---- the formats asked in order (kinds.h Classify) ----------------------------------------

TEST(Classify, EachFileByItsFormatByNameAndContent) {
  auto c = Classify("job/framework/pevents/2020071317/1594662624718694_905-b88ab1bb8259_pythontimeline.json", "[\n{");
  EXPECT_EQ(c.kind, Kind::kPythonTimeline);
  EXPECT_EQ(c.format, FormatId::kSmdebug);
  EXPECT_EQ(c.node, "905-b88ab1bb8259");
  EXPECT_EQ(Classify("x/1590461139923994_0001_model_timeline.json", "[").kind, Kind::kModelTimeline);
  EXPECT_EQ(Classify("r/rank-0.pt.trace.json.gz", "{\"schemaVersion\":1").format, FormatId::kKineto);
  EXPECT_EQ(Classify("r/rank-0.pt.trace.json.gz", "{\"schemaVersion\":1").kind, Kind::kOther);
  EXPECT_EQ(Classify("r/x.json", "{\"traceEvents\":[").format, FormatId::kChrome);
  EXPECT_EQ(Classify("j/system/incremental/1/1591160699.algo-1.json",
                     "{\"Name\":\"cpu0\",\"Dimension\":\"CPUUtilization\",\"Value\":4,\"Timestamp\":1}\n").format,
            FormatId::kSystemMetrics);
}

TEST(Classify, NameAloneIsNotEnoughAndNonTracesAreSkippedWithAReason) {
  EXPECT_EQ(Classify("a/1_n_pythontimeline.json", "PK\x03\x04").kind, Kind::kSkipped);
  EXPECT_EQ(Classify("a/1_n_pythontimeline.json", "").kind, Kind::kSkipped);
  auto c = Classify("j/plugins/profile/d/host.kernel_stats.pb", "\x08\x01");
  EXPECT_EQ(c.kind, Kind::kSkipped);
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(Classify("j/cProfile/x/python_stats", "\x80").kind, Kind::kSkipped);
  c = Classify("notes.txt", "hello");
  EXPECT_EQ(c.kind, Kind::kSkipped);
  EXPECT_FALSE(c.quiet);
  EXPECT_EQ(KindFromFilterName("pythontimeline.json"), Kind::kPythonTimeline);
  EXPECT_EQ(KindFromFilterName("trace.json.gz"), Kind::kTfTrace);
  EXPECT_EQ(KindFromFilterName("other"), Kind::kOther);
  EXPECT_FALSE(KindFromFilterName("nope"));
}

// ---- collectives (shared by the modules) ----------------------------------------------------

TEST(Collectives, OnlySymmetricOnesWhateverTheirSpelling) {
  EXPECT_EQ(SymmetricOp("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)J"), "allreduce");
  EXPECT_EQ(SymmetricOp("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*)"), "allgather");
  EXPECT_EQ(SymmetricOp("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), "reducescatter");
  EXPECT_EQ(SymmetricOp("nccl:_all_gather_base"), "allgather");
  EXPECT_EQ(SymmetricOp("nccl:reduce_scatter_tensor"), "reducescatter");
  EXPECT_EQ(SymmetricOp("nccl::AllReduce"), "allreduce");
  EXPECT_EQ(SymmetricOp("barrier"), "barrier");
  EXPECT_EQ(SymmetricOp("ALLREDUCE"), "allreduce");
  EXPECT_EQ(SymmetricOp("all_gather_into_tensor"), "allgather");
  // A broadcast's or a reduce's root finishes early; an all-to-all's ranks apart.
  for (const char* no : {"ncclDevKernel_Broadcast_RING_LL", "nccl:broadcast", "BROADCAST", "ncclKernel_Reduce_RING_LL",
                         "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)", "nccl:all_to_all", "ALLTOALL",
                         "record_param_comms", "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"})
    EXPECT_EQ(SymmetricOp(no), "") << no;
  EXPECT_TRUE(IsNcclKernel("ncclDevKernel_Generic_4(x)"));
  EXPECT_FALSE(IsNcclKernel("nccl:all_reduce"));
}

// ---- smdebug ------------------------------------------------------------------------------

TEST(Smdebug, NodeIdNamesTheHostAndTheStreamRunsAcrossRotatedFiles) {
  ParsedSource s = Parse("job/framework/pevents/2020091312/1600000000_1-algo-2_horovod_timeline.json",
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
  ParsedSource s = Parse("j/framework/pevents/1/1_0-h_pythontimeline.json",
                         R"J([{"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":"x"}},
                             {"name":"Step:ModeKeys.TRAIN","ph":"X","pid":1,"ts":5,"dur":1,"args":{"step_num":"3"}}])J");
  EXPECT_EQ(s.report.events_dropped, 1u);
  EXPECT_EQ(s.warnings[0].code, Code::kBadEvent);
  EXPECT_EQ(s.step_kind, StepKind::kStepNum);
  EXPECT_EQ(s.steps, (Marks{{3, 0}}));
  EXPECT_EQ(FormatOf(s.cls.format).Clock(s, {}).kind, BaseKind::kNone);
}

// ---- TF profiler --------------------------------------------------------------------------

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
  job.sources.push_back(Parse(path, TfTrace("")));
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
  only.sources.push_back(Parse(path, TfTrace("")));
  only.Sidecar(kStep + "/0-algo-2_1596659864000000_1596659864100000.metadata");
  c = only.Decide(path);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->detail, "the step folder's only sidecar");
  EXPECT_EQ(IdentityOf(only.sources[0], only.facts).host, "algo-2");

  TfJob none;
  none.sources.push_back(Parse(path, TfTrace("")));
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
    job.sources.push_back(Parse("job/framework/pevents/2020091312/1_" + std::to_string(n) + "-algo-" + std::to_string(n + 1) +
                                "_horovod_timeline.json", horovod(n)));
  job.sources.push_back(Parse(path, TfTrace(ops)));
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
  for (int n = 0; n < 3; n++) together.sources.push_back(Parse("job/framework/pevents/2020091312/1_" + std::to_string(n) + "-algo-" +
                                                               std::to_string(n + 1) + "_horovod_timeline.json", horovod(n)));
  together.sources.push_back(Parse(path, TfTrace(ops)));
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
  job.sources.push_back(Parse(path, TfTrace("")));
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

// ---- system metrics -----------------------------------------------------------------------

TEST(SystemMetrics, NodeIdNamesTheHostEachLineACounter) {
  ParsedSource s = Parse("job/system/incremental/2020060500/1591160699.algo-1.json",
                         "{\"Type\":\"cpu\",\"Name\":\"cpu0\",\"Dimension\":\"CPUUtilization\",\"Value\":4.5,"
                         "\"NodeId\":\"algo-3\",\"Timestamp\":1591160699.5}\n{\"Name\":\"cpu0\",\"Dim");
  EXPECT_EQ(s.cls.format, FormatId::kSystemMetrics);
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].ph, 'C');
  EXPECT_EQ(s.events[0].ts, 1591160699500000000);
  EXPECT_EQ(s.warnings[0].code, Code::kNote) << "a broken last line is normal";
  EXPECT_EQ(FormatOf(s.cls.format).Clock(s, {}).kind, BaseKind::kUnixSeconds);
  const Identity id = IdentityOf(s);
  EXPECT_EQ(id.host, "algo-3") << "NodeId, not the file name";
  EXPECT_STREQ(id.host_from, "NodeId");
  EXPECT_EQ(id.run, "job");
  EXPECT_EQ(id.stream, "system algo-1");
}

// ---- Kineto -------------------------------------------------------------------------------

TEST(Kineto, TopLevelKeysStepsAndCollectives) {
  ParsedSource s = Parse("r/rank-3.json", R"J({"schemaVersion":1,"traceEvents":[
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
  ParsedSource g = Parse("r/rank-1.json", R"J({"schemaVersion":1,"traceEvents":[
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
  ParsedSource s = Parse("job/gpu-7_4242.1700000000123456789.pt.trace.json.gz", kTrace);
  Identity id = IdentityOf(s);
  EXPECT_EQ(id.host, "gpu-7");
  EXPECT_STREQ(id.host_from, "file name");
  EXPECT_EQ(id.host_note, "");
  EXPECT_EQ(id.label, "rank 5 · gpu-7");

  id = IdentityOf(Parse("job/worker0_step_12.1700000000123456789.pt.trace.json", kTrace));
  EXPECT_EQ(id.host, "") << "12 is no pid of the trace";
  EXPECT_STREQ(id.host_from, "");
  EXPECT_NE(id.host_note.find("12 is no pid of its events"), std::string::npos) << id.host_note;
  EXPECT_EQ(id.label, "rank 5") << "a rank, not a made-up host";

  id = IdentityOf(Parse("job/gpu-7_4242.1694128201545.pt.trace.json", kTrace));
  EXPECT_EQ(id.host, "") << "a millisecond stamp";
  EXPECT_NE(id.host_note.find("not a nanosecond stamp (13 digits, not 19)"), std::string::npos) << id.host_note;

  id = IdentityOf(Parse("job/gpu-7_4242.1600000000000000000.pt.trace.json", kTrace));
  EXPECT_EQ(id.host, "") << "a stamp three years before the trace it names";
  EXPECT_NE(id.host_note.find("before the trace's first event"), std::string::npos) << id.host_note;
}

TEST(Kineto, ABadBaseTimeIsIgnoredWithAWarning) {
  ParsedSource s = Parse("a.pt.trace.json", R"J({"traceEvents":[{"ph":"i","ts":1}],"baseTimeNanoseconds":"x"})J");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0].code, Code::kBadEvent);
  EXPECT_EQ(FormatOf(s.cls.format).Clock(s, {}).kind, BaseKind::kNone);
}

// ---- Chrome (generic) ---------------------------------------------------------------------

TEST(Chrome, AnyTraceItsClockOnlyWhenItsTimesAreUnixMicroseconds) {
  ParsedSource rel = Parse("viz/a.json", R"J({"traceEvents":[{"ph":"X","name":"f","ts":6556500799.2,"dur":1,"pid":1,"tid":1}]})J");
  EXPECT_EQ(rel.cls.format, FormatId::kChrome);
  EXPECT_EQ(FormatOf(rel.cls.format).Clock(rel, {}).kind, BaseKind::kNone);
  const Identity id = IdentityOf(rel);
  EXPECT_EQ(id.host, "") << "nothing says its host";
  EXPECT_EQ(id.run, "viz");
  EXPECT_EQ(id.label, "a · trace");
  EXPECT_EQ(IdentityOf(Parse("viz/a.json", "[]", false)).run, "") << "given by itself: no folder dropped";
  ParsedSource abs = Parse("b.json", R"J([{"ph":"i","ts":1594662618874598},{"ph":"M","name":"x","pid":1}])J");
  EXPECT_EQ(FormatOf(abs.cls.format).Clock(abs, {}).kind, BaseKind::kUnixMicros);
}

TEST(Chrome, APyTorchTraceThatDoesNotSayItAtItsStartBecomesKinetos) {
  ParsedSource s = Parse("x/backward_thread.json", R"J([{"ph":"X","name":"ProfilerStep#2","ts":1,"dur":3,"pid":1,"tid":1}])J");
  EXPECT_EQ(s.cls.format, FormatId::kKineto);
  EXPECT_EQ(s.steps, (Marks{{2, 0}}));
  EXPECT_EQ(Parse("x/plain.json", R"J([{"ph":"X","name":"f","ts":1,"dur":3,"pid":1,"tid":1}])J").cls.format, FormatId::kChrome);
  EXPECT_TRUE(Classify("x/1_merged_timeline.json", "{").earlier_output);
}

}  // namespace
}  // namespace tracemerge
