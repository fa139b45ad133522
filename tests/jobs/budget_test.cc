// The native CLI's memory budget (core/cli/budget.h), with decompression bombs
// measured as the kernel counts them: the CLI's peak resident memory (VmHWM of its own
// memory map: a forked child's rusage would count the test's memory too).
// (Under a sanitizer its shadow memory is counted too: the peaks are not checked there.)
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define TRACEMERGE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TRACEMERGE_SANITIZED 1
#endif
#endif

namespace tracemerge::test {
namespace {

std::string Deflated(std::string_view text, int flush) {  // raw deflate, ending with `flush`
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, flush);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

// A gzip file that inflates to head + unit × n + tail, made in milliseconds whatever n: the
// unit deflated once and its bytes repeated (a full flush makes each copy stand alone), the
// trailer's CRC combined, the length field the true one modulo 2^32.
std::string Bomb(std::string_view head, std::string_view unit, uint64_t n, std::string_view tail) {
  std::string gz("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10);
  gz += Deflated(head, Z_FULL_FLUSH);
  const std::string u = Deflated(unit, Z_FULL_FLUSH);
  gz.reserve(gz.size() + u.size() * n + 64);
  uLong crc = crc32(0, reinterpret_cast<const Bytef*>(head.data()), static_cast<uInt>(head.size()));
  const uLong unit_crc = crc32(0, reinterpret_cast<const Bytef*>(unit.data()), static_cast<uInt>(unit.size()));
  for (uint64_t i = 0; i < n; i++) {
    gz += u;
    crc = crc32_combine(crc, unit_crc, static_cast<z_off_t>(unit.size()));
  }
  gz += Deflated(tail, Z_FINISH);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(tail.data()), static_cast<uInt>(tail.size()));
  const uint64_t size = head.size() + unit.size() * n + tail.size();
  for (uint64_t v : {uint64_t(crc), size})
    for (int i = 0; i < 4; i++) gz += static_cast<char>((v >> (8 * i)) & 0xff);
  return gz;
}

constexpr char kEvent[] = R"({"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":1})";

// `mb` MiB of spaces, or of events (whole ones: a unit of about 1 MiB).
std::string SpacesBomb(uint64_t mb) { return Bomb("", std::string(1 << 20, ' '), mb, ""); }
std::string EventsBomb(uint64_t mb) {
  std::string unit;
  while (unit.size() < (1 << 20)) unit += std::string(kEvent) + ",";
  return Bomb(R"({"traceEvents":[)", unit, mb, std::string(kEvent) + "]}");
}

struct CliRun {
  int code = -1;
  std::string err;
  uint64_t peak_mb = 0;  // resident, as the kernel counted it
};

class MemoryBudgetCli : public ScratchDirTest {
 protected:
  CliRun Exec(std::vector<std::string> args) {
    const std::string err = (dir_ / "stderr").string();
    const pid_t pid = ::fork();
    if (pid == 0) {
      FILE* f = std::freopen(err.c_str(), "w", stderr);
      (void)f;
      ::setenv("TRACEMERGE_STATS", "1", 1);  // (its peak, as its own memory map counted it: "peak-resident-mb N")
      std::vector<char*> argv{const_cast<char*>("tracemerge")};
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(TRACEMERGE_CLI, argv.data());
      ::_exit(127);
    }
    int status = 0;
    CliRun r;
    if (::waitpid(pid, &status, 0) != pid) return r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = ReadFile(err);
    const size_t at = r.err.find("peak-resident-mb ");
    r.peak_mb = at == std::string::npos ? UINT64_MAX : std::stoull(r.err.substr(at + 17));
    return r;
  }
  std::string Good() { return Write("good.json", std::string("[") + kEvent + "]"); }
  std::string WriteBytes(const std::string& name, const std::string& bytes) { return Write(name, bytes); }
};

void ExpectPeakUnder(const CliRun& r, uint64_t mb) {
#ifndef TRACEMERGE_SANITIZED
  EXPECT_LE(r.peak_mb, mb) << r.err;
#else
  (void)r, (void)mb;
#endif
}

// 20 GB of spaces in 20 MB, twice, on two threads, beside a good file: each bomb stops at an
// eighth of the budget, named with the budget; the good file merges; the process stays
// within the budget.
TEST_F(MemoryBudgetCli, SpaceBombsStopAtAnEighthOfTheBudget) {
  const std::string a = WriteBytes("bomb-a.json.gz", SpacesBomb(20 << 10)), b = WriteBytes("bomb-b.json.gz", SpacesBomb(20 << 10));
  const std::string out = (dir_ / "out.json").string();
  const CliRun r = Exec({a, b, Good(), "-o", out, "--threads", "2", "--memory-mb", "512"});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* name : {"bomb-a.json.gz", "bomb-b.json.gz"})
    EXPECT_NE(r.err.find(std::string(name) + " @") , std::string::npos) << r.err;
  EXPECT_NE(r.err.find("TOO_LARGE: inflates to more than the limit of 67108864 bytes (an eighth of the memory budget of "
                       "512 MB; --memory-mb); kept the first part"),
            std::string::npos)
      << r.err;
  EXPECT_NE(ReadFile(out).find(R"("name":"k")"), std::string::npos);
  ExpectPeakUnder(r, 512);
}

// 6 GB of events in a few MB, twice, on three threads: each keeps its first 64 MB (over a
// million events), the events beyond a third of the budget wait in the temporary file, and the
// process stays within the budget. The same bytes as on one thread.
TEST_F(MemoryBudgetCli, EventBombsKeepTheirFirstPartWithinTheBudget) {
  const std::string a = WriteBytes("a.json.gz", EventsBomb(6 << 10)), b = WriteBytes("b.json.gz", EventsBomb(6 << 10));
  const std::string out3 = (dir_ / "out3.json").string(), out1 = (dir_ / "out1.json").string();
  const CliRun r = Exec({a, b, "-o", out3, "--threads", "3", "--memory-mb", "512"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("a.json.gz @"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("b.json.gz @"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("an eighth of the memory budget of 512 MB"), std::string::npos) << r.err;
  ExpectPeakUnder(r, 512);
  const CliRun one = Exec({a, b, "-o", out1, "--threads", "1", "--memory-mb", "512"});
  EXPECT_EQ(one.code, 0) << one.err;
  const std::string bytes = ReadFile(out3);
  EXPECT_TRUE(bytes == ReadFile(out1)) << "three threads and one wrote different bytes";
  size_t events = 0;
  for (size_t at = bytes.find(R"("name":"k")"); at != std::string::npos; at = bytes.find(R"("name":"k")", at + 1)) events++;
  EXPECT_GT(events, 2u * 1000000);
}

// Files under the per-file limit but over the size one source at a time may have (an eighth
// / (threads + 1)): they take turns, all merge whole, in the same bytes as on one thread.
TEST_F(MemoryBudgetCli, BigFilesTakeTurnsAndMergeWhole) {
  std::vector<std::string> args;
  for (int i = 0; i < 5; i++) args.push_back(WriteBytes("r" + std::to_string(i) + ".json.gz", EventsBomb(30)));
  args.push_back(Write("plain.json", Inflate(ReadFile(args[0]))));  // (read on the caller's thread)
  const std::string out3 = (dir_ / "out3.json").string(), out1 = (dir_ / "out1.json").string();
  std::vector<std::string> three = args, one = args;
  for (const std::string& s : {std::string("-o"), out3, std::string("--threads"), std::string("3")}) three.push_back(s);
  for (const std::string& s : {std::string("-o"), out1, std::string("--threads"), std::string("1")}) one.push_back(s);
  for (auto* v : {&three, &one}) v->insert(v->end(), {"--memory-mb", "512"});
  const CliRun r3 = Exec(three), r1 = Exec(one);
  EXPECT_EQ(r3.code, 0) << r3.err;
  EXPECT_EQ(r1.code, 0) << r1.err;
  EXPECT_EQ(r3.err.find("TOO_LARGE"), std::string::npos) << r3.err;
  EXPECT_TRUE(ReadFile(out3) == ReadFile(out1)) << "three threads and one wrote different bytes";
  ExpectPeakUnder(r3, 512);
}

// The default budget: three quarters of the machine's memory (or of its cgroup's limit), said
// in --help.
TEST_F(MemoryBudgetCli, TheDefaultIsThreeQuartersOfTheMachine) {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  while (meminfo >> key >> kb && key != "MemTotal:") meminfo.ignore(1 << 10, '\n');
  ASSERT_EQ(key, "MemTotal:");
  uint64_t machine = kb << 10;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream f(path);
    uint64_t limit = 0;
    if (f >> limit && limit > 0) machine = std::min(machine, limit);
  }
  const std::string out = (dir_ / "help").string();
  ASSERT_EQ(std::system((std::string(TRACEMERGE_CLI) + " --help >" + out).c_str()), 0);
  const std::string help = ReadFile(out);
  const std::string want = "memory budget here: " + std::to_string((machine / 4 * 3) >> 20) + " MB";
  EXPECT_NE(help.find(want), std::string::npos) << want << "\n" << help;
}

}  // namespace
}  // namespace tracemerge::test
