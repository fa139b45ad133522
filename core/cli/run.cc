#include "run.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api_json.h"
#include "args.h"
#include "budget.h"
#include "driver.h"
#include "worker_pool.h"
#include "store.h"
#include "stages.h"
#include "summary.h"

namespace fs = std::filesystem;

namespace tracemerge {
namespace {

// A one-line progress display on a terminal, at most 5 updates a second.
class ProgressLine {
 public:
  ProgressLine(bool enabled, std::function<void(std::string_view)> err) : enabled_(enabled), err_(std::move(err)) {}
  void Show(const std::string& text, bool force = false) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    err_("\r\033[K" + text);
    shown_ = true;
  }
  void Clear() {
    if (shown_) err_("\r\033[K");
    shown_ = false;
  }

 private:
  bool enabled_;
  std::function<void(std::string_view)> err_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

std::string Mb(uint64_t bytes) { return std::to_string(bytes / 1000000) + " MB"; }

struct Input {
  std::string disk_path;  // where to read it
  std::string name;       // what the merge calls it (relative, '/'-separated)
  bool in_folder = false; // found in a folder walk (not named by itself)
  std::optional<uint64_t> size;  // a regular file's size when listed
};

// What a path is, by stat(2): std::filesystem's status says "unknown", not "not found", of a
// missing path in some C++ runtimes (Zig's libc++ for glibc 2.17, the wheels': exists() is
// true there for any path).
TargetKind KindOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return TargetKind::kMissing;
  return S_ISREG(st.st_mode) ? TargetKind::kRegular : S_ISDIR(st.st_mode) ? TargetKind::kDirectory : TargetKind::kOther;
}

// A folder is walked recursively; the driver names and orders its files.
void Collect(const std::string& arg, std::vector<Input>* inputs, std::vector<std::string>* errors) {
  std::error_code ec;
  fs::path p(arg);
  const TargetKind kind = KindOf(arg);
  if (kind == TargetKind::kDirectory) {
    std::vector<std::string> relative;
    for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      // Lexically (the walk built it->path() as p / its relative path): fs::relative
      // resolves both paths on disk, a readlink per component of every file, and
      // named a symlinked file after its target ("job/../real.json").
      if (it->is_regular_file(ec)) relative.push_back(it->path().lexically_relative(p).generic_string());
    }
    if (ec) errors->push_back(arg + ": " + ec.message());
    for (FolderFile& f : NameFolderFiles(fs::weakly_canonical(p, ec).string(), std::move(relative)))
      inputs->push_back({(p / f.relative).string(), std::move(f.name), true, std::nullopt});
  } else if (kind != TargetKind::kMissing) {
    inputs->push_back({arg, NameFile(p.generic_string()), false, std::nullopt});
  } else {
    errors->push_back(arg + ": no such file or folder");
  }
}

// A file of ours created afresh (O_EXCL: never another's opened), else nullptr with errno. A
// temporary file of this name left by a process that died (its pid reused) is removed first.
FILE* CreateNew(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST && ::unlink(path.c_str()) == 0)
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return nullptr;
  FILE* f = ::fdopen(fd, "wb");
  if (!f) ::close(fd);
  return f;
}

bool WriteWhole(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && wrote;
}


// The inputs the paths name (folders walked), with their sizes; errors as the CLI says them.
std::vector<Input> ListInputs(const std::vector<std::string>& paths, const RunIo& io, uint64_t* bytes_total) {
  std::vector<Input> inputs;
  std::vector<std::string> errors;
  for (const std::string& p : paths) Collect(p, &inputs, &errors);
  for (const std::string& e : errors) io.err(CliError(e));
  std::map<std::pair<dev_t, ino_t>, std::string> seen;  // (its first name)
  std::vector<Input> once;
  for (Input& in : inputs) {
    struct stat st;
    if (::stat(in.disk_path.c_str(), &st) == 0) {
      auto [first, fresh] = seen.try_emplace({st.st_dev, st.st_ino}, in.name);
      if (!fresh) {
        io.err(CliSameFile(in.name, first->second));
        continue;
      }
      if (S_ISREG(st.st_mode)) in.size = static_cast<uint64_t>(st.st_size), *bytes_total += *in.size;
    }
    once.push_back(std::move(in));
  }
  return once;
}

