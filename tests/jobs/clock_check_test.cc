// The clock check and --align (clock_check.h, align.h) on jobs made by the
// project's generator (tests/bench/gen_ranks.py), whose truth it writes beside
// them: hosts whose clocks are off (and drift) by known amounts, ranks that
// reach each collective milliseconds apart, decoys (host-side collectives at
// unrelated times, broadcasts whose root finishes early), one file per step.
// Estimates must come within 3 µs of the truth; synchronized jobs must warn
// of nothing; where the data cannot tell, the check must say so, not guess.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>

#include "simdjson.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

class ClockCheck : public GeneratorTest {
 protected:
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

size_t Count(const Report& r, Code code) {
  size_t n = 0;
  for (const Diagnostic& w : r.warnings) n += w.code == code;
  return n;
}

const HostClock* HostNamed(const Report& r, const std::string& host) {
  for (const HostClock& h : r.clock_hosts)
    if (h.host == host) return &h;
  return nullptr;
}

// For each collective (its kernels' External id), the earliest and latest end across ranks;
// `in` picks the kernels by their true end (µs from the job's start).
std::map<int64_t, std::pair<double, double>> KernelEnds(const std::string& output) {
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  simdjson::dom::array events;
  std::map<int64_t, std::pair<double, double>> ends;  // id → (min, max) µs
  if (p.parse(output).get(doc) || doc["traceEvents"].get_array().get(events)) return ADD_FAILURE() << "not JSON", ends;
  for (simdjson::dom::element e : events) {
    std::string_view name;
    if (e["name"].get_string().get(name) || name.rfind("ncclDevKernel_AllReduce", 0) != 0) continue;
    double ts = 0, dur = 0;
    int64_t id = 0;
    if (e["ts"].get_double().get(ts) || e["dur"].get_double().get(dur) || e["args"]["External id"].get_int64().get(id))
      continue;
    const double end = ts + dur;
    auto [it, added] = ends.try_emplace(id, end, end);
    it->second.first = std::min(it->second.first, end);
    it->second.second = std::max(it->second.second, end);
  }
  return ends;
}

double WorstSpread(const std::map<int64_t, std::pair<double, double>>& ends) {
  double worst = 0;
  for (auto& [id, mm] : ends) worst = std::max(worst, mm.second - mm.first);
  return worst;
}

// Every host checked (or the reference), within `tolerance_us` of the truth; CLOCK_SKEW
// exactly for the hosts off by more than the floor.
void ExpectTruth(const Report& r, const std::map<std::string, double>& truth, double tolerance_us,
                 const std::string& what) {
  ASSERT_EQ(r.clock_hosts.size(), truth.size()) << what;
  const HostClock* ref = nullptr;
  for (const HostClock& h : r.clock_hosts)
    if (h.verdict == HostClock::Verdict::kReference) ref = &h;
  ASSERT_NE(ref, nullptr) << what;
  size_t off = 0;
  for (const HostClock& h : r.clock_hosts) {
    const double want = truth.at(h.host) - truth.at(ref->host);
    off += std::fabs(want) > 5;
    if (&h == ref) continue;
    ASSERT_EQ(h.verdict, HostClock::Verdict::kChecked) << what << ": " << h.host << " " << h.reason;
    EXPECT_NEAR(h.offset_ns / 1000.0, want, tolerance_us) << what << ": " << h.host << " from " << h.from;
    EXPECT_LT(h.uncertainty_ns, 1000) << what << ": " << h.host;
    EXPECT_EQ(h.skew, std::fabs(want) > 5) << what << ": " << h.host;
  }
  EXPECT_EQ(Count(r, Code::kClockSkew), off) << what;
}

TEST_F(ClockCheck, PlantedOffsetsAreFoundWithinThreeMicrosecondsAndAligned) {
  for (const char* variant : {"", "--no-seq", "--no-clock", "--no-seq --decoys 30 --broadcasts --seed 21"}) {
    SCOPED_TRACE(variant);
    const std::string job = Generate("job" + std::to_string(std::string(variant).size()),
                                     std::string("--hosts 4 --offsets-us 0,300,-6000,2500 ") + variant);
    const MergeResult plain = Merge(job);
    ASSERT_FALSE(plain.report.fatal);
    EXPECT_GT(WorstSpread(KernelEnds(plain.output)), 2000) << "unaligned, collectives end ms apart";
    ExpectTruth(plain.report, Offsets(job), 3.0, variant);
    for (const SourceReport& s : plain.report.sources) EXPECT_EQ(s.aligned_ns, 0) << "nothing moves without --align";
    Options o;
    o.align = Align::kClocks;
    const MergeResult aligned = Merge(job, o);
    ASSERT_FALSE(aligned.report.fatal);
    EXPECT_LT(WorstSpread(KernelEnds(aligned.output)), 2 * 2 + 3) << "within the jitter (±2 µs) and 3 µs";
    EXPECT_NE(aligned.output.find("\"align\":\"clocks\""), std::string::npos);
    EXPECT_NE(aligned.output.find("(aligned "), std::string::npos) << "the move shows in the process names";
    EXPECT_EQ(Count(aligned.report, Code::kClockSkew), 0u) << "once moved, a NOTE says what moved";
  }
}

// Jobs whose clocks agree: five seeds of each kind, and not one CLOCK_SKEW.
TEST_F(ClockCheck, SynchronizedJobsWarnOfNothing) {
  const char* kinds[] = {
      "--hosts 3",
      "--hosts 3 --no-seq --decoys 40 --broadcasts",
      "--hosts 1 --ranks-per-host 4 --files-per-step --steps 8 --collectives 1",
      "--hosts 4 --ranks-per-host 1 --format smdebug --decoys 300 --metrics",
      "--hosts 6 --ranks-per-host 1 --no-seq --files-per-step --steps 5 --arrival-us 6000",
  };
  for (const char* kind : kinds)
    for (int seed = 100; seed < 105; seed++) {
      const std::string args = std::string(kind) + " --offsets-us 0 --seed " + std::to_string(seed);
      SCOPED_TRACE(args);
      const std::string job = Generate("s" + std::to_string(seed), args);
      const MergeResult r = Merge(job);
      ASSERT_FALSE(r.report.fatal);
      EXPECT_EQ(Count(r.report, Code::kClockSkew), 0u) << r.report.Summary();
      for (const HostClock& h : r.report.clock_hosts) {
        EXPECT_NE(h.verdict, HostClock::Verdict::kUnchecked) << h.host << ": " << h.reason;
        EXPECT_LT(std::abs(h.offset_ns), 3000) << h.host;
      }
      std::filesystem::remove_all(job);
    }
}

// The uncertainty is a standard error: with four ranks per host whose kernels
// end within ±6 µs, the ends of one collective share its end on the
// reference's clock and count once — so about two thirds of the errors lie
// within it (counted as 24 independent ends, it would be half as wide and
// cover under half), and none beyond three times it.
TEST_F(ClockCheck, TheUncertaintyCoversTheErrorWhenRanksShareAHost) {
  size_t hosts = 0, within = 0;
  for (int seed = 701; seed <= 708; seed++) {
    const std::string job = Generate("r" + std::to_string(seed), "--hosts 3 --ranks-per-host 4 --jitter-us 6 --collectives 2 "
                                     "--steps 3 --offsets-us 0,300,-200 --seed " + std::to_string(seed));
    const auto truth = Offsets(job);
    const MergeResult r = Merge(job);
    for (const HostClock& h : r.report.clock_hosts) {
      if (h.verdict != HostClock::Verdict::kChecked) continue;
      const double err = std::fabs(h.offset_ns / 1000.0 - truth.at(h.host));
      hosts++;
      within += err <= h.uncertainty_ns / 1000.0;
      EXPECT_LE(err, 3 * h.uncertainty_ns / 1000.0) << "seed " << seed << ' ' << h.host;
    }
  }
  EXPECT_EQ(hosts, 16u);
  EXPECT_GE(within, hosts / 2) << within << " of " << hosts << " errors within their uncertainty";
}

// Found by tests/bench/clock_sweep.py on seeds it had never run: few
// collectives and coarse jitter (±7.8 µs). Two all-reduces seen on three ranks
// per host are two observations, not six: cannot tell. Six collectives put a
// node 6 µs off by chance, its spread read off six ends: not a skew (3σ by
// Student's t, not 3 × a spread that is itself unsure).
TEST_F(ClockCheck, FewCollectivesAndCoarseJitterAreNoSkew) {
  const MergeResult two = Merge(Generate("two", "--seed 8675357 --hosts 2 --ranks-per-host 3 --steps 2 --collectives 1 "
                                         "--jitter-us 7.8 --arrival-us 2377 --offsets-us 0,0 --broadcasts --files-per-step"));
  EXPECT_EQ(Count(two.report, Code::kClockSkew), 0u) << two.report.Summary();
  const HostClock* b = HostNamed(two.report, "host-b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->verdict, HostClock::Verdict::kUnchecked);
  EXPECT_NE(b->reason.find("only 2 matched collectives"), std::string::npos) << b->reason;

  const MergeResult six = Merge(Generate("six", "--seed 13612 --hosts 6 --ranks-per-host 1 --steps 2 --collectives 3 "
                                         "--jitter-us 7.8 --arrival-us 2853 --offsets-us 0 --format smdebug --decoys 169"));
  EXPECT_EQ(Count(six.report, Code::kClockSkew), 0u) << six.report.Summary();
  size_t checked = 0;
  for (const HostClock& h : six.report.clock_hosts) checked += h.verdict == HostClock::Verdict::kChecked;
  EXPECT_EQ(checked, 5u) << "the estimates stand; only the verdict waits for more data";
}

// The issue's smdebug jobs: Horovod all-reduces, model_timeline files full of
// host-side nccl::AllReduce ops at unrelated times, nodes 2 and 4 off.
TEST_F(ClockCheck, SmdebugNodesByTheirHorovodOpsNotTheirDecoys) {
  const std::string job = Generate("sm", "--format smdebug --hosts 4 --ranks-per-host 1 --offsets-us 0,1800,0,-700 "
                                         "--decoys 300 --metrics --seed 31");
  const MergeResult r = Merge(job);
  ASSERT_FALSE(r.report.fatal);
  ExpectTruth(r.report, Offsets(job), 3.0, "smdebug");
  for (const HostClock& h : r.report.clock_hosts)
    if (h.verdict == HostClock::Verdict::kChecked) EXPECT_EQ(h.from, "Horovod ops");
  Options o;
  o.align = Align::kClocks;
  const MergeResult aligned = Merge(job, o);
  std::map<std::string, int64_t> moved;  // host → the one move of all its files
  for (const SourceReport& s : aligned.report.sources) {
    if (!s.included) continue;
    auto [it, added] = moved.try_emplace(s.identity.host, s.aligned_ns);
    EXPECT_EQ(it->second, s.aligned_ns) << s.path << ": a host's files move together (metrics too)";
  }
  EXPECT_NEAR(moved["host-b"] / 1000.0, -1800, 3.0);
  EXPECT_NEAR(moved["host-d"] / 1000.0, 700, 3.0);
}

// Hosts that gain 40 ppm and lose 25 ppm over a long job: an offset and a
// rate each, and after --align clocks the collectives end together at the
// start and at the end of it.
TEST_F(ClockCheck, DriftingClocksGetARateAndAlignAtBothEnds) {
  const std::string job = Generate("drift", "--hosts 3 --offsets-us 0,500,-300 --drift-ppm 0,40,-25 --steps 30 "
                                            "--gap-ms 400 --seed 41");
  const MergeResult r = Merge(job);
  ASSERT_FALSE(r.report.fatal);
  const HostClock* b = HostNamed(r.report, "host-b");
  const HostClock* c = HostNamed(r.report, "host-c");
  ASSERT_TRUE(b && c);
  ASSERT_TRUE(b->drift && c->drift) << r.report.Summary();
  EXPECT_NEAR(b->rate_ppm, 40, 0.5);
  EXPECT_NEAR(c->rate_ppm, -25, 0.5);
  EXPECT_GT(b->rate_uncertainty_ppm, 0);
  EXPECT_LT(b->rate_uncertainty_ppm, 0.5);
  Options o;
  o.align = Align::kClocks;
  const auto ends = KernelEnds(Merge(job, o).output);
  ASSERT_GT(ends.size(), 100u);
  std::vector<double> spreads;  // per collective, in time order (ids are Seq numbers)
  for (auto& [id, mm] : ends) spreads.push_back(mm.second - mm.first);
  const double first = *std::max_element(spreads.begin(), spreads.begin() + 10);
  const double last = *std::max_element(spreads.end() - 10, spreads.end());
  EXPECT_LT(first, 2 * 2 + 3) << "at the start";
  EXPECT_LT(last, 2 * 2 + 3) << "at the end, 12 s later";
  EXPECT_GT(WorstSpread(KernelEnds(Merge(job).output)), 500) << "as recorded, they were apart";
}

// What cannot be told is said, never guessed: ranks whose only collectives
// are host-side ops at unrelated times; ranks that profiled different steps.
TEST_F(ClockCheck, WhereTheDataCannotTellTheHostIsNamedUncheckedWithTheReason) {
  // Host-side ops only (the kernels taken out): their ends are arrivals, ms apart.
  const std::string job = Generate("host_ops", "--hosts 3 --offsets-us 0,800,-400 --no-seq --decoys 50 --seed 51");
  std::vector<Input> inputs = ReadTree(job);
  for (Input& in : inputs) {
    std::string& b = in.bytes;
    for (size_t at; (at = b.find("ncclDevKernel_AllReduce")) != std::string::npos;) b.replace(at, 13, "someKernel___");
  }
  const MergeResult r = MergeInputs(inputs, {});
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(Count(r.report, Code::kClockSkew), 0u) << r.report.Summary();
  size_t unchecked = 0;
  for (const HostClock& h : r.report.clock_hosts)
    if (h.verdict == HostClock::Verdict::kUnchecked) {
      unchecked++;
      EXPECT_NE(h.reason.find("host-side collectives"), std::string::npos) << h.reason;
    }
  EXPECT_EQ(unchecked, 2u);
  for (const HostClock& h : r.report.clock_hosts) EXPECT_TRUE(h.collectives) << h.host;
  bool noted = false;
  for (const Diagnostic& w : r.report.warnings) noted |= w.code == Code::kNote && w.message.rfind("clock check: could not check 2 hosts", 0) == 0;
  EXPECT_TRUE(noted);
  Options o;
  o.align = Align::kClocks;
  const MergeResult aligned = MergeInputs(inputs, o);
  for (const SourceReport& s : aligned.report.sources) EXPECT_EQ(s.aligned_ns, 0) << s.path << ": nothing checked, nothing moved";

  // The real sampled ranks of a 128-rank job: their collectives do not line up.
  const MergeResult sampled = MergeInputs({{"sampled_rank-0.json.gz", ReadFile(Corpus("real/pytorch_kineto_hta/sampled_rank-0.json.gz"))},
                                           {"sampled_rank-1.json.gz", ReadFile(Corpus("real/pytorch_kineto_hta/sampled_rank-1.json.gz"))}},
                                          {});
  EXPECT_EQ(Count(sampled.report, Code::kClockSkew), 0u);
  ASSERT_EQ(sampled.report.clock_hosts.size(), 2u);
  EXPECT_EQ(sampled.report.clock_hosts[1].verdict, HostClock::Verdict::kUnchecked);
}

// The real 8-rank, one-host V100 job: every rank within a few µs of 0, no warning.
// Its files are named "worker0_step_12.1694128201545.pt.trace.json.gz": PyTorch's
// pattern, but 12 is no pid of the traces and the stamp is in ms — no host is
// made up from them: eight ranks, each its own clock, checked and waited for
// per rank; --align clocks moves none of them by estimates within their noise.
TEST_F(ClockCheck, TheCorpusEightRankJobAgreesWithinMicroseconds) {
  const MergeResult r = MergeInputs(ReadTree(Corpus("real/pytorch_kineto_multirank")), {});
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(Count(r.report, Code::kClockSkew), 0u);
  ASSERT_EQ(r.report.clock_hosts.size(), 8u);
  for (const HostClock& h : r.report.clock_hosts) {
    EXPECT_NE(h.verdict, HostClock::Verdict::kUnchecked) << h.host << ": " << h.reason;
    EXPECT_LT(std::abs(h.offset_ns), 5000) << h.host;
    EXPECT_FALSE(h.host_known) << h.host;
    EXPECT_EQ(h.Label().rfind("rank ", 0), 0u) << h.Label();
    EXPECT_NE(h.Label().find("(host not known)"), std::string::npos) << h.Label();
  }
  for (const SourceReport& s : r.report.sources) {
    EXPECT_EQ(s.identity.host, "") << s.path;
    EXPECT_NE(s.identity.host_note.find("12 is no pid of its events"), std::string::npos) << s.identity.host_note;
    EXPECT_NE(s.identity.host_note.find("not a nanosecond stamp"), std::string::npos) << s.identity.host_note;
  }
  EXPECT_EQ(r.report.waits.ranks.size(), 8u) << "the waits still run, per rank";
  EXPECT_EQ(r.report.Summary().find("worker0_step"), r.report.Summary().find("worker0_step_12")) << "no host named worker0_step";

  Options o;
  o.align = Align::kClocks;
  const MergeResult a = MergeInputs(ReadTree(Corpus("real/pytorch_kineto_multirank")), o);
  ASSERT_FALSE(a.report.fatal);
  for (const SourceReport& s : a.report.sources) EXPECT_EQ(s.aligned_ns, 0) << s.path << ": moved by noise";
  bool said = false;
  for (const Diagnostic& d : a.report.warnings) said |= d.message.find("--align clocks: not moved, each within its noise") == 0;
  EXPECT_TRUE(said);
}

// One step per file, on one machine (PyTorch's default file names): one host,
// one clock — nothing to check, and no warning, however long the job.
TEST_F(ClockCheck, OneFilePerStepOnOneMachineIsOneClock) {
  const std::string job = Generate("t4", "--hosts 1 --ranks-per-host 4 --files-per-step --steps 24 --gap-ms 150 "
                                         "--collectives 1 --seed 61");
  const MergeResult r = Merge(job);
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(r.report.sources.size(), 96u);
  EXPECT_EQ(Count(r.report, Code::kClockSkew), 0u);
  ASSERT_EQ(r.report.clock_hosts.size(), 1u);
  EXPECT_EQ(r.report.clock_hosts[0].host, "host-a");
  EXPECT_EQ(r.report.clock_hosts[0].sources.size(), 96u);
  // The same job on two machines whose names the files do not say: a clock per rank,
  // matched step by step.
  const std::string two = Generate("t4b", "--hosts 2 --ranks-per-host 2 --offsets-us 0,900 --files-per-step "
                                          "--steps 6 --collectives 2 --seed 62");
  std::vector<Input> inputs = ReadTree(two);
  for (size_t i = 0; i < inputs.size(); i++) inputs[i].name = "t4b/trace" + std::to_string(i) + ".json";  // not PyTorch's names
  const MergeResult m = MergeInputs(inputs, {});
  ASSERT_EQ(m.report.clock_hosts.size(), 4u) << "a clock per rank";
  for (const HostClock& h : m.report.clock_hosts) {
    ASSERT_NE(h.verdict, HostClock::Verdict::kUnchecked) << h.host << ": " << h.reason;
    const bool b = h.host == "rank 2" || h.host == "rank 3";
    EXPECT_NEAR(h.offset_ns / 1000.0, b ? 900 : 0, 3.0) << h.host;
  }
}

// A rank's trace that lost its clock (a cut file: baseTimeNanoseconds comes last) beside one
// with a clock: no CLOCK_SKEW of decades — its NO_CLOCK says its collectives can place it, and
// --align clocks does: every all-reduce then ends together (as the job's truth has them).
TEST_F(ClockCheck, AClocklessRankIsPlacedByItsCollectivesNotCalledSkewed) {
  const std::string args = "--hosts 2 --ranks-per-host 1 --steps 4 --offsets-us 0,400 --seed 61";
  const std::string with = Generate("with", args), without = Generate("without", args + " --no-clock");
  std::vector<Input> inputs;  // (one folder "job": one run)
  for (auto [dir, host] : {std::pair{with, "host-a/"}, {without, "host-b/"}})
    for (Input in : ReadTree(dir))
      if (in.name.find(host) != std::string::npos) inputs.push_back({"job" + in.name.substr(in.name.find('/')), in.bytes, true});
  ASSERT_EQ(inputs.size(), 2u);
  const MergeResult r = MergeInputs(inputs, {});
  ASSERT_FALSE(r.report.fatal);
  const HostClock* b = HostNamed(r.report, "host-b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->verdict, HostClock::Verdict::kChecked) << b->reason;
  EXPECT_TRUE(b->relative);
  EXPECT_EQ(Count(r.report, Code::kClockSkew), 0u);
  bool said = false;
  for (const Diagnostic& d : r.report.warnings)
    said |= d.code == Code::kNoClock && d.message.find("line up with host-a's") != std::string::npos &&
            d.message.find("--align clocks places it by them") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_NE(r.report.Summary().find("no clock of its own"), std::string::npos);

  Options align;
  align.align = Align::kClocks;
  const MergeResult a = MergeInputs(inputs, align);
  ASSERT_FALSE(a.report.fatal);
  const auto ends = KernelEnds(a.output);
  EXPECT_EQ(ends.size(), 32u);
  EXPECT_LT(WorstSpread(ends), 5.0) << "every all-reduce ends together once placed";
  EXPECT_GT(WorstSpread(KernelEnds(r.output)), 100.0) << "placed at the job's start only, they do not";
}

TEST_F(ClockCheck, WithoutCollectivesItSaysSoAndMovesNothing) {
  Options o;
  o.align = Align::kClocks;
  const MergeResult r = MergeInputs(ReadTree(Corpus("smdebug/tests/profiler/resources/merge_traces")), o);
  const MergeResult plain = MergeInputs(ReadTree(Corpus("smdebug/tests/profiler/resources/merge_traces")), {});
  bool said = false;
  for (const Diagnostic& w : r.report.warnings) said |= w.message.rfind("--align clocks: no collectives", 0) == 0;
  EXPECT_TRUE(said);
  for (const HostClock& h : r.report.clock_hosts) EXPECT_FALSE(h.collectives) << h.host;
  EXPECT_EQ(r.output.substr(0, r.output.find("\"metadata\"")), plain.output.substr(0, plain.output.find("\"metadata\"")));
}

// Two runs recorded days apart, dropped as two folders, on one timeline: step 2 starts together.
TEST_F(ClockCheck, TwoRunsSideBySideByTheirSteps) {
  std::vector<Input> runs = ReadTree(Generate("monday", "--hosts 1 --ranks-per-host 1 --offsets-us 0 --seed 3"));
  for (Input& in : ReadTree(Generate("thursday", "--hosts 1 --ranks-per-host 1 --offsets-us 0 --seed 4 --base-us 1700259200000000")))
    runs.push_back(std::move(in));
  for (bool by_window : {false, true}) {
    Options o;
    o.align = Align::kSteps;
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
    EXPECT_NE(r.output.find("\"thursday · rank 0 · host-a · "), std::string::npos) << "the run in the process names";
  }
}

// One outlier decides nothing (issue 41). The text of the generated trace `name` in `job`,
// changed by `edit`, written back.
void EditTrace(const std::string& job, const std::string& name, const std::function<void(std::string&)>& edit) {
  const std::string path = job + "/" + name;
  std::string text = ReadFile(path);
  edit(text);
  std::ofstream(path, std::ios::binary) << text;
}

// A kernel of one rank written 30 ms late (one collective end among 48 of that rank): the
// clock check still finds the planted offset; nothing is called skewed that is not.
TEST_F(ClockCheck, OneStraySampleMovesNoClock) {
  for (const char* offsets : {"0,0", "0,650"}) {
    const std::string job = Generate(std::string("j") + offsets[2], std::string("--hosts 2 --ranks-per-host 2 --seed 90417 --offsets-us ") + offsets);
    EditTrace(job, "host-b/rank3.pt.trace.json", [](std::string& t) {
      size_t at = 0;
      for (int i = 0; i < 6; i++) at = t.find("ncclDevKernel", at + 1);
      at = t.find("\"ts\": ", at) + 6;
      const size_t end = t.find(',', at);
      t.replace(at, end - at, std::to_string(std::stod(t.substr(at, end - at)) + 30000));
    });
    const MergeResult r = Merge(job);
    ASSERT_FALSE(r.report.fatal);
    const HostClock* b = HostNamed(r.report, "host-b");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->verdict, HostClock::Verdict::kChecked) << b->reason;
    EXPECT_NEAR(b->offset_ns / 1000.0, Offsets(job)["host-b"] - Offsets(job)["host-a"], 3) << r.report.Summary();
    EXPECT_EQ(Count(r.report, Code::kClockSkew), std::string(offsets) == "0,0" ? 0u : 1u) << r.report.Summary();
  }
}

// A stray "ProfilerStep#999999" among steps 0–5 of one rank: an event, not a step (NOTE); a
// step window cannot select it. Step 60 after 0–5 is not that far: a step.
TEST_F(ClockCheck, AStrayStepNumberIsNotAStep) {
  const std::string job = Generate("steps", "--hosts 2 --ranks-per-host 1 --seed 70721 --offsets-us 0,0");
  for (const char* step : {"999999", "60"}) {
    EditTrace(job, "host-b/rank1.pt.trace.json", [&](std::string& t) {
      const std::string stray = R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::string(step) +
                                R"(", "pid": 1000, "tid": 1000, "ts": 20000.5, "dur": 5}, )";
      const size_t at = t.find("\"traceEvents\": [") + 16;
      if (t.find("ProfilerStep#999999") != std::string::npos) t.replace(at, t.find('}', at) + 3 - at, "");
      t.insert(at, stray);
    });
    const MergeResult r = Merge(job);
    ASSERT_FALSE(r.report.fatal);
    bool listed = false;
    for (auto [s, ts] : r.report.steps) listed |= s == std::stoll(step);
    const bool far = std::string(step) == "999999";
    EXPECT_EQ(listed, !far) << step;
    size_t noted = 0;
    for (const Diagnostic& d : r.report.warnings)
      noted += d.code == Code::kNote && d.message.find("step " + std::string(step) + " marks one event far") != std::string::npos;
    EXPECT_EQ(noted, far ? 1u : 0u);
    EXPECT_NE(r.output.find("ProfilerStep#" + std::string(step)), std::string::npos) << "the event is kept";
    Options window;
    window.unit = Unit::kStep;
    window.start = std::stoll(step);
    const MergeResult w = Merge(job, window);
    EXPECT_EQ(w.report.fatal.has_value() && w.report.fatal->code == Code::kUnknownStep, far) << step;
  }
}

