// The native CLI as a user runs it: exit codes, default output name, stdout,
// gzip, report file, and damaged files named on stderr.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/run.h"
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

TEST_F(Cli, AFolderFileIsNamedByItsPlaceInTheFolderEvenAsASymlink) {
  const std::string trace = R"({"traceEvents":[{"ph":"X","name":"a","ts":5,"dur":2,"pid":7,"tid":1}]})";
  Write("elsewhere/target.json", trace);
  Write("job/sub/b.json", trace);
  fs::create_symlink(dir_ / "elsewhere" / "target.json", dir_ / "job" / "link.json");
  for (const std::string arg : {"job", "job/", "./job/"}) {
    CliRun r = Exec("--report " + (dir_ / "r.json").string() + " -o " + (dir_ / "m.json").string() + " " +
                    (arg[0] == '.' ? "./" + fs::relative(dir_ / "job", fs::current_path()).string() + "/"
                                   : (dir_ / arg).string()));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string report = ReadFile((dir_ / "r.json").string());
    EXPECT_NE(report.find("\"job/link.json\""), std::string::npos) << arg << ": " << report.substr(0, 400);
    EXPECT_NE(report.find("\"job/sub/b.json\""), std::string::npos) << arg;
    EXPECT_EQ(report.find("target.json"), std::string::npos) << arg << ": named after the link's target";
  }
}