// A summary file (summary.h) into the merger, whole; false (said) when it is not one this
// build reads.
bool ReadSummaryFile(Merger& merger, int fd, const Input& in, const RunIo& io) {
  std::string bytes;
  char chunk[1 << 16];
  for (ssize_t got; (got = ::read(fd, chunk, sizeof chunk)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return io.err(CliError(in.disk_path + ": " + std::strerror(errno))), false;
    bytes.append(chunk, static_cast<size_t>(got));
  }
  const Status s = merger.ImportSummary(bytes, in.name);
  if (!s.ok())
    io.err(CliError(in.disk_path + (s.error().offset ? " at byte " + std::to_string(s.error().offset) : "") + ": " +
                    s.error().message));
  return s.ok();
}

// Streams every input into the merger, showing progress, until the caller says stop (*stopped,
// set at once: the merge's own progress reads it). Summary files (a scan's reduce) are read
// whole; false when one could not be.
bool ReadInputs(Merger& merger, const std::vector<Input>& inputs, uint64_t bytes_total, const RunIo& io,
                ProgressLine& line, bool* stopped) {
  constexpr size_t kChunk = 1 << 20;
  uint64_t bytes_done = 0, files_done = 0;
  for (const Input& in : inputs) {
    // POSIX calls, a file's bytes read straight where they are parsed: with
    // a thousand rank traces the reading thread's system calls per file are
    // what two threads wait for (stdio read each head and tail into its buffer).
    const int fd = ::open(in.disk_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      io.err(CliError(in.disk_path + ": " + std::strerror(errno)));
      continue;
    }
    char head[kSummaryMagic.size()], tail[4];  // (one read of its head: a summary's magic, gzip's)
    const ssize_t got_head = in.size ? ::pread(fd, head, sizeof head, 0) : 0;
    if (got_head == static_cast<ssize_t>(sizeof head) && LooksLikeSummary({head, sizeof head})) {
      const bool read = ReadSummaryFile(merger, fd, in, io);
      ::close(fd);
      if (!read) return false;
      bytes_done += *in.size, files_done++;
      continue;
    }
    uint64_t hint = in.size.value_or(0);
    if (in.size && *in.size >= 6 && got_head >= 2 && LooksGzipped({head, 2}) &&
        ::pread(fd, tail, 4, static_cast<off_t>(*in.size - 4)) == 4)
      hint = GzipSizeHint({head, 2}, {tail, 4}, *in.size);
    merger.BeginSource(in.name, hint, in.in_folder);
    for (;;) {
      const size_t want = merger.ChunkSize(kChunk);
      const ssize_t got = ::read(fd, merger.ChunkRoom(want), want);  // (no copy of plain files)
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) io.err(CliError(in.disk_path + ": read failed after " + std::to_string(bytes_done) + " bytes: " +
                                   std::strerror(errno) + "; merged what was read"));
      if (got <= 0) break;
      const auto n = static_cast<size_t>(got);
      merger.AppendRoom(n);
      bytes_done += n;
      line.Show("reading: " + std::to_string(files_done) + " of " + std::to_string(inputs.size()) + " files, " +
                Mb(bytes_done) + " of " + Mb(bytes_total) + " — " + in.name);
      if (io.progress && !io.progress(Progress{"read", bytes_done, bytes_total})) {
        *stopped = true;
        break;
      }
    }
    ::close(fd);
    if (*stopped) return merger.DropSource(), true;  // (read no further: not a cut file)
    merger.EndSource();
    files_done++;
  }
  return true;
}

// --list: the inputs, as the merge would read them.
std::string InputsJson(const std::vector<Input>& inputs) {
  std::string s = "[";
  for (const Input& in : inputs)
    s += std::string(s.size() > 1 ? ",\n" : "") + "{\"path\":\"" + JsonEscape(in.disk_path) + "\",\"name\":\"" +
         JsonEscape(in.name) + "\",\"in_folder\":" + (in.in_folder ? "true" : "false") +
         ",\"size\":" + (in.size ? std::to_string(*in.size) : "null") + "}";
  return s + "]\n";
}

