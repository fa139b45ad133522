// The registry (core/formats/registry.h), which the kinds, the transfer, the
// page's kind table and the .d.ts unions derive from: every format it lists
// reads a sample file of its own (a format added without one fails here), is
// asked in its place and travels between mergers (the wasm helpers) as itself;
// every kind, time base and step kind has a name of its own, and the filter
// and the kind table take every kind.
#include <gtest/gtest.h>

#include <set>

#include "api_json.h"
#include "formats/format.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

const char* kPevents = "smdebug/tests/profiler/resources/merge_traces/framework/pevents/2020071317/";

// One file each format reads, named as its producer names it.
Input SampleOf(FormatId id) {
  switch (id) {
    case FormatId::kSmdebug:
      return {"job/framework/pevents/2020071317/1594662624718694_905-b88ab1bb8259_pythontimeline.json",
              ReadFile(Corpus(std::string(kPevents) + "1594662624718694_905-b88ab1bb8259_pythontimeline.json"))};
    case FormatId::kTfProfiler:
      return {"job/framework/tensorflow/detailed_profiling/2020071317/000000001/plugins/profile/s/ip-10-0-0-1.trace.json.gz",
              Gzip(R"({"displayTimeUnit":"ns","traceEvents":[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"name":"MatMul"}]})")};
    case FormatId::kSystemMetrics:
      return {"job/system/incremental/2020071317/1594662600.algo-1.json",
              "{\"Type\":\"cpu\",\"Name\":\"cpu0\",\"Dimension\":\"CPUUtilization\",\"Value\":4.5,"
              "\"NodeId\":\"algo-1\",\"Timestamp\":1594662600.25}\n"};
    case FormatId::kKineto:
      return {"ranks/rank-0.pt.trace.json",
              R"({"schemaVersion":1,"baseTimeNanoseconds":1700000000000000000,"traceEvents":[)"
              R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":3}]})"};
    case FormatId::kChrome:
      return {"ranks/x.json", R"({"traceEvents":[{"ph":"X","ts":1700000000000000,"dur":2,"pid":1,"tid":1,"name":"a"}]})"};
    case FormatId::kXPlane:
      return {"xprof/plugins/profile/s/34.83.195.179_6003.xplane.pb",
              ReadFile(Corpus("real/xprof_gpu_multi_worker/34.83.195.179_6003.xplane.pb"))};
    case FormatId::kNone: break;
  }
  return {};
}

#define TRACEMERGE_FORMAT_ID(id, ...) FormatId::id,
constexpr FormatId kEveryFormat[] = {TRACEMERGE_FORMATS(TRACEMERGE_FORMAT_ID)};

TEST(Registry, EveryFormatReadsItsSampleAndTravelsAsItself) {
  ASSERT_EQ(std::size(kEveryFormat), kFormats);
  std::set<std::string> names;
  for (FormatId id : kEveryFormat) {
    const std::string name = FormatName(id);
    SCOPED_TRACE(name);
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << "two formats named " << name;
    EXPECT_EQ(FormatOf(id).id(), id);
    const Input in = SampleOf(id);
    ASSERT_FALSE(in.bytes.empty()) << "no sample file for the format " << name << " (registry_test.cc SampleOf)";
    // Asked in the registry's order, it is the one that takes its file.
    const Classification c = ClassifyRaw(in.name, std::string_view(in.bytes).substr(0, 65536));
    EXPECT_EQ(c.format, id) << c.reason;

    const MergeResult here = MergeInputs({in}, Options());
    ASSERT_FALSE(here.report.fatal) << here.report.fatal->ToString();
    ASSERT_FALSE(here.report.sources.empty());  // (an XSpace is a source per plane)
    for (const SourceReport& r : here.report.sources) {
      EXPECT_TRUE(r.included) << r.path << ": " << r.note;
      EXPECT_EQ(r.identity.format, id) << r.path;
    }
    EXPECT_GT(here.report.events_written, 0u);
    EXPECT_NE(here.report.ToJson().find("\"format\":\"" + name + "\""), std::string::npos);

    // Read by a helper and imported: the same bytes and report.
    Merger helper{Options()};
    helper.BeginSource(in.name);
    helper.AppendChunk(in.bytes);
    helper.EndSource();
    ByteBuffer exported = helper.ExportSource();
    Merger m{Options()};
    const uint32_t arrival = m.ReserveArrival();
    ASSERT_TRUE(m.ImportSource(std::move(exported), arrival)) << "the transfer refuses the format " << name;
    MergeResult imported;
    imported.report = m.Merge([&](std::string_view b) { imported.output.append(b); });
    EXPECT_TRUE(SameText(imported.output, here.output));
    EXPECT_EQ(imported.report.ToJson(), here.report.ToJson());
  }
}

