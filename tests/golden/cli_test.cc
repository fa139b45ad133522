// The native CLI as a user runs it: exit codes, default output name, stdout,
// gzip, report file, and damaged files named on stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "simdjson.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace tracemerge::test {
namespace {

struct CliRun {
  int code = -1;
  std::string out, err;
};

class Cli : public ScratchDirTest {
 protected:
  CliRun Exec(const std::string& args) {
    std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    int status = std::system((std::string(TRACEMERGE_CLI) + " " + args + " >" + out + " 2>" + err).c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = ReadFile(out);
    r.err = ReadFile(err);
    return r;
  }
};

bool ValidJson(const std::string& s) {
  simdjson::dom::parser p;
  simdjson::dom::element e;
  return p.parse(s).get(e) == simdjson::SUCCESS;
}

}  // namespace

TEST_F(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(Exec("").code, 2);
  EXPECT_EQ(Exec("--bogus x").code, 2);
  EXPECT_EQ(Exec("--unit hours x").code, 2);
  EXPECT_EQ(Exec("--only nope x").code, 2);
  EXPECT_EQ(Exec("--start 5 --end 1 x").code, 2);
  CliRun r = Exec("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("usage: tracemerge"), std::string::npos);
}

TEST_F(Cli, NothingToMergeExitsOne) {
  Write("job/notes.txt", "hello");
  EXPECT_EQ(Exec((dir_ / "job").string()).code, 1);
  EXPECT_EQ(Exec((dir_ / "missing").string()).code, 1);
}

TEST_F(Cli, FolderGetsTheReferenceDefaultOutputName) {
  fs::copy(Corpus("smdebug/tests/profiler/resources/merge_traces"), dir_ / "merge_traces", fs::copy_options::recursive);
  CliRun r = Exec("merge " + (dir_ / "merge_traces").string() + " --start 1594662618874598 --end 1594662623418701");
  ASSERT_EQ(r.code, 0) << r.err;
  fs::path out = dir_ / "merge_traces" / "1594662623418701_merged_timeline.json";
  ASSERT_TRUE(fs::exists(out)) << r.err;
  EXPECT_TRUE(ValidJson(ReadFile(out.string())));
  EXPECT_NE(r.err.find("events written"), std::string::npos);
  // Same bytes as the checked-in golden for this case.
  EXPECT_TRUE(SameText(ReadFile(out.string()),
                       ReadFile(std::string(TRACEMERGE_GOLDEN_DIR) + "/merge_traces_time.json")));
}

TEST_F(Cli, StdoutGzipAndReport) {
  std::string in = Corpus("real/chrome_catapult/trivial_trace.json");
  CliRun r = Exec(in + " -o - --quiet");
  ASSERT_EQ(r.code, 0);
  EXPECT_TRUE(ValidJson(r.out));
  EXPECT_TRUE(r.err.empty()) << r.err;

  std::string gz = (dir_ / "m.json.gz").string(), rep = (dir_ / "report.json").string();
  r = Exec(in + " -o " + gz + " --report " + rep + " --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  std::string bytes = ReadFile(gz);
  ASSERT_GT(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
  EXPECT_TRUE(ValidJson(Inflate(bytes)));
  std::string report = ReadFile(rep);
  EXPECT_TRUE(ValidJson(report));
  EXPECT_NE(report.find("trivial_trace.json"), std::string::npos);
}

TEST_F(Cli, DamagedFileIsNamedWithOffsetAndTheRestMerges) {
  Write("job/good.json", R"([{"ph":"X","name":"good","pid":1,"tid":1,"ts":1,"dur":1}])");
  Write("job/cut.json", R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","na)");
  Write("job/bad.json.gz", "\x1f\x8b\x08\x00garbage");
  CliRun r = Exec((dir_ / "job").string() + " -o " + (dir_ / "out.json").string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("job/cut.json @54: TRUNCATED"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("job/bad.json.gz @"), std::string::npos) << r.err;
  std::string out = ReadFile((dir_ / "out.json").string());
  EXPECT_TRUE(ValidJson(out));
  EXPECT_NE(out.find("\"name\":\"good\""), std::string::npos);
}

TEST_F(Cli, UnknownStepNamesTheStepsThatExist) {
  CliRun r = Exec(Corpus("smdebug/tests/profiler/resources/merge_traces") + " --unit step --start 2 --end 9999 -o " +
               (dir_ / "x.json").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("UNKNOWN_STEP"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("steps in this job"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));
}

}  // namespace tracemerge::test