// TRACEMERGE_STATS=1: phase times on stderr (for scripts/bench.sh). read+parse ends with the
// last source parsed (the sources still parsing when the reading ended: the plan's "tail");
// the plan from there to the first byte.
void PrintStats(const Report& report, double t_read, double t_first, double t_end) {
  double tail = 0;
  std::string stages = "plan-seconds";
  for (auto& [stage, seconds] : report.plan_seconds) {
    if (stage == "tail") tail = seconds;
    stages += " " + stage + " " + std::to_string(seconds).substr(0, 6);
  }
  std::fprintf(stderr, "phase-seconds read+parse %.3f plan %.3f write %.3f clock-check %.3f\n%s\npeak-resident-mb %llu\n",
               t_read + tail, t_first - t_read - tail, t_end - t_first, report.clock_check_seconds, stages.c_str(),
               static_cast<unsigned long long>(PeakResident() >> 20));
}

// The merge's options for this run: its threads (the machine's cores unless given), the
// memory budget (budget.h: given, or from the machine's memory) and, for what waits beyond
// it, a temporary file; progress on the line and to the caller, who may say stop.
Options MergeOptionsFor(const Options& opt, const RunIo& io, ProgressLine& line, const bool& stopped) {
  Options merge_opt = opt;
  if (merge_opt.threads == 0) merge_opt.threads = std::max(1u, std::thread::hardware_concurrency());  // (--threads)
  ShareBudget(MemoryBudget(opt.memory_budget != UINT64_MAX ? std::optional<uint64_t>(opt.memory_budget) : std::nullopt),
              &merge_opt);
  merge_opt.store = std::make_shared<FileStore>();
  if (io.big_input) io.big_input(merge_opt.big_input_bytes);
  merge_opt.progress = [&](const Progress& p) {
    if (stopped) return false;  // (the merge then ends CANCELLED at its first progress)
    if (std::string_view(p.stage) == "write")
      line.Show("writing: " + std::to_string(p.done) + " of " + std::to_string(p.total) + " events");
    else if (std::string_view(p.stage) == "plan")
      line.Show("planning: clocks, the clock check, the window, tracks, order (" + std::to_string(p.done) + " of " +
                std::to_string(p.total) + ")");
    return !io.progress || io.progress(p);
  };
  return merge_opt;
}

// The merge into the plan's temporary file (or stdout), written on a second
// thread so that the kernel's copy of it overlaps the merge (at most 4 chunks,
// ~4 MB, wait); false when the file cannot be opened (said). *write_failed when
// a write or the close failed.
template <typename Since>
bool WriteMerge(Merger& merger, const OutputFilePlan& plan, Since since, bool stats, const RunIo& io, Report* report,
                bool* write_failed) {
  FILE* out = plan.to_stdout ? stdout : plan.in_place ? std::fopen(plan.tmp.c_str(), "wb") : CreateNew(plan.tmp);
  if (!out) {
    io.err(CliError("cannot write in " + plan.dir + ": " + std::strerror(errno)));
    return false;
  }
  bool failed = false;  // the writer's; read after Wait()
  WorkerPool<std::string> writer(1, 4, [&](std::string& chunk, unsigned) {
    if (!failed && std::fwrite(chunk.data(), 1, chunk.size(), out) != chunk.size()) failed = true;
  });
  const double t_read = since();
  double t_first = -1;
  *report = merger.Merge([&](std::string_view chunk) {
    if (t_first < 0) t_first = since();
    writer.Push(std::string(chunk));
  });
  writer.Wait();
  if (stats) PrintStats(*report, t_read, t_first, since());
  if (plan.to_stdout) std::fflush(stdout);
  else if (std::fclose(out) != 0) failed = true;
  *write_failed = failed;
  return true;
}

