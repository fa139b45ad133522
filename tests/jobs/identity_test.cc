// Who recorded what (identity.h), on whole jobs: runs never share a track,
// a host's files are one host (one clock), PyTorch's default file names say
// the host, clockless files of one recording keep their relations.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

#include "store.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

using Identities = GeneratorTest;

// Output process names, by pid.
std::map<int64_t, std::string> ProcessNames(const std::string& output) {
  std::string err;
  std::map<int64_t, std::string> names;
  for (const OutEvent& e : ParseOutput(output, &err))
    if (e.ph == "M" && e.name == "process_name") names[e.pid] = e.arg_name;
  EXPECT_EQ(err, "");
  return names;
}

// The smdebug test job copied under two folder names: two runs of one node.
std::vector<Input> TwoRuns(const std::string& a, const std::string& b) {
  std::vector<Input> runs;
  for (const std::string& name : {a, b})
    for (Input in : ReadTree(Corpus("smdebug/tests/profiler/resources/merge_traces"))) {
      in.name = name + in.name.substr(in.name.find('/'));
      runs.push_back(std::move(in));
    }
  return runs;
}

TEST_F(Identities, TwoRunsOfOneNodeNeverShareATrackAndSayWhichRun) {
  const MergeResult one = MergeInputs(ReadTree(Corpus("smdebug/tests/profiler/resources/merge_traces")), {});
  const size_t per_run = ProcessNames(one.output).size();
  ASSERT_EQ(per_run, 3u);
  for (Align align : {Align::kNone, Align::kSteps}) {
    Options o;
    o.align = align;
    const MergeResult r = MergeInputs(TwoRuns("monday", "thursday"), o);
    ASSERT_FALSE(r.report.fatal);
    const auto names = ProcessNames(r.output);
    EXPECT_EQ(names.size(), 2 * per_run) << "6 processes, not 3";
    size_t monday = 0, thursday = 0;
    for (auto& [pid, name] : names) {
      monday += name.rfind("monday · 905-b88ab1bb8259 · ", 0) == 0;
      thursday += name.rfind("thursday · 905-b88ab1bb8259 · ", 0) == 0;
    }
    EXPECT_EQ(monday, per_run);
    EXPECT_EQ(thursday, per_run);
    EXPECT_EQ(r.report.events_written, 2 * one.report.events_written) << "every event of both runs, once";
    std::set<uint32_t> domains;
    for (const SourceReport& s : r.report.sources)
      if (s.included) domains.insert(s.identity.domain);
    EXPECT_EQ(domains.size(), 2u) << "host b88ab1bb8259 in each run: a clock each";
  }
  // One run: no run in the names (as before).
  EXPECT_EQ(ProcessNames(one.output).begin()->second.rfind("905-b88ab1bb8259 · ", 0), 0u);
}

TEST_F(Identities, AKinetoFileNamedByPyTorchIsGroupedUnderItsHost) {
  // Two ranks of one machine and one of another, as PyTorch's trace handler names them (no host_name
  // inside): "<host>_<pid>.<ns>", the pid its process's — the trace agrees with its name.
  auto trace = [](int rank, double ts, int pid) {
    return Gzip("{\"schemaVersion\":1,\"distributedInfo\":{\"rank\":" + std::to_string(rank) +
                "},\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":" + std::to_string(ts) +
                ",\"dur\":1,\"pid\":" + std::to_string(pid) + ",\"tid\":1}],\"baseTimeNanoseconds\":1700000000000000000}");
  };
  const MergeResult r = MergeInputs({{"job/gpu-node-1_4101.1700000000123456789.pt.trace.json.gz", trace(0, 5, 4101), true},
                                     {"job/gpu-node-1_4102.1700000000123456790.pt.trace.json.gz", trace(1, 6, 4102), true},
                                     {"job/gpu-node-2_977.1700000000123456800.pt.trace.json.gz", trace(2, 7, 977), true}},
                                    {});
  ASSERT_FALSE(r.report.fatal);
  ASSERT_EQ(r.report.sources.size(), 3u);
  for (const SourceReport& s : r.report.sources) {
    EXPECT_EQ(s.identity.format, FormatId::kKineto);
    EXPECT_STREQ(s.identity.host_from, "file name");
  }
  EXPECT_EQ(r.report.sources[0].identity.host, "gpu-node-1");
  EXPECT_EQ(r.report.sources[1].identity.host, "gpu-node-1");
  EXPECT_EQ(r.report.sources[2].identity.host, "gpu-node-2");
  EXPECT_EQ(r.report.sources[0].identity.domain, r.report.sources[1].identity.domain) << "one host, one clock";
  EXPECT_NE(r.report.sources[0].identity.domain, r.report.sources[2].identity.domain);
  EXPECT_EQ(r.report.sources[1].identity.group, "rank 1 · gpu-node-1") << "what the page groups by";
  EXPECT_EQ(r.report.clock_hosts.size(), 2u);
  EXPECT_TRUE(r.report.clock_hosts[0].host_known);
  EXPECT_NE(r.output.find("\"rank 1 · gpu-node-1 · "), std::string::npos);

  // The same names over traces whose processes are others (the names are a user's, "<x>_step_<n>"):
  // no host is made up — three ranks, a clock each, a NOTE each saying why.
  const MergeResult n = MergeInputs({{"job/gpu-node-1_4101.1700000000123456789.pt.trace.json.gz", trace(0, 5, 59811), true},
                                     {"job/gpu-node-1_4102.1700000000123456790.pt.trace.json.gz", trace(1, 6, 59812), true},
                                     {"job/gpu-node-2_977.1700000000123456800.pt.trace.json.gz", trace(2, 7, 59813), true}},
                                    {});
  ASSERT_FALSE(n.report.fatal);
  for (const SourceReport& s : n.report.sources) {
    EXPECT_EQ(s.identity.host, "") << s.path;
    EXPECT_NE(s.identity.host_note.find("is no pid of its events"), std::string::npos) << s.identity.host_note;
  }
  EXPECT_EQ(n.report.sources[1].identity.group, "rank 1");
  ASSERT_EQ(n.report.clock_hosts.size(), 3u) << "a clock per rank";
  EXPECT_FALSE(n.report.clock_hosts[1].host_known);
  EXPECT_EQ(n.report.clock_hosts[1].Label(), "rank 1 (host not known)");
  size_t notes = 0;
  for (const Diagnostic& d : n.report.warnings) notes += d.code == Code::kNote && d.message.find("its host is not known") != std::string::npos;
  EXPECT_EQ(notes, 3u);
}

