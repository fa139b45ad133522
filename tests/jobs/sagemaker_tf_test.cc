// SageMaker's multi-node TF traces (tf_profiler_clock.cc), on jobs from the
// project's generator (tests/bench/gen_ranks.py --sagemaker): every node's
// sidecar in each profiled step's folder, named by its node id ("0-algo-2"),
// every node's trace named by a machine hostname no node id says. The truth
// the generator writes says which sidecar and host is each trace's.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "simdjson.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

using SageMakerTf = GeneratorTest;

struct TfTruth {
  std::string path, host, sidecar;
  int64_t start_us = 0;
  bool tied = true;
};
std::vector<TfTruth> TruthOf(const std::string& job) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::vector<TfTruth> out;
  EXPECT_EQ(parser.load(job + ".truth.json").get(doc), simdjson::SUCCESS);
  simdjson::dom::array list;
  EXPECT_EQ(doc["tf"].get_array().get(list), simdjson::SUCCESS);
  for (simdjson::dom::element t : list) {
    TfTruth x;
    std::string_view text;
    if (!t["path"].get_string().get(text)) x.path = std::string(text);
    if (!t["host"].get_string().get(text)) x.host = std::string(text);
    if (!t["sidecar"].get_string().get(text)) x.sidecar = std::string(text);
    EXPECT_EQ(t["start_us"].get_int64().get(x.start_us), simdjson::SUCCESS);
    EXPECT_EQ(t["tied"].get_bool().get(x.tied), simdjson::SUCCESS);
    out.push_back(x);
  }
  return out;
}

const SourceReport* Source(const Report& r, const std::string& path) {
  for (const SourceReport& s : r.sources)
    if (s.path == path) return &s;
  return nullptr;
}

// How many of a TF trace's events overlap [lo, hi] µs, placed at start_us (ends included).
size_t Overlapping(const std::string& file, int64_t start_us, double lo, double hi) {
  std::string err;
  size_t n = 0;
  for (const OutEvent& e : ParseOutput(Inflate(ReadFile(file)), &err)) {
    if (e.ph == "M") continue;
    const double t = static_cast<double>(start_us) + e.ts;
    n += t <= hi && t + e.dur >= lo;
  }
  EXPECT_EQ(err, "") << file;
  return n;
}

// Three nodes, clocks in sync, steps 5-12 profiled: each trace placed by its
// own node's sidecar and tied to that node, and a step window keeps exactly
// the TF events inside it — as the files and the truth say, not as the merge does.
TEST_F(SageMakerTf, EveryTraceTakesItsNodesSidecarAndStaysInItsStepWindow) {
  const std::string job = Generate("sm", "--sagemaker --hosts 3 --steps 14 --tf-steps 5-12 --offsets-us 0,0,0 --seed 5");
  const std::vector<TfTruth> truth = TruthOf(job);
  ASSERT_EQ(truth.size(), 24u);
  Options o;
  o.unit = Unit::kStep;
  o.start = 5;
  o.end = 12;
  const MergeResult r = MergeInputs(ReadTree(job), o);
  ASSERT_FALSE(r.report.fatal) << r.report.fatal->ToString();
  const double lo = static_cast<double>(r.report.window_start_ns) / 1000, hi = static_cast<double>(r.report.window_end_ns) / 1000;
  size_t kept = 0, inside = 0;
  for (const TfTruth& t : truth) {
    const SourceReport* s = Source(r.report, t.path);
    ASSERT_NE(s, nullptr) << t.path;
    EXPECT_EQ(s->time_base_kind, BaseKind::kTfSidecar) << t.path;
    EXPECT_EQ(s->time_base_value, t.sidecar) << t.path << ": " << s->time_base_why;
    EXPECT_EQ(s->identity.host, t.host) << t.path << ": " << s->time_base_why;
    EXPECT_STREQ(s->identity.host_from, "Horovod ops");
    EXPECT_EQ(s->time_base_why, t.host + "'s: its Horovod ops line up");
    EXPECT_NE(s->time_base.find("line up with " + t.host + "'s timeline"), std::string::npos) << s->time_base;
    const size_t expected = Overlapping((dir_ / t.path).string(), t.start_us, lo, hi);
    EXPECT_EQ(s->events_kept, expected) << t.path;
    kept += s->events_kept;
    inside += expected;
  }
  EXPECT_GT(inside, 1000u) << "the window holds steps 5-11's TF events";
  for (const Diagnostic& d : r.report.warnings) EXPECT_NE(d.code, Code::kNoClock) << d.ToString();
  for (const Diagnostic& d : r.report.warnings) EXPECT_NE(d.code, Code::kUnsureClock) << d.ToString();
}

// Four nodes whose clocks are off (+350 µs, -5.8 ms, +120 µs); node 3's traces
// hold no Horovod op. A trace its ops tie to a node moves with that node under
// --align clocks; one nothing ties is said to be a guess and is not moved by
// anyone's estimate.
TEST_F(SageMakerTf, ATiedTraceMovesWithItsNodeAnUntiedOneIsSaidAndStays) {
  for (const char* seed : {"7", "23"}) {
    const std::string job = Generate(std::string("sm") + seed, "--sagemaker --hosts 4 --steps 14 --tf-steps 5-12 "
                                     "--offsets-us 0,350,-5800,120 --tf-untied 2 --seed " + std::string(seed));
    Options o;
    o.align = Align::kClocks;
    const MergeResult r = MergeInputs(ReadTree(job), o);
    ASSERT_FALSE(r.report.fatal);
    std::map<std::string, int64_t> moved;  // host → how its pythontimeline moved
    for (const SourceReport& s : r.report.sources)
      if (s.kind == Kind::kPythonTimeline) moved[s.identity.host] = s.aligned_ns;
    ASSERT_EQ(moved.size(), 4u);
    EXPECT_NEAR(moved["algo-3"] / 1000.0, 5800, 3);
    size_t tied = 0, guessed = 0;
    for (const TfTruth& t : TruthOf(job)) {
      const SourceReport* s = Source(r.report, t.path);
      ASSERT_NE(s, nullptr) << t.path;
      if (!s->identity.host.empty()) {
        tied++;
        EXPECT_TRUE(t.tied) << t.path;
        EXPECT_EQ(s->identity.host, t.host) << t.path << ": " << s->time_base_why;
        EXPECT_EQ(s->time_base_value, t.sidecar) << t.path;
        EXPECT_EQ(s->aligned_ns, moved[t.host]) << t.path << ": moves with " << t.host;
      } else {
        EXPECT_EQ(s->aligned_ns, 0) << t.path << ": moved by no host's estimate";
        guessed++;
        bool said = false;
        for (const Diagnostic& d : r.report.warnings)
          said |= d.file == t.path && (d.code == Code::kUnsureClock || d.code == Code::kNote) &&
                  d.message.find("host not known") != std::string::npos;
        EXPECT_TRUE(said) << t.path;
        if (!t.tied) EXPECT_NE(s->time_base.find("it has no Horovod ops"), std::string::npos) << s->time_base;
      }
    }
    EXPECT_GE(guessed, 8u) << "node 3's eight traces";
    EXPECT_GE(tied, 20u) << "of the other 24, all but those whose nodes began the step together";
  }
}

}  // namespace
}  // namespace tracemerge::test