// --summarize: one input's summary (summary.h), written whole; the exit status.
int Summarize(const Args& args, Input in, const RunIo& io) {
  if (args.summarize_path.empty()) return io.err(CliError("--name and --in-folder go with --summarize")), 2;
  if (args.paths.size() != 1 || KindOf(args.paths[0]) != TargetKind::kRegular) {
    io.err(CliError("--summarize makes the summary of one file; " + args.paths[0] + " is not one (--list names a folder's)"));
    return 2;
  }
  if (!args.name.empty()) in.name = args.name;
  in.in_folder = args.in_folder;
  Options opt = args.options;
  opt.scan_only = true;
  opt.threads = 1;  // (one file: a cluster's worker runs one a core)
  Merger merger(opt);
  ProgressLine line(false, io.err);
  bool stopped = false;
  if (!ReadInputs(merger, {in}, in.size.value_or(0), io, line, &stopped)) return 1;
  if (stopped) return 1;
  const std::string bytes = merger.Summarize();
  const std::string tmp = args.summarize_path + ".part";
  if (!WriteWhole(tmp, bytes) || std::rename(tmp.c_str(), args.summarize_path.c_str()) != 0) {
    io.err(CliError("cannot write " + args.summarize_path + ": " + std::strerror(errno)));
    std::remove(tmp.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

// Arguments → inputs listed → the merger set up (budget, store, progress) → inputs read →
// merged and written to the temporary file (on a second thread) → renamed into place →
// the summary and exit status (FinishCli).
RunResult RunCli(const std::vector<std::string>& argv, const RunIo& io) {
  RunResult result;
  auto done = [&](int exit) {
    result.exit = exit;
    return result;
  };
  CliStart start = StartCli(argv);
  if (start.exit >= 0) {
    io.out(start.out);
    if (start.args.help)  // (the default --memory-mb, natively: budget.h)
      io.out("\nmemory budget here: " + std::to_string(MemoryBudget(std::nullopt) >> 20) +
             " MB (three quarters of this machine's memory)\n");
    io.err(start.err);
    return done(start.exit);
  }
  const Args& args = start.args;
  const Options& opt = args.options;
  const std::vector<std::string>& paths = args.paths;

  uint64_t bytes_total = 0;
  std::vector<Input> inputs = ListInputs(paths, io, &bytes_total);
  if (inputs.empty()) {
    io.err(CliError("no input files found"));
    return done(1);
  }
  if (args.list_inputs) {
    io.out(InputsJson(inputs));
    return done(0);
  }
  if (!args.summarize_path.empty() || !args.name.empty() || args.in_folder) return done(Summarize(args, inputs[0], io));

  ProgressLine line(!args.quiet && io.terminal, io.err);
  bool stopped = false;  // the caller said stop while files were read: nothing more is read or merged
  Merger merger(MergeOptionsFor(opt, io, line, stopped));
  const bool stats = std::getenv("TRACEMERGE_STATS") != nullptr;
  const auto t_start = std::chrono::steady_clock::now();
  auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(); };
  if (!ReadInputs(merger, inputs, bytes_total, io, line, &stopped)) return done(1);

  static std::atomic<uint64_t> runs{0};  // (this process's merges: each its own temporary file)
  const OutputFilePlan plan = PlanOutputFile(args, KindOf(paths[0]) == TargetKind::kDirectory, KindOf(args.output), getpid(), ++runs);
  auto finish = [&](const Report& report, bool write_failed, const std::string& final_name) {
    line.Clear();
    const CliEnd end = FinishCli(args, report.fatal.has_value(), report.Summary(), write_failed, plan, final_name);
    io.out(end.out);
    io.err(end.err);
    result.result_json = ResultJson(report, opt);
    result.output = final_name;
    return done(end.exit);
  };
  auto write_report = [&](const Report& report) {
    if (args.report_path.empty() || WriteWhole(args.report_path, report.ToJson() + "\n")) return true;
    io.err(CliError("cannot write report " + args.report_path));
    return false;
  };
  if (opt.scan_only) {  // describe the job only (the report has the page's overview too)
    const Report report = merger.Merge([](std::string_view) {});
    return write_report(report) ? finish(report, false, "") : done(1);
  }

  bool write_failed = false;
  Report report;
  if (!WriteMerge(merger, plan, since, stats, io, &report, &write_failed)) return done(1);
  const bool renamed = !plan.to_stdout && !plan.in_place;
  if (report.fatal || write_failed) {
    if (renamed) std::remove(plan.tmp.c_str());
    return finish(report, write_failed, "");
  }
  const std::string final_name = FinalOutputName(args, plan, DefaultOutputName(report, opt));
  // A file of that name goes first: renamed over, ext4 would write out the
  // new one's blocks before rename() returns (auto_da_alloc), ~0.06 s per 200 MB.
  if (renamed && KindOf(final_name) == TargetKind::kRegular) std::remove(final_name.c_str());
  if (renamed && std::rename(plan.tmp.c_str(), final_name.c_str()) != 0) {
    io.err(CliError("cannot create " + final_name + ": " + std::strerror(errno)));
    std::remove(plan.tmp.c_str());
    return done(1);
  }
  if (!write_report(report)) return done(1);
  return finish(report, false, plan.to_stdout ? "" : final_name);
}

}  // namespace tracemerge
