// Clocks across hosts and runs side by side (align.h), on jobs made by the
// project's generator (tests/bench/gen_ranks.py): hosts whose clocks are off
// by known amounts, ranks that reach each collective at their own time.
// The estimates must come within a few µs of the truth, and after
// --align clocks every collective must end together on every rank.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>

#include "simdjson.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

class Align : public ScratchDirTest {
 protected:
  // Runs the generator into dir_/name; returns the folder.
  std::string Generate(const std::string& name, const std::string& args) {
    const std::string out = (dir_ / name).string();
    const std::string cmd = "python3 " TRACEMERGE_SOURCE_DIR "/tests/bench/gen_ranks.py " + out + " " + args;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return out;
  }
  // The generator's truth: each host's clock offset (µs).
  std::map<std::string, double> Offsets(const std::string& job) {
    simdjson::dom::parser p;
    simdjson::dom::element truth;
    std::map<std::string, double> out;
    if (p.load(job + ".truth.json").get(truth)) return ADD_FAILURE() << "no truth for " << job, out;
    simdjson::dom::array hosts, offsets;
    if (truth["hosts"].get_array().get(hosts) || truth["offsets_us"].get_array().get(offsets)) return out;
    for (size_t i = 0; i < hosts.size(); i++) {
      std::string_view host;
      double offset = 0;
      if (hosts.at(i).get_string().get(host) || offsets.at(i).get_double().get(offset)) continue;
      out[std::string(host)] = offset;
    }
    return out;
  }
  MergeResult Merge(const std::string& job, Options o = {}) { return MergeInputs(ReadTree(job), o); }
};

// The host a generated file belongs to: "job/host-b/rank2.pt.trace.json" → "host-b".
std::string HostOf(const std::string& path) {
  const size_t a = path.find('/') + 1;
  return path.substr(a, path.find('/', a) - a);
}

// For each collective (the kernels' External id), how far apart its ends are across ranks.
int64_t WorstSpreadOfKernelEnds(const std::string& output) {
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  simdjson::dom::array events;
  if (p.parse(output).get(doc) || doc["traceEvents"].get_array().get(events)) return ADD_FAILURE() << "not JSON", 0;
  std::map<int64_t, std::pair<double, double>> ends;  // id → (min, max) µs
  for (simdjson::dom::element e : events) {
    std::string_view name;
    if (e["name"].get_string().get(name) || name.rfind("ncclDevKernel_", 0) != 0) continue;
    double ts = 0, dur = 0;
    int64_t id = 0;
    if (e["ts"].get_double().get(ts) || e["dur"].get_double().get(dur) || e["args"]["External id"].get_int64().get(id))
      continue;
    const double end = ts + dur;
    auto [it, added] = ends.try_emplace(id, end, end);
    it->second.first = std::min(it->second.first, end);
    it->second.second = std::max(it->second.second, end);
  }
  EXPECT_GT(ends.size(), 10u);
  double worst = 0;
  for (auto& [id, mm] : ends) worst = std::max(worst, mm.second - mm.first);
  return std::llround(worst * 1000);
}

TEST_F(Align, KinetoRanksOnThreeHostsClocksEstimatedWithinMicrosecondsAndAligned) {
  for (const char* variant : {"", "--no-seq", "--no-clock"}) {
    SCOPED_TRACE(variant);
    const std::string job = Generate(std::string("job") + (variant[0] ? variant + 5 : ""),
                                     std::string("--hosts 4 --offsets-us 0,300,-6000,2500 --jitter-us 2 ") + variant);
    const auto truth = Offsets(job);
    const MergeResult plain = Merge(job);
    ASSERT_FALSE(plain.report.fatal);
    EXPECT_GT(WorstSpreadOfKernelEnds(plain.output), 2000000) << "unaligned, collectives end ms apart";
    size_t skews = 0;
    for (const Diagnostic& w : plain.report.warnings) skews += w.code == Code::kClockSkew;
    EXPECT_EQ(skews, 3u) << "one per host whose clock is off";
    for (const SourceReport& s : plain.report.sources) {
      ASSERT_TRUE(s.clock_known) << s.path;
      EXPECT_GE(s.clock_anchors, 40u) << s.path;
      EXPECT_EQ(s.aligned_ns, 0) << "nothing moves without --align";
      const double want_us = -(truth.at(HostOf(s.path)) - truth.at("host-a"));
      EXPECT_NEAR(s.clock_shift_ns / 1000.0, want_us, 3.0) << s.path << " from " << s.clock_from;
      EXPECT_LT(s.clock_spread_ns, 3000) << s.path;
      EXPECT_EQ(s.identity.group.substr(0, 5), "rank ") << s.path;
    }
    Options scan;
    scan.scan_only = true;
    const MergeResult scanned = Merge(job, scan);
    ASSERT_EQ(scanned.report.sources.size(), plain.report.sources.size());
    for (size_t i = 0; i < scanned.report.sources.size(); i++)
      EXPECT_EQ(scanned.report.sources[i].identity.group, plain.report.sources[i].identity.group) << "the page groups by it before a merge";
    Options o;
    o.align = tracemerge::Align::kClocks;
    const MergeResult aligned = Merge(job, o);
    ASSERT_FALSE(aligned.report.fatal);
    EXPECT_LT(WorstSpreadOfKernelEnds(aligned.output), 2 * 2000 + 1500) << "within the jitter (±2 µs) and the estimate";
    for (const SourceReport& s : aligned.report.sources)
      if (HostOf(s.path) != "host-a") EXPECT_NE(s.aligned_ns, 0) << s.path;
    EXPECT_NE(aligned.output.find("\"align\":\"clocks\""), std::string::npos);
    EXPECT_NE(aligned.output.find("(aligned "), std::string::npos) << "the move shows in the process names";
  }
}

