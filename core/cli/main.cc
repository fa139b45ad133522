// tracemerge CLI: walks folders like a dropped folder, streams files into the
// core in 1 MB chunks, writes the merged trace atomically, prints a summary.
//   tracemerge [merge] [options] PATH...        exit 0 ok, 1 nothing merged/fatal, 2 usage
#include <sys/stat.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "args.h"
#include "merger.h"
#include "serial_worker.h"
#include "store.h"

namespace fs = std::filesystem;
using namespace tracemerge;

namespace {

// A one-line progress display on a terminal, at most 5 updates a second.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  void Show(const std::string& text, bool force = false) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    std::cerr << "\r\033[K" << text << std::flush;
    shown_ = true;
  }
  void Clear() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

std::string Mb(uint64_t bytes) { return std::to_string(bytes / 1000000) + " MB"; }

struct Input {
  std::string disk_path;  // where to read it
  std::string name;       // what the merge calls it (relative, '/'-separated)
};

// A folder "a/b/job" yields "job/framework/…" names, like a dropped folder.
void Collect(const std::string& arg, std::vector<Input>* inputs, std::vector<std::string>* errors) {
  std::error_code ec;
  fs::path p(arg);
  if (fs::is_directory(p, ec)) {
    fs::path root = fs::weakly_canonical(p, ec);
    std::string label = root.filename().string();
    if (label.empty()) label = root.string();
    std::vector<Input> found;
    for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      found.push_back({it->path().string(), label + "/" + fs::relative(it->path(), p, ec).generic_string()});
    }
    if (ec) errors->push_back(arg + ": " + ec.message());
    std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.name < b.name; });
    inputs->insert(inputs->end(), found.begin(), found.end());
  } else if (fs::exists(p, ec)) {
    std::string name = p.generic_string();
    while (name.rfind("./", 0) == 0) name = name.substr(2);
    inputs->push_back({arg, name});
  } else {
    errors->push_back(arg + ": no such file or folder");
  }
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // Keep freed memory for reuse: a source's buffers and event blocks go back
  // to the heap, not to the system, and the next source takes them without
  // faulting fresh pages in (each first touch costs microseconds, in a VM
  // most of all). One arena: both parsing threads share what is freed.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  mallopt(M_ARENA_MAX, 1);