// TF/JAX XSpaces (tests/bench/gen_xplane.py, seeds not used elsewhere): each host's planted
// offset found within 3 µs from its GPUs' NCCL kernels or XLA collective ops (each GPU's plane
// a source), and a host
// 2 ms late in steps 1–2 is named there — its two GPUs, nothing else.
TEST_F(ClockCheck, XPlaneHostsAreCheckedAndTheirStragglerNamed) {
  for (int seed : {424242, 515151}) {
    SCOPED_TRACE(seed);
    // (the second with its collectives only as XLA ops, named by their program: "17/all-reduce.3", as on TPU)
    const std::string job = Generate("xp" + std::to_string(seed),
                                     "--hosts 3 --gpus-per-host 2 --offsets-us 0,350,-5800 --steps 4 --collectives 6 "
                                     "--straggler 2 --straggler-steps 1-2 --straggler-ms 2 --seed " + std::to_string(seed) +
                                         (seed == 515151 ? " --xla-ops-only" : ""),
                                     "gen_xplane.py");
    const MergeResult r = Merge(job);
    ASSERT_FALSE(r.report.fatal);
    auto truth = Offsets(job);
    for (const char* host : {"host-b", "host-c"}) {
      const HostClock* h = HostNamed(r.report, host);
      ASSERT_NE(h, nullptr) << host;
      EXPECT_EQ(h->verdict, HostClock::Verdict::kChecked) << h->reason;
      EXPECT_NEAR(h->offset_ns / 1000.0, truth[host] - truth["host-a"], 3) << host;
    }
    const Waits& w = r.report.waits;
    EXPECT_EQ(w.from, "NCCL kernels");
    for (const StepWaits& st : w.steps) {
      const bool planted = st.step >= 1 && st.step <= 2;
      EXPECT_EQ(st.held_by.size(), planted ? 2u : 0u) << "step " << st.step << ": " << st.why;
      for (int32_t k : st.held_by) EXPECT_EQ(w.ranks[k].label.rfind("host-c · GPU ", 0), 0u) << w.ranks[k].label;
    }
  }
}

}  // namespace
}  // namespace tracemerge::test