TEST(Registry, EveryKindHasItsNameAndTheFilterAndTheKindTableTakeIt) {
  std::set<std::string> names, only;
  std::string table = KindTableJson();
  size_t at = 0;
  for (const KindRow& r : kKindRows) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(KindName(r.kind), std::string(r.name));
    EXPECT_TRUE(names.insert(r.name).second);
    EXPECT_TRUE(only.insert(r.only).second);
    EXPECT_EQ(KindFromFilterName(r.only), r.kind);
    EXPECT_EQ(KindFromFilterName(r.name), r.kind);
    EXPECT_NE(KindBit(r.kind) & kAllKinds, 0u);
    const std::string row = std::string("{\"key\":\"") + r.name + "\",\"only\":\"" + r.only + "\",\"label\":\"" + r.label + "\"}";
    const size_t found = table.find(row, at);
    ASSERT_NE(found, std::string::npos) << "the kind table lacks, or misorders, " << row << " in " << table;
    at = found + row.size();
  }
  for (Kind k : {Kind::kSidecar, Kind::kSkipped}) {
    EXPECT_TRUE(names.insert(KindName(k)).second) << KindName(k);
    EXPECT_EQ(KindBit(k) & kAllKinds, 0u) << "a kind without events is in the filter's all";
  }
  EXPECT_EQ(Kind::kSkipped, kLastKind);
  EXPECT_FALSE(KindFromFilterName("nope"));
}

TEST(Registry, TimeBasesAndStepKindsHaveNamesOfTheirOwn) {
  std::set<std::string> names, labels, texts;
#define TRACEMERGE_TEST_BASE(id, name, label, said)              \
  EXPECT_EQ(BaseKindName(BaseKind::id), std::string(name));     \
  EXPECT_EQ(BaseKindLabel(BaseKind::id), std::string(label));   \
  EXPECT_TRUE(names.insert(name).second) << name;               \
  EXPECT_TRUE(labels.insert(label).second) << label;
  TRACEMERGE_BASE_KINDS(TRACEMERGE_TEST_BASE)
#define TRACEMERGE_TEST_STEP(id, text)                        \
  EXPECT_EQ(StepKindText(StepKind::id), std::string(text));  \
  EXPECT_TRUE(texts.insert(text).second) << text;
  TRACEMERGE_STEP_KINDS(TRACEMERGE_TEST_STEP)
}

}  // namespace
// What the summary says of a time base: the registry's words, filled in, none left unfilled.
TEST(Registry, ATimeBaseIsSaidWithWhatItWasReadFrom) {
  EXPECT_EQ(TimeBaseText({BaseKind::kTfSidecar, 0, "a.metadata", "", ""}), "TF sidecar a.metadata");
  EXPECT_EQ(TimeBaseText({BaseKind::kTfSidecar, 0, "a.metadata", "", "its host's"}), "TF sidecar a.metadata (its host's)");
  EXPECT_EQ(TimeBaseText({BaseKind::kXPlaneStart, 0, "17", "", ""}), "Task Environment profile_start_time=17 ns");
  EXPECT_EQ(TimeBaseText({}), "none: times stay relative");
#define TRACEMERGE_TEST_SAID(id, name, label, said) \
  EXPECT_EQ(TimeBaseText({BaseKind::id, 0, "V", "W", "D"}).find('{'), std::string::npos) << name;
  TRACEMERGE_BASE_KINDS(TRACEMERGE_TEST_SAID)
}

}  // namespace tracemerge::test