// A file of merged ranks (args.rank, as TraceLens writes one) is a source per
// rank; the events of processes that say no rank a source of their own (no
// rank claimed for them); a flow from one rank to another keeps its one id;
// an offset of the file moves every rank; held in a store, the same bytes.
// A process whose events say two ranks leaves the file whole, with a NOTE.
TEST_F(Identities, RanksMergedIntoOneFileAreASourceEach) {
  auto ev = [](const char* ph, int pid, double ts, const std::string& more) {
    return std::string("{\"ph\":\"") + ph + "\",\"name\":\"op\",\"cat\":\"c\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":1,\"ts\":" + std::to_string(ts) + more + "}";
  };
  const std::string fused =
      "{\"traceEvents\":[" + ev("X", 10, 1700000000000010, ",\"dur\":5,\"args\":{\"rank\":0}") + "," +
      ev("s", 10, 1700000000000012, ",\"id\":7,\"args\":{\"rank\":0}") + "," +
      ev("X", 100010, 1700000000000020, ",\"dur\":5,\"args\":{\"rank\":1}") + "," +
      ev("f", 100010, 1700000000000021, ",\"id\":7,\"bp\":\"e\",\"args\":{\"rank\":1}") + "," +
      ev("X", 5, 1700000000000030, ",\"dur\":5") + "," +
      "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":100010,\"args\":{\"name\":\"RANK 1 - CPU\"}}]}";
  Options moved;
  moved.offsets_us = {{"fused.json", 100}};
  const MergeResult r = MergeInputs({{"fused.json", fused}}, moved);
  ASSERT_FALSE(r.report.fatal);
  ASSERT_EQ(r.report.sources.size(), 3u);
  EXPECT_EQ(r.report.sources[0].identity.group, "rank 0");
  EXPECT_EQ(r.report.sources[1].identity.group, "rank 1");
  EXPECT_EQ(r.report.sources[2].identity.rank, -1) << "no rank said, none claimed";
  EXPECT_EQ(r.report.sources[0].events_read + r.report.sources[1].events_read + r.report.sources[2].events_read, 6u);
  std::string err;
  std::set<std::string> ids;
  std::vector<double> times;
  for (const OutEvent& e : ParseOutput(r.output, &err)) {
    if (e.ph == "X") times.push_back(e.ts);
  }
  EXPECT_EQ(err, "");
  EXPECT_EQ(times, (std::vector<double>{1700000000000110, 1700000000000120, 1700000000000130})) << "each moved once";
  size_t flow_ids = 0;
  for (size_t at = r.output.find("\"id\":"); at != std::string::npos; at = r.output.find("\"id\":", at + 1)) {
    ids.insert(r.output.substr(at, r.output.find_first_of(",}", at) - at));
    flow_ids++;
  }
  EXPECT_EQ(flow_ids, 2u);
  EXPECT_EQ(ids.size(), 1u) << "the flow from rank 0 to rank 1 keeps one id";
  EXPECT_NE(r.output.find("\"rank 1 · RANK 1 - CPU\""), std::string::npos);

  Options stored = moved;  // every template in the store
  stored.store = std::make_unique<FileStore>();
  stored.memory_budget = 1;
  stored.threads = 1;
  const MergeResult st = MergeInputs({{"fused.json", fused}}, stored);
  EXPECT_TRUE(SameText(st.output, r.output));

  std::string two = fused;  // rank 1's process says rank 0 once
  two.replace(two.find("\"rank\":1}"), 9, "\"rank\":0}");
  const MergeResult w = MergeInputs({{"fused.json", two}}, {});
  ASSERT_EQ(w.report.sources.size(), 1u);
  bool noted = false;
  for (const Diagnostic& d : w.report.warnings) noted |= d.message.find("pid 100010 say different ranks") != std::string::npos;
  EXPECT_TRUE(noted);
}

