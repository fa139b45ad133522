// The XPlane module (core/formats/xplane.cc) on XSpaces built here field by
// field, on the corpus's real one, and on damaged bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "formats/format.h"
#include "formats/protobuf.h"
#include "parse.h"
#include "store.h"
#include "stream.h"
#include "format_util.h"
#include "test_util.h"

namespace tracemerge {
namespace {

// Protobuf's wire format, written: enough to build XSpaces.
std::string Varint(uint64_t v) {
  std::string out;
  do {
    out.push_back(static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
    v >>= 7;
  } while (v);
  return out;
}
std::string Int(uint32_t field, int64_t v) { return Varint(uint64_t{field} << 3) + Varint(static_cast<uint64_t>(v)); }
std::string Bytes(uint32_t field, const std::string& b) { return Varint(uint64_t{field} << 3 | 2) + Varint(b.size()) + b; }
std::string Double(uint32_t field, double d) {
  std::string out = Varint(uint64_t{field} << 3 | 1);
  uint64_t v;
  std::memcpy(&v, &d, 8);
  for (int i = 0; i < 8; i++) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}
std::string EventMeta(int64_t id, const std::string& name, const std::string& stats = "") {
  return Bytes(4, Int(1, id) + Bytes(2, Int(1, id) + Bytes(2, name) + stats));
}
std::string StatMeta(int64_t id, const std::string& name) { return Bytes(5, Int(1, id) + Bytes(2, Int(1, id) + Bytes(2, name))); }
std::string Event(int64_t meta, int64_t offset_ps, int64_t duration_ps, const std::string& stats = "") {
  return Bytes(4, Int(1, meta) + Int(2, offset_ps) + Int(3, duration_ps) + stats);
}

using test::ParseFile;

std::string Template(const ParsedSource& s, size_t i) { return std::string(s.arena.data() + s.events[i].offset, s.events[i].length); }

// A host plane: a line at 1 000 ns with an outer event at 1 500 ps lasting 1 µs and one inside
// it, a ref_value stat, a double, a metadata stat the event overrides, and an aggregated event;
// a GPU plane with an NCCL kernel and a Steps line; the Task Environment's start.
std::string Space(bool task_environment) {
  const std::string stats = StatMeta(1, "ref") + StatMeta(2, "hlo_op") + StatMeta(3, "flops") + StatMeta(4, "level") +
                            StatMeta(5, "profile_start_time") + StatMeta(6, "group_id");
  std::string host = Int(1, 0) + Bytes(2, "/host:CPU") +
                     Bytes(3, Int(1, 77) + Bytes(2, "python3") + Int(3, 1000) +
                                  Event(1, 1500, 1000000, Bytes(4, Int(1, 1) + Int(7, 2)) + Bytes(4, Int(1, 3) + Double(2, 2.5))) +
                                  Event(2, 2400, 997000, Bytes(4, Int(1, 4) + Int(4, -3))) +
                                  Bytes(4, Int(1, 1) + Int(5, 12) + Int(3, 40))) +
                     EventMeta(1, "outer \"op\"", Bytes(5, Int(1, 4) + Int(4, 9))) + EventMeta(2, "inner") + stats;
  std::string gpu = Int(1, 0) + Bytes(2, "/device:GPU:0") +
                    Bytes(3, Int(1, 7) + Bytes(2, "Stream #7(Kernel)") + Int(3, 5000) + Event(1, 0, 30000000)) +
                    Bytes(3, Int(1, 9) + Bytes(2, "Steps") + Int(3, 5000) + Event(2, 0, 40000000, Bytes(4, Int(1, 6) + Int(4, 3)))) +
                    EventMeta(1, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)") + EventMeta(2, "3") + stats;
  std::string space = Bytes(1, host) + Bytes(1, gpu) + Bytes(4, "10.0.0.7:6003");
  if (task_environment)
    space += Bytes(1, Int(1, 9) + Bytes(2, "Task Environment") + Bytes(6, Int(1, 5) + Int(3, 1700000000000000000)) + stats);
  return space;
}

TEST(XPlane, EveryEventAtItsPicosecondsRoundedToTheNanosecondNestedStaysNested) {
  const ParsedSource s = ParseFile("job/plugins/profile/s/10.0.0.7_6003.xplane.pb", Space(true));
  ASSERT_EQ(s.cls.kind, Kind::kXPlane);
  ASSERT_EQ(s.events.size(), 4u) << "two host events, a kernel, a step (the aggregated one counted apart)";
  EXPECT_EQ(s.report.events_read, 4u);
  // 1 000 ns + 1 500 ps → 1 002 ns (halves up); its end 1 000 ns + 1 001 500 ps → 2 002 ns.
  EXPECT_EQ(s.events[0].ts, 1002);
  EXPECT_EQ(s.events[0].dur, 1000);
  // Inside: 1 000 ns + 2 400 ps → 1 002 ns; end 1 000 ns + 999 400 ps → 1 999 ns: within the outer one.
  EXPECT_EQ(s.events[1].ts, 1002);
  EXPECT_EQ(s.events[1].dur, 997);
  EXPECT_LE(s.events[1].ts + s.events[1].dur, s.events[0].ts + s.events[0].dur);
  const std::string outer = Template(s, 0);
  EXPECT_NE(outer.find(R"("name":"outer \"op\"")"), std::string::npos) << outer;
  EXPECT_NE(outer.find(R"("ref":"hlo_op")"), std::string::npos) << "a ref_value names the stat it refers to: " << outer;
  EXPECT_NE(outer.find(R"("flops":2.5)"), std::string::npos) << outer;
  EXPECT_NE(outer.find(R"("level":9)"), std::string::npos) << "the metadata's stat: " << outer;
  const std::string inner = Template(s, 1);
  EXPECT_NE(inner.find(R"("level":-3)"), std::string::npos) << inner;
  EXPECT_EQ(inner.find(R"("level":9)"), std::string::npos) << "the event's own stat wins: " << inner;
  bool noted = false;
  for (const Diagnostic& d : s.warnings) noted |= d.code == Code::kNote && d.message.find("1 aggregated event") == 0;
  EXPECT_TRUE(noted);
  // The kernel is a collective; the Steps line marks step 3 (its group_id).
  ASSERT_EQ(s.anchors.size(), 1u);
  EXPECT_EQ(s.anchors[0].tier, AnchorTier::kKernel);
  EXPECT_EQ(s.step_kind, StepKind::kXPlaneSteps);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_EQ(s.steps[0].first, 3);
}

TEST(XPlane, TheTaskEnvironmentIsTheClockTheHostIsNamed) {
  const ParsedSource with = ParseFile("j/10.0.0.7_6003.xplane.pb", Space(true));
  const TimeBase tb = FormatOf(with.cls.format).Clock(with, {});
  EXPECT_EQ(tb.kind, BaseKind::kXPlaneStart);
  EXPECT_EQ(tb.base_ns, 1700000000000000000);
  const Identity id = FormatOf(with.cls.format).Identify(with, {});
  EXPECT_EQ(id.host, "10.0.0.7:6003");
  EXPECT_STREQ(id.host_from, "hostnames");
  const ParsedSource without = ParseFile("j/10.0.0.7_6003.xplane.pb", Space(false));
  EXPECT_EQ(FormatOf(without.cls.format).Clock(without, {}).kind, BaseKind::kNone);
}

// Cut anywhere, or a byte changed anywhere: never a crash or a read past the end (ASan runs
// this too); a damaged file says where (within the file) and keeps the events before it.
// smdebug's detailed_profiling on TF >= 2.11: an XSpace in a step folder beside its node's
// sidecar. Without a clock of its own the sidecar places it, as a TF trace; with one, its own
// stays. Either way the sidecar's node names its host (SageMaker's algo-1, not the machine's
// name the file has), and its run is the job's.
TEST(XPlane, InSmdebugsStepFolderTheSidecarPlacesItAndNamesItsHost) {
  const std::string step = "job/framework/tensorflow/detailed_profiling/2020071317/000000005/";
  const std::string sidecar = "0-algo-1_1594662600000000_1594662601000000.metadata";
  for (bool absolute : {false, true}) {
    SCOPED_TRACE(absolute ? "with a Task Environment" : "relative");
    const test::MergeResult r = test::MergeInputs(
        {{step + sidecar, "", true}, {step + "plugins/profile/2020_07_13/ip-10-0-0-7.xplane.pb", Space(absolute), true}},
        Options());
    ASSERT_FALSE(r.report.fatal);
    size_t planes = 0;
    for (const SourceReport& s : r.report.sources) {
      if (s.kind != Kind::kXPlane) continue;
      planes++;
      EXPECT_EQ(s.identity.host, "algo-1");
      EXPECT_STREQ(s.identity.host_from, "TF sidecar");
      EXPECT_EQ(s.identity.run, "job");
      EXPECT_TRUE(s.absolute);
      EXPECT_EQ(s.time_base_kind, absolute ? BaseKind::kXPlaneStart : BaseKind::kTfSidecar);
      if (!absolute) EXPECT_EQ(s.time_base_value, sidecar);
    }
    EXPECT_GT(planes, 0u);
    // The host line's first event: 1 µs and 1.5 ns after the sidecar's start, or the Task Environment's.
    EXPECT_NE(r.output.find(absolute ? "\"ts\":1700000000000001.002" : "\"ts\":1594662600000001.002"), std::string::npos)
        << r.output.substr(0, 2000);
  }
}

TEST(XPlane, DamagedBytesAreNamedWithTheirOffsetNeverACrash) {
  const std::string good = Space(true);
  for (size_t cut = 1; cut < good.size(); cut++) {
    const ParsedSource s = ParseFile("j/h.xplane.pb", good.substr(0, cut));
    for (const Diagnostic& d : s.warnings) EXPECT_LE(d.offset, cut) << d.message;
    EXPECT_LE(s.events.size(), 4u);
  }
  size_t said = 0;
  for (size_t at = 0; at < good.size(); at++) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0xa5);
    const ParsedSource s = ParseFile("j/h.xplane.pb", bad);
    for (const Diagnostic& d : s.warnings) {
      EXPECT_LE(d.offset, bad.size()) << d.message;
      said += d.message.rfind("protobuf:", 0) == 0;
    }
  }
  // (most changed bytes leave valid protobuf — another value, another length that still fits)
  EXPECT_GT(said, good.size() / 10) << "corruptions that break the wire format are said";
}

// What is said of one event names that event's bytes: a damaged event (its line's framing
// intact) where its damage is, the aggregated events' note where the first of them is.
TEST(XPlane, ADamagedOrAggregatedEventIsNamedAtItsOwnByte) {
  const std::string aggregated = Bytes(4, Int(1, 1) + Int(5, 12));
  const std::string cut = Bytes(4, Int(1, 1) + Int(2, 10) + std::string("\x18\x80", 2));  // duration's varint cut off
  const std::string line = Bytes(3, Int(1, 1) + Int(3, 1000) + Event(1, 0, 5000) + aggregated + Event(1, 9000, 5000) + cut +
                                        Event(1, 20000, 5000));
  const std::string space = Bytes(1, Int(1, 0) + Bytes(2, "/host:CPU") + line + EventMeta(1, "op")) + Bytes(4, "h");
  const ParsedSource s = ParseFile("j/h.xplane.pb", space);
  EXPECT_EQ(s.events.size(), 2u) << "the events before the damaged one";
  const size_t aggregated_at = space.find(aggregated), cut_at = space.find(cut);
  ASSERT_NE(aggregated_at, std::string::npos);
  std::map<Code, uint64_t> at;
  for (const Diagnostic& d : s.warnings) at[d.code] = d.offset;
  ASSERT_TRUE(at.count(Code::kNote));
  EXPECT_EQ(at[Code::kNote], aggregated_at);
  ASSERT_TRUE(at.count(Code::kBadEvent)) << "inside the file, not at its end: a bad event, not a cut file";
  EXPECT_EQ(at[Code::kBadEvent], cut_at + 2 + 4) << "the field whose varint is cut (after the tag+length, two fields)";
}

// A host's XSpace over the file limit (--max-file-mb; the wasm heap's 1 GB) is read a plane at
// a time as its bytes come, each plane under the limit: the same bytes out as read whole, in
// chunks smaller and larger than the limit, plain or gzipped, on one thread or more.
class XPlaneJob : public test::GeneratorTest {};

// The largest top-level field of the files' XSpaces (their planes: field 1, length-delimited).
size_t LargestPlane(const std::vector<test::Input>& inputs) {
  size_t largest = 0;
  for (const test::Input& in : inputs) {
    WireReader r(in.bytes, 0);
    while (r.Next()) largest = std::max(largest, r.bytes().size());
  }
  return largest;
}

TEST_F(XPlaneJob, AFileOverTheLimitIsReadAPlaneAtATime) {
  const std::string job = Generate("xp", "--hosts 2 --gpus-per-host 4 --steps 24 --collectives 4 --seed 60613", "gen_xplane.py");
  const std::vector<test::Input> inputs = test::ReadTree(job);
  const size_t largest = LargestPlane(inputs);
  ASSERT_EQ(inputs.size(), 2u);
  const size_t file = inputs[0].bytes.size();
  ASSERT_GT(file, 3 * largest) << "the planes well under the file (its host plane a third of it)";
  const test::MergeResult whole = test::MergeInputs(inputs, Options());
  ASSERT_FALSE(whole.report.fatal);
  std::vector<test::Input> gzipped = inputs;
  for (test::Input& in : gzipped) in.name += ".gz", in.bytes = test::Gzip(in.bytes);
  const test::MergeResult whole_gz = test::MergeInputs(gzipped, Options());
  for (unsigned threads : {1u, 2u})
    for (size_t chunk : {size_t{4096}, file}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", chunks of " + std::to_string(chunk));
      Options o;
      o.threads = threads;
      o.max_inflated_bytes = 2 * largest;  // (read in pieces past half of it)
      const test::MergeResult r = test::MergeInputs(inputs, o, chunk);
      ASSERT_FALSE(r.report.fatal);
      ASSERT_EQ(r.report.sources.size(), whole.report.sources.size());
      for (size_t i = 0; i < r.report.sources.size(); i++)
        EXPECT_EQ(r.report.sources[i].inflated_bytes, whole.report.sources[i].inflated_bytes) << r.report.sources[i].path;
      EXPECT_TRUE(test::SameText(r.output, whole.output));
      EXPECT_TRUE(test::SameText(test::MergeInputs(gzipped, o, chunk).output, whole_gz.output));
    }
  // A plane over the limit (a host plane padded with an unknown field, last): said, with the
  // planes before it read.
  const test::Input one = inputs[0];
  const std::string padded = Varint(10) + Varint(3 * largest) + std::string(3 * largest, 'p');
  const std::string big = Bytes(1, Int(1, 99) + Bytes(2, "/host:Big") + padded);
  for (const test::Input& in : {test::Input{one.name, one.bytes + big, true}, test::Input{one.name + ".gz", test::Gzip(one.bytes + big), true}}) {
    SCOPED_TRACE(in.name);
    Options small;
    small.threads = 1;
    small.max_inflated_bytes = 2 * largest;
    const test::MergeResult cut = test::MergeInputs({in}, small, 4096);
    ASSERT_FALSE(cut.report.fatal) << cut.report.fatal->ToString();
    std::string said;
    for (const Diagnostic& d : cut.report.warnings)
      if (d.code == Code::kTooLarge) said = d.message;
    std::string all;
    for (const Diagnostic& d : cut.report.warnings) all += d.ToString() + "\n";
    EXPECT_NE(said.find("record"), std::string::npos) << all;
    EXPECT_NE(said.find(std::to_string(one.bytes.size())), std::string::npos) << "from the big plane's byte on: " << said;
    EXPECT_EQ(test::Events(cut).size(), test::Events(test::MergeInputs({one}, Options())).size()) << "every plane before it";
  }
}

// Beyond the memory budget, such a file's templates leave for the store as each plane is read
// (in time order each), not once the file is: the same bytes out, several pieces put a file, the
// writer reading them back forward. A store that fails after some: the rest dropped and said, the
// books kept, the output valid.
class FlakyStore : public TemplateStore {
 public:
  explicit FlakyStore(int fail_after = -1) : fail_after_(fail_after) {}
  bool Put(uint32_t key, std::string_view bytes) override { return puts++ != fail_after_ && file_.Put(key, bytes); }
  bool Get(uint32_t key, uint64_t offset, uint64_t length, char* out) override {
    gets++;
    return file_.Get(key, offset, length, out);
  }
  int puts = 0, gets = 0;