TEST_F(Cli, AFileGivenTwiceIsReadOnceAndSaidSo) {
  // The file in the folder given again, and a link to it in the folder: one file, one source.
  const std::string trace = R"({"traceEvents":[{"ph":"X","name":"a","ts":5,"dur":2,"pid":7,"tid":1}]})";
  Write("job/a.json", trace);
  Write("job/b.json", R"({"traceEvents":[{"ph":"X","name":"b","ts":6,"dur":2,"pid":8,"tid":1}]})");
  fs::create_symlink(dir_ / "job" / "a.json", dir_ / "job" / "z-link.json");
  const std::string report = (dir_ / "r.json").string();
  CliRun r = Exec((dir_ / "job").string() + " " + (dir_ / "job" / "a.json").string() + " " + (dir_ / "job").string() +
                  " --report " + report + " -o " + (dir_ / "m.json").string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("tracemerge: note: job/z-link.json is job/a.json again (one file given twice): read once"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tracemerge: note: " + (dir_ / "job" / "a.json").string() + " is job/a.json again"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("tracemerge: note: job/b.json is job/b.json again"), std::string::npos) << "the folder again: " << r.err;
  const std::string out = ReadFile((dir_ / "m.json").string());
  size_t as = 0;
  for (size_t at = out.find(R"("name":"a")"); at != std::string::npos; at = out.find(R"("name":"a")", at + 1)) as++;
  EXPECT_EQ(as, 1u) << "its event once: " << out.substr(0, 600);
  EXPECT_NE(out.find(R"("name":"b")"), std::string::npos);
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  simdjson::dom::array sources;
  ASSERT_EQ(p.parse(ReadFile(report)).get(doc), simdjson::SUCCESS);
  ASSERT_EQ(doc["sources"].get_array().get(sources), simdjson::SUCCESS);
  EXPECT_EQ(sources.size(), 2u) << "job/a.json and job/b.json";
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

// The events of an output, without its report (which lists what was skipped).
std::string EventsOf(const std::string& output) { return output.substr(0, output.find("\n\"displayTimeUnit\"")); }

TEST_F(Cli, MergingAFolderAgainSkipsTheEarlierOutputs) {
  fs::copy(Corpus("smdebug/tests/profiler/resources/merge_traces"), dir_ / "job", fs::copy_options::recursive);
  const std::string job = (dir_ / "job").string();
  ASSERT_EQ(Exec(job).code, 0);
  const fs::path out = dir_ / "job" / "1594662624718694_merged_timeline.json";
  const std::string first = ReadFile(out.string());
  ASSERT_NE(first.find("\"events\":706"), std::string::npos) << "706 events the first time";
  // Ours, found by its metadata whatever its name; the reference's, by its name.
  fs::copy(out, dir_ / "job" / "renamed.json");
  fs::copy(Corpus("smdebug/expected_merged/merge_traces_all/1795968702582568_10449-vm_merged_timeline.json"),
           dir_ / "job" / "1795968702582568_10449-vm_merged_timeline.json");
  CliRun again = Exec(job);
  ASSERT_EQ(again.code, 0) << again.err;
  const std::string second = ReadFile(out.string());
  EXPECT_NE(second.find("\"events\":706"), std::string::npos) << "not 1412: nothing counted twice";
  EXPECT_EQ(EventsOf(second), EventsOf(first));
  EXPECT_NE(again.err.find("renamed.json\n    skipped — skipped: an earlier merge's output (tracemerge's metadata"),
            std::string::npos)
      << again.err;
  EXPECT_NE(again.err.find("vm_merged_timeline.json\n    skipped — skipped: an earlier merge's output (named"),
            std::string::npos);
  // Named by itself, it is merged — with a note.
  CliRun named = Exec((dir_ / "job" / "renamed.json").string() + " -o -");
  ASSERT_EQ(named.code, 0);
  EXPECT_NE(named.err.find("NOTE: an earlier merge's output, merged because it was named"), std::string::npos)
      << named.err;
}

TEST_F(Cli, AClocklessSourceDoesNotStretchTheJob) {
  // The smdebug corpus holds a TF trace without its sidecar (relative times)
  // among sources with Unix clocks: it is placed at their start, flagged.
  CliRun r = Exec(Corpus("smdebug") + " --scan");
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t job = r.out.find("job: ");
  ASSERT_NE(job, std::string::npos);
  EXPECT_GT(std::stoll(r.out.substr(job + 5, 16)), 1500000000000000) << r.out.substr(job, 80);
  EXPECT_NE(r.out.find("NO_CLOCK: no absolute time base"), std::string::npos);
  EXPECT_NE(r.out.find("placed at the start of the sources with a clock"), std::string::npos);
}

TEST_F(Cli, ARelativeJobThatWouldStartBefore0IsMovedTo0) {
  const std::string a = Write("a.json", R"([{"ph":"X","name":"x","pid":1,"tid":1,"ts":10,"dur":5}])");
  const std::string b = Write("b.json", R"([{"ph":"X","name":"y","pid":1,"tid":1,"ts":10,"dur":5}])");
  CliRun r = Exec(a + " " + b + " --offset b.json=-30 -o - --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("name":"x","pid":1,"tid":1,"ts":30,"dur":5)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("name":"y","pid":2,"tid":1,"ts":0,"dur":5)"), std::string::npos) << "relations kept";
  EXPECT_NE(r.out.find("\"placed_us\":20"), std::string::npos);
}

// Ctrl-C while the files are read: the merge is cancelled — exit 130, no output, no temporary
// file. The second file is a FIFO: the CLI has reached it when our open for writing returns
// (were it never to, an alarm ends the wait: no hung test).
TEST_F(Cli, CtrlCCancelsTheMergeAndLeavesNothing) {
  const std::string a = Write("a.json", R"([{"ph":"X","name":"x","pid":1,"tid":1,"ts":10,"dur":5}])");
  const std::string fifo = (dir_ / "b.json").string();  // (named by itself: a folder walk takes regular files only)
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string out = (dir_ / "out.json").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(::open((dir_ / "stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), 2);
    ::execl(TRACEMERGE_CLI, "tracemerge", a.c_str(), fifo.c_str(), "-o", out.c_str(), "--threads", "1", nullptr);
    ::_exit(127);
  }
  struct sigaction on_alarm {};  // (an open that waits 60 s returns EINTR: no hung test)
  on_alarm.sa_handler = [](int) {};
  ::sigaction(SIGALRM, &on_alarm, nullptr);
  ::alarm(60);
  const int w = ::open(fifo.c_str(), O_WRONLY);  // (returns once the CLI opened it to read)
  ::alarm(0);
  if (w < 0) ::kill(pid, SIGKILL);
  ASSERT_GE(w, 0) << "the CLI never read the FIFO";
  ::kill(pid, SIGINT);
  ASSERT_EQ(::write(w, "[", 1), 1);
  ::close(w);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_FALSE(std::filesystem::exists(out));
  // The file whose reading stopped is not called cut ("b.json @1: TRUNCATED"): it was not read to its end.
  const std::string said = test::ReadFile((dir_ / "stderr.txt").string());
  EXPECT_NE(said.find("interrupted; nothing written"), std::string::npos) << said;
  EXPECT_EQ(said.find("TRUNCATED"), std::string::npos) << said;
  std::filesystem::remove(dir_ / "stderr.txt");
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().rfind(".tracemerge-", 0), std::string::npos) << e.path();
}

// An --offset that names no input (a typo) is not quietly dropped: nothing is written, the
// error names it. One that names a file by its name, path or folder moves it.
TEST_F(Cli, AnOffsetThatNamesNoFileIsAnError) {
  const std::string a = Write("a.json", R"([{"ph":"X","name":"x","pid":1,"tid":1,"ts":10,"dur":5}])");
  CliRun r = Exec(a + " --offset b.json=5 -o " + (dir_ / "out.json").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("USAGE: --offset b.json=5: it names no input file"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out.json"));
  r = Exec(a + " --offset a.json=5 -o - --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("ts":15,"dur":5)"), std::string::npos);
}

// Two, then eight merges in one process (Python threads, the C ABI's tm_run) into one folder
// never share a temporary file: each output is its own job's, every round.
TEST_F(Cli, MergesInOneProcessNeverSwapOutputs) {
  const std::vector<std::string> jobs = {Corpus("smdebug/tests/profiler/resources/merge_traces"),
                                         Corpus("real/chrome_catapult/big_trace.json")};
  auto run = [&](const std::string& in, const std::string& out) {
    RunIo io;
    io.out = io.err = [](std::string_view) {};
    return RunCli({in, "-o", out, "--quiet", "--threads", "1"}, io);
  };
  std::vector<std::string> want;
  for (size_t k = 0; k < jobs.size(); k++) {
    const std::string ref = (dir_ / ("ref" + std::to_string(k) + ".json")).string();
    ASSERT_EQ(run(jobs[k], ref).exit, 0);
    want.push_back(ReadFile(ref));
  }
  for (int threads : {2, 8}) {
    for (int round = 0; round < 10; round++) {
      std::vector<RunResult> results(threads);
      std::vector<std::thread> pool;
      for (int i = 0; i < threads; i++)
        pool.emplace_back([&, i] { results[i] = run(jobs[i % 2], (dir_ / ("out" + std::to_string(i) + ".json")).string()); });
      for (std::thread& t : pool) t.join();
      for (int i = 0; i < threads; i++) {
        ASSERT_EQ(results[i].exit, 0) << threads << " threads, round " << round;
        EXPECT_EQ(ReadFile((dir_ / ("out" + std::to_string(i) + ".json")).string()), want[i % 2])
            << threads << " threads, round " << round << ", merge " << i;
      }
    }
  }
  for (auto& e : fs::directory_iterator(dir_)) EXPECT_NE(e.path().filename().string().rfind(".tracemerge", 0), 0u) << e.path();
}

}  // namespace tracemerge::test
