// The benchmark's reference programs (tests/bench/ceiling.cc, run by
// scripts/bench.sh): every event of every input form is scanned, and --keep
// validates what the plain scan only skips over.
#include <gtest/gtest.h>

#include <cstdio>

#include "test_util.h"

namespace tracemerge::test {
namespace {

struct Scan {
  unsigned long long bytes = 0, events = 0;
};

// Runs the ceiling ("bytes events seconds" on stdout) on the files.
Scan RunCeiling(const std::string& flags, const std::vector<std::string>& files) {
  std::string cmd = std::string(TRACEMERGE_CEILING) + " " + flags;
  for (const std::string& f : files) cmd += " '" + f + "'";
  Scan s;
  double seconds = 0;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return s;
  if (std::fscanf(p, "%llu %llu %lf", &s.bytes, &s.events, &seconds) != 3) s = Scan{};
  ::pclose(p);
  return s;
}

class Ceiling : public ScratchDirTest {};

}  // namespace

TEST_F(Ceiling, ScansEveryEventOfEachInputForm) {
  const std::string array = R"([{"ph":"X","name":"a","ts":1,"dur":2},{"ph":"i","name":"b","ts":3},
{"ph":"M","name":"process_name","pid":1,"args":{"name":"p","list":[1,true,null,"x"]}}])";
  const std::string object = R"({"traceEvents":[{"ph":"B","ts":1},{"ph":"E","ts":2}],"displayTimeUnit":"ms"})";
  const std::string lines =
      "{\"Type\":\"cpu\",\"Name\":\"cpu0\",\"Value\":4.5,\"Timestamp\":1591160699.45}\n"
      "{\"Type\":\"cpu\",\"Name\":\"cpu1\",\"Value\":3,\"Timestamp\":1591160699.45}\n";
  struct Case {
    std::string path;
    unsigned long long events, bytes;  // bytes: inflated
  };
  const std::vector<Case> inputs = {
      {Write("array.json", array), 3, array.size()},
      {Write("object.json", object), 2, object.size()},
      {Write("lines.json", lines), 2, lines.size()},  // (the first line is an object too)
      {Write("array.json.gz", Gzip(array)), 3, array.size()},
  };
  for (const Case& c : inputs)
    for (const char* flags : {"", "--keep"}) {
      const Scan s = RunCeiling(flags, {c.path});
      EXPECT_EQ(s.events, c.events) << c.path << " " << flags;
      EXPECT_EQ(s.bytes, c.bytes) << c.path << " " << flags;
    }
}

TEST_F(Ceiling, KeepValidatesWhatTheScanSkipsOver) {
  // A bad escape, a number with a leading zero: the scan takes their raw text,
  // --keep (as a merge must) rejects the event, and stops at it.
  for (const char* bad : {R"("name":"b\q")", R"("args":{"n":01})"}) {
    const std::string path = Write("bad.json", std::string(R"([{"ph":"X","ts":1},{"ph":"X","ts":2,)") + bad + "}]");
    EXPECT_EQ(RunCeiling("", {path}).events, 2u) << bad;
    EXPECT_EQ(RunCeiling("--keep", {path}).events, 1u) << bad;
  }
}

TEST_F(Ceiling, BothModesCountTheSameEventsOfRealTraces) {
  const std::vector<std::string> files = {Corpus("real/pytorch_kineto/worker0.1623143089861.pt.trace.json.gz"),
                                          Corpus("real/horovod/timeline_gpu_n1.json"),
                                          Corpus("real/chrome_catapult/flow.json")};
  const Scan plain = RunCeiling("", files), kept = RunCeiling("--keep", files);
  EXPECT_GT(plain.events, 100000u);
  EXPECT_EQ(kept.events, plain.events);
  EXPECT_EQ(kept.bytes, plain.bytes);
}

}  // namespace tracemerge::test