TEST_F(Align, SmdebugNodesByTheirHorovodOpsTheirOtherFilesMoveWithThem) {
  const std::string job = Generate("sm", "--format smdebug --hosts 3 --offsets-us 0,800,-3000");
  const auto truth = Offsets(job);
  Options o;
  o.align = tracemerge::Align::kClocks;
  const MergeResult r = Merge(job, o);
  ASSERT_FALSE(r.report.fatal);
  std::map<std::string, int64_t> horovod_shift, python_shift;
  for (const SourceReport& s : r.report.sources) {
    (s.kind == Kind::kHorovod ? horovod_shift : python_shift)[s.node] = s.aligned_ns;
    if (s.kind == Kind::kHorovod) {
      ASSERT_TRUE(s.clock_known) << s.path;
      EXPECT_EQ(s.clock_from == "the reference" || s.clock_from == "Horovod ops", true) << s.clock_from;
      EXPECT_NEAR(s.clock_shift_ns / 1000.0, -(truth.at(s.node) - truth.at("host-a")), 3.0) << s.path;
    }
  }
  EXPECT_EQ(horovod_shift, python_shift) << "a node's pythontimeline moves with its horovod timeline";
  EXPECT_NEAR(horovod_shift["host-b"] / 1000.0, -800, 3.0);
}

TEST_F(Align, WithoutCollectivesItSaysSoAndMovesNothing) {
  Options o;
  o.align = tracemerge::Align::kClocks;
  const MergeResult r = MergeInputs(ReadTree(Corpus("smdebug/tests/profiler/resources/merge_traces")), o);
  const MergeResult plain = MergeInputs(ReadTree(Corpus("smdebug/tests/profiler/resources/merge_traces")), {});
  bool said = false;
  for (const Diagnostic& w : r.report.warnings) said |= w.message.rfind("--align clocks: no collectives", 0) == 0;
  EXPECT_TRUE(said);
  EXPECT_EQ(r.output.substr(0, r.output.find("\"metadata\"")), plain.output.substr(0, plain.output.find("\"metadata\"")));
}

// Two runs recorded days apart, dropped as two folders, on one timeline: step 2 starts together.
TEST_F(Align, TwoRunsSideBySideByTheirSteps) {
  std::vector<Input> runs = ReadTree(Generate("monday", "--hosts 1 --ranks-per-host 1 --offsets-us 0 --seed 3"));
  for (Input& in : ReadTree(Generate("thursday", "--hosts 1 --ranks-per-host 1 --offsets-us 0 --seed 4 --base-us 1700259200000000")))
    runs.push_back(std::move(in));
  for (bool by_window : {false, true}) {
    Options o;
    o.align = tracemerge::Align::kSteps;
    if (by_window) {
      o.unit = Unit::kStep;
      o.start = 2;
    }
    const MergeResult r = MergeInputs(runs, o);
    ASSERT_FALSE(r.report.fatal) << r.report.fatal->ToString();
    ASSERT_EQ(r.report.align_step, by_window ? std::optional<int64_t>(2) : std::optional<int64_t>(0));
    // Each run's ProfilerStep#<step> starts at the same instant.
    const std::string name = "\"ProfilerStep#" + std::to_string(*r.report.align_step) + "\"";
    std::vector<double> starts;
    std::string err;
    for (const OutEvent& e : ParseOutput(r.output, &err))
      if ("\"" + e.name + "\"" == name) starts.push_back(e.ts);
    ASSERT_EQ(starts.size(), 2u);
    EXPECT_EQ(starts[0], starts[1]);
    int64_t moved = 0;
    for (const SourceReport& s : r.report.sources) moved += s.aligned_ns != 0;
    EXPECT_EQ(moved, 1) << "the reference run stays; the other moves ~3 days";
  }
}

}  // namespace
}  // namespace tracemerge::test