#endif
  Args args;
  if (Status s = ParseArgs(std::vector<std::string>(argv + 1, argv + argc), &args); !s.ok()) {
    std::cerr << "tracemerge: " << s.message << "\n\n" << kUsage;
    return 2;
  }
  if (args.help) {
    std::cout << kUsage;
    return 0;
  }
  if (args.version) {
    std::cout << "tracemerge " << kVersion << "\n";
    return 0;
  }
  if (args.paths.empty()) {
    std::cerr << "tracemerge: no input: give files or folders\n\n" << kUsage;
    return 2;
  }
  const Options& opt = args.options;
  const std::string& output = args.output;
  const std::vector<std::string>& paths = args.paths;

  std::vector<Input> inputs;
  std::vector<std::string> errors;
  for (const std::string& p : paths) Collect(p, &inputs, &errors);
  for (const std::string& e : errors) std::cerr << "tracemerge: " << e << "\n";
  if (inputs.empty()) {
    std::cerr << "tracemerge: no input files found\n";
    return 1;
  }

  ProgressLine line(!args.quiet && isatty(STDERR_FILENO));
  uint64_t bytes_total = 0, bytes_done = 0, files_done = 0;
  for (const Input& in : inputs) {
    std::error_code ec;
    bytes_total += fs::file_size(in.disk_path, ec);
  }
  Options merge_opt = opt;
  if (merge_opt.memory_budget != UINT64_MAX) {  // --memory-mb: the rest goes to a temporary file
    std::string error;
    merge_opt.store = FileStore::Create(&error);
    if (!merge_opt.store) {
      std::cerr << "tracemerge: " << error << "\n";
      return 1;
    }
  }
  merge_opt.parse_in_background = std::thread::hardware_concurrency() > 1;  // read the next file meanwhile
  merge_opt.write_in_background = merge_opt.parse_in_background;
  merge_opt.progress = [&](const Progress& p) {
    if (std::string_view(p.stage) == "write")
      line.Show("writing: " + std::to_string(p.done) + " of " + std::to_string(p.total) + " events");
    return true;
  };
  Merger merger(merge_opt);
  // TRACEMERGE_STATS=1: phase times on stderr (for scripts/bench.sh).
  const bool stats = std::getenv("TRACEMERGE_STATS") != nullptr;
  const auto t_start = std::chrono::steady_clock::now();
  auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count(); };
  std::vector<char> buf(1 << 20);
  for (const Input& in : inputs) {
    FILE* f = std::fopen(in.disk_path.c_str(), "rb");
    if (!f) {
      std::cerr << "tracemerge: " << in.disk_path << ": " << std::strerror(errno) << "\n";
      continue;
    }
    uint64_t hint = 0;
    char head[2] = {0, 0}, tail[4];
    std::error_code ec;
    const uint64_t file_size = fs::file_size(in.disk_path, ec);
    if (!ec && file_size >= 6 && std::fread(head, 1, 2, f) == 2 && std::fseek(f, -4, SEEK_END) == 0 &&
        std::fread(tail, 1, 4, f) == 4)
      hint = GzipSizeHint({head, 2}, {tail, 4}, file_size);
    else if (!ec)
      hint = file_size;
    std::rewind(f);
    merger.BeginSource(in.name, hint);
    size_t got;
    while ((got = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
      merger.AppendChunk({buf.data(), got});
      bytes_done += got;
      line.Show("reading: " + std::to_string(files_done) + " of " + std::to_string(inputs.size()) + " files, " +
                Mb(bytes_done) + " of " + Mb(bytes_total) + " — " + in.name);
    }
    std::fclose(f);
    merger.EndSource();
    files_done++;
  }

  if (opt.scan_only) {  // describe the job, write nothing
    Report report = merger.Merge([](std::string_view) {});
    line.Clear();
    std::cout << report.Summary();
    return report.fatal ? 1 : 0;
  }

  // Write to a temporary file next to the target, then rename: the name
  // carries the window end, known only after the merge.
  std::string dir = ".";
  if (!output.empty() && output != "-") {
    dir = fs::path(output).parent_path().string();
    if (dir.empty()) dir = ".";
  } else if (output.empty() && fs::is_directory(paths[0])) {
    dir = paths[0];
  }
  const bool to_stdout = output == "-";
  // A device or a pipe (-o /dev/null, a FIFO) is written in place: renaming a
  // temporary file over it would replace the device with a regular file.
  std::error_code ec;
  const fs::file_status target = output.empty() || to_stdout ? fs::file_status() : fs::status(output, ec);
  const bool in_place = fs::exists(target) && !fs::is_regular_file(target) && !fs::is_directory(target);
  std::string tmp = in_place ? output : dir + "/.tracemerge-" + std::to_string(getpid()) + ".tmp";
  FILE* out = to_stdout ? stdout : std::fopen(tmp.c_str(), "wb");
  if (!out) {
    std::cerr << "tracemerge: cannot write in " << dir << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  // The output is written on a second thread, so that the kernel's copy of it
  // overlaps the merge. At most 4 chunks (~4 MB) wait.
  bool write_failed = false;  // the writer's; read after Wait()
  SerialWorker<std::string> writer(4, [&](std::string& chunk) {
    if (!write_failed && std::fwrite(chunk.data(), 1, chunk.size(), out) != chunk.size()) write_failed = true;
  });
  const double t_read = since();
  double t_first = -1;
  Report report = merger.Merge([&](std::string_view chunk) {
    if (t_first < 0) t_first = since();
    writer.Push(std::string(chunk));
  });
  writer.Wait();
  if (stats)
    std::fprintf(stderr, "phase-seconds read+parse %.3f plan %.3f write %.3f\n", t_read, t_first - t_read,
                 since() - t_first);
  line.Clear();
  if (!to_stdout && std::fclose(out) != 0) write_failed = true;
  if (report.fatal || write_failed) {
    if (!to_stdout && !in_place) std::remove(tmp.c_str());
    std::cerr << report.Summary();
    if (write_failed) std::cerr << "tracemerge: writing the output failed\n";
    return 1;
  }
  std::string final_name = output;
  if (output.empty()) final_name = dir + "/" + DefaultOutputName(report, opt.gzip);
  // A file of that name goes first: renamed over, ext4 would write out the
  // new one's blocks before rename() returns (auto_da_alloc), ~0.06 s per 200 MB.
  if (!to_stdout && !in_place && fs::is_regular_file(final_name, ec)) std::remove(final_name.c_str());
  if (!to_stdout && !in_place && std::rename(tmp.c_str(), final_name.c_str()) != 0) {
    std::cerr << "tracemerge: cannot create " << final_name << ": " << std::strerror(errno) << "\n";
    std::remove(tmp.c_str());
    return 1;
  }
  if (!args.report_path.empty()) {
    FILE* r = std::fopen(args.report_path.c_str(), "wb");
    std::string json = report.ToJson() + "\n";
    if (!r || std::fwrite(json.data(), 1, json.size(), r) != json.size()) {
      std::cerr << "tracemerge: cannot write report " << args.report_path << "\n";
      if (r) std::fclose(r);
      return 1;
    }
    std::fclose(r);
  }
  if (!args.quiet) {
    std::cerr << report.Summary();
    if (!to_stdout) std::cerr << "wrote " << final_name << "\n";
  }
  return 0;
}