// Two ranks per host (node ids "<rank>-<host>"), with the host's system
// metrics (NodeId) and its TF trace (whose sidecar names its first node): all
// one host, one clock, moved together by --align clocks.
TEST_F(Identities, AnSmdebugHostsRanksMetricsAndTfTraceAreOneHost) {
  const std::string job = Generate("sm", "--format smdebug --hosts 2 --ranks-per-host 2 --offsets-us 0,900 --metrics --tf --seed 13");
  Options o;
  o.align = Align::kClocks;
  const MergeResult r = MergeInputs(ReadTree(job), o);
  ASSERT_FALSE(r.report.fatal);
  std::map<std::string, std::set<std::string>> kinds;  // host → the kinds of its files
  std::map<std::string, std::set<uint32_t>> domains;
  std::map<std::string, std::set<int64_t>> moved;
  for (const SourceReport& s : r.report.sources) {
    if (!s.included) continue;
    kinds[s.identity.host].insert(KindName(s.kind));
    domains[s.identity.host].insert(s.identity.domain);
    moved[s.identity.host].insert(s.aligned_ns);
  }
  ASSERT_EQ(kinds.size(), 2u) << "host-a and host-b";
  for (const char* host : {"host-a", "host-b"}) {
    EXPECT_EQ(kinds[host], (std::set<std::string>{"horovod", "pythontimeline", "system", "tf_trace"})) << host;
    EXPECT_EQ(domains[host].size(), 1u) << host;
    EXPECT_EQ(moved[host].size(), 1u) << host << ": its files move together";
  }
  EXPECT_EQ(*moved["host-a"].begin(), 0);
  EXPECT_NEAR(*moved["host-b"].begin() / 1000.0, -900, 3.0);
  for (const SourceReport& s : r.report.sources)
    if (s.kind == Kind::kTfTrace) EXPECT_NE(s.time_base.find(s.identity.host), std::string::npos) << "its own host's sidecar: " << s.time_base;
}

// Clockless files of one folder (one tool's files of one recording, such as
// CANN msprof's per device) merged with files that have a clock: placed once,
// together, their times relative to each other as recorded; one NO_CLOCK.
TEST_F(Identities, ClocklessFilesOfOneFolderKeepTheirRelativeTimes) {
  auto rel = [](const char* name, double ts) {
    return "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"" + std::string(name) + "\",\"ts\":" + std::to_string(ts) +
           ",\"dur\":5,\"pid\":1,\"tid\":1}]}";
  };
  const MergeResult r = MergeInputs({{"job/msprof/device_0.json", rel("d0", 1000), true},
                                     {"job/msprof/device_1.json", rel("d1", 1500.5), true},
                                     {"job/msprof/host.json", rel("h", 800), true},
                                     {"job/other/viz.json", rel("v", 99999), true},
                                     {"job/clocked.json", "[{\"ph\":\"X\",\"name\":\"c\",\"ts\":1594662618874598,\"dur\":1,\"pid\":1,\"tid\":1}]", true}},
                                    {});
  ASSERT_FALSE(r.report.fatal);
  std::map<std::string, double> ts;  // by event name: one per file
  std::string err;
  for (const OutEvent& e : ParseOutput(r.output, &err))
    if (e.ph == "X") ts[e.name] = e.ts;
  std::vector<const SourceReport*> msprof;
  for (const SourceReport& s : r.report.sources)
    if (s.path.find("msprof") != std::string::npos) msprof.push_back(&s);
  ASSERT_EQ(msprof.size(), 3u);
  for (const SourceReport* s : msprof) EXPECT_EQ(s->placed_ns, msprof[0]->placed_ns) << s->path << ": one shift";
  EXPECT_EQ(msprof[2]->placed_ns, (1594662618874598 - 800) * int64_t{1000}) << "its earliest at the job's start";
  size_t no_clock = 0;
  for (const Diagnostic& w : r.report.warnings) no_clock += w.code == Code::kNoClock;
  EXPECT_EQ(no_clock, 2u) << "one per recording (msprof/, other/)";
  // The relative times, as recorded: device_1 starts 500.5 µs after device_0, the host 200 µs before it.
  EXPECT_DOUBLE_EQ(ts["d0"] - ts["h"], 200);
  EXPECT_DOUBLE_EQ(ts["d1"] - ts["d0"], 500.5);
  EXPECT_DOUBLE_EQ(ts["h"], 1594662618874598) << "the recording's first at the job's start";
  EXPECT_DOUBLE_EQ(ts["v"], 1594662618874598) << "another recording: placed on its own";
}

}  // namespace
}  // namespace tracemerge::test