 private:
  int fail_after_;
  FileStore file_;
};

TEST_F(XPlaneJob, OverTheBudgetEachPlanesTemplatesLeaveAsItIsRead) {
  const std::string job = Generate("xp", "--hosts 2 --gpus-per-host 4 --steps 24 --collectives 4 --seed 90917", "gen_xplane.py");
  const std::vector<test::Input> inputs = test::ReadTree(job);
  const size_t largest = LargestPlane(inputs);
  const test::MergeResult whole = test::MergeInputs(inputs, Options());
  ASSERT_FALSE(whole.report.fatal);
  auto store = std::make_shared<FlakyStore>();
  Options o;
  o.threads = 1;
  o.max_inflated_bytes = 2 * largest;  // (read a plane at a time)
  o.memory_budget = 0;                 // (every template beyond it)
  o.store = store;
  const test::MergeResult stored = test::MergeInputs(inputs, o, 4096);
  EXPECT_TRUE(test::SameText(stored.output, whole.output));
  EXPECT_GE(store->puts, 2 * 4) << "a file's planes put one by one, not the file's at its end";
  EXPECT_LE(store->gets, 200) << "read back forward, a window at a time";
  for (int fail_after : {1, 2}) {
    SCOPED_TRACE(fail_after);
    o.store = std::make_shared<FlakyStore>(fail_after);
    const test::MergeResult r = test::MergeInputs({inputs[0]}, o, 4096);
    ASSERT_FALSE(r.report.fatal) << r.report.fatal->ToString();
    std::string said;
    for (const Diagnostic& d : r.report.warnings)
      if (d.code == Code::kIo) said += d.message;
    EXPECT_NE(said.find("could not move this file's events out of memory"), std::string::npos) << said;
    const std::vector<test::OutEvent> events = test::Events(r);  // (fails on invalid JSON)
    uint64_t read = 0, accounted = 0;
    for (const SourceReport& s : r.report.sources) {
      read += s.events_read;
      accounted += s.events_kept + s.events_dropped + s.events_outside + s.metadata_merged + s.metadata_unused;
    }
    EXPECT_EQ(read, accounted) << "every event read kept or counted dropped";
    EXPECT_LT(r.report.events_written, whole.report.events_written);
  }
}

TEST(XPlane, TheCorpusFileEveryEventOfEveryPlane) {
  const std::string path = test::Corpus("real/xprof_gpu_multi_worker/34.83.195.179_6003.xplane.pb");
  const ParsedSource s = ParseFile("xprof/34.83.195.179_6003.xplane.pb", test::ReadFile(path));
  ASSERT_EQ(s.cls.kind, Kind::kXPlane);
  // PROVENANCE.tsv: /host:CPU 15 354 events, GPU 1, 4, 6 hold 19 / 3 875 / 3 880.
  std::map<std::string, size_t> per_plane;
  for (const tracemerge::Event& e : s.events) per_plane[s.procs[s.threads[e.thread].proc].name]++;
  EXPECT_EQ(per_plane["/host:CPU"], 15354u);
  EXPECT_EQ(per_plane["/device:GPU:1"], 19u);
  EXPECT_EQ(per_plane["/device:GPU:4"], 3875u);
  EXPECT_EQ(per_plane["/device:GPU:6"], 3880u);
  EXPECT_EQ(s.said.host, "34.83.195.179:6003");
  for (const Diagnostic& d : s.warnings) EXPECT_NE(d.code, Code::kBadEvent) << d.message;
}

// Every text an XSpace carries — plane, device, line, event and stat names, string stats, host
// names — reaches the output as JSON text: control bytes, quotes, backslashes, bad UTF-8 escaped.
TEST(XPlane, EveryTextItCarriesIsEscapedInTheOutput) {
  const std::string odd = std::string("a\x01\"\\\n\x7f\xff", 7) + "z";
  const std::string stats = StatMeta(1, odd) + StatMeta(2, "s");
  const std::string gpu = Int(1, 0) + Bytes(2, "/device:" + odd + ":1") +
                          Bytes(3, Int(1, 7) + Bytes(2, odd) + Bytes(11, odd + "!") + Int(3, 5000) +
                                       Event(1, 0, 30000000, Bytes(4, Int(1, 1) + Bytes(5, odd)) + Bytes(4, Int(1, 2) + Int(7, 1)))) +
                          Bytes(4, Int(1, 1) + Bytes(2, Int(1, 1) + Bytes(2, odd) + Bytes(4, odd + "?"))) + stats;
  const std::string space = Bytes(1, gpu) + Bytes(4, odd);
  const test::MergeResult r = test::MergeInputs({{"j/plugins/profile/s/h.xplane.pb", space, true}}, Options());
  ASSERT_FALSE(r.report.fatal) << r.report.fatal->ToString();
  const std::vector<test::OutEvent> events = test::Events(r);  // (fails on invalid JSON)
  ASSERT_FALSE(events.empty()) << r.output;
  const std::string shown = std::string("a\x01\"\\\n\x7f\xef\xbf\xbdz");  // (the bad byte: U+FFFD)
  std::set<std::string> threads, processes;
  for (const test::OutEvent& e : events) (e.name == "thread_name" ? threads : processes).insert(e.arg_name);
  EXPECT_EQ(test::Names(test::NonMeta(r)), std::set<std::string>{shown});
  EXPECT_TRUE(threads.count(shown + "!")) << r.output;
  bool host = false;
  for (const std::string& p : processes) host |= p.rfind(shown + " · ", 0) == 0;
  EXPECT_TRUE(host) << "the host its hostnames say, escaped once: " << r.output;
}

}  // namespace
}  // namespace tracemerge
