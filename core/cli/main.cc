// tracemerge CLI: walks folders like a dropped folder, streams files into the
// core in 1 MB chunks, writes the merged trace atomically, prints a summary.
//   tracemerge [merge] [options] PATH...        exit 0 ok, 1 nothing merged/fatal, 2 usage
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "merger.h"
#include "numbers.h"

namespace fs = std::filesystem;
using namespace tracemerge;

namespace {

const char kUsage[] =
    "usage: tracemerge [merge] [options] PATH...\n"
    "Merges Chrome/Perfetto trace-event JSON (.json, .json.gz) and SageMaker Debugger\n"
    "profiler output into one timeline with absolute Unix-µs times.\n"
    "PATH is a file or a folder (walked recursively, like a folder dropped on the page).\n"
    "\n"
    "  -o FILE              output file; '-' = stdout; a .gz name gzips. Default:\n"
    "                       <end_us>_merged_timeline.json in the first folder given\n"
    "  --start N, --end N   window: Unix µs (--unit time) or steps (--unit step);\n"
    "                       events overlapping the window are kept, ends included\n"
    "  --unit time|step     default time; step windows exclude the end step (as smdebug)\n"
    "  --only KIND          merge only these kinds (repeatable): pythontimeline.json,\n"
    "                       model_timeline.json, trace.json.gz, horovod_timeline.json,\n"
    "                       system, other\n"
    "  --group source|phase one process per source (default) or per phase name\n"
    "  --offset PATH=US     shift a source's times by US µs (repeatable; PATH may be a\n"
    "                       file name, a path or a folder)\n"
    "  --gzip               gzip the output (implied by a .gz output name)\n"
    "  --report FILE.json   also write the report as JSON\n"
    "  --max-file-mb N      per-file inflated size limit (default 4096)\n"
    "  --quiet              print only errors\n"
    "  --version, --help\n";

int Usage(const std::string& msg) {
  std::cerr << "tracemerge: " << msg << "\n\n" << kUsage;
  return 2;
}

bool ParseInt(const std::string& s, int64_t* out) {
  auto v = ParseScaled(s, 1);
  if (!v || s.find_first_of(".eE") != std::string::npos) return false;
  *out = *v;
  return true;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

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
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "merge") args.erase(args.begin());
  Options opt;
  std::string output, report_path;
  bool quiet = false, only_given = false;
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    std::string v;
    int64_t n = 0;
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--version") {
      std::cout << "tracemerge " << kVersion << "\n";
      return 0;
    } else if (a == "-o" || a == "--output") {
      if (!value(&output)) return Usage(a + " needs a file name");
    } else if (a == "--start" || a == "--end") {
      if (!value(&v) || !ParseInt(v, &n)) return Usage(a + " needs an integer (µs or step)");
      (a == "--start" ? opt.start : opt.end) = n;
    } else if (a == "--unit") {
      if (!value(&v)) return Usage("--unit needs time or step");
      if (Status s = ParseUnit(v, &opt.unit); !s.ok()) return Usage(s.message);
    } else if (a == "--group") {
      if (!value(&v)) return Usage("--group needs source or phase");
      if (Status s = ParseGroup(v, &opt.group); !s.ok()) return Usage(s.message);
    } else if (a == "--only") {
      if (!value(&v)) return Usage("--only needs a kind");
      auto kind = KindFromFilterName(v);
      if (!kind) return Usage("unknown kind for --only: '" + v + "'");
      if (!only_given) opt.kinds = 0;
      only_given = true;
      opt.kinds |= KindBit(*kind);
    } else if (a == "--offset") {
      size_t eq;
      if (!value(&v) || (eq = v.rfind('=')) == std::string::npos || !ParseInt(v.substr(eq + 1), &n))
        return Usage("--offset needs PATH=MICROSECONDS");
      opt.offsets_us.push_back({v.substr(0, eq), n});
    } else if (a == "--gzip") {
      opt.gzip = true;
    } else if (a == "--report") {
      if (!value(&report_path)) return Usage("--report needs a file name");
    } else if (a == "--max-file-mb") {
      if (!value(&v) || !ParseInt(v, &n) || n <= 0) return Usage("--max-file-mb needs a positive integer");
      opt.max_inflated_bytes = static_cast<uint64_t>(n) << 20;
    } else if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      return Usage("unknown option '" + a + "'");
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) return Usage("no input: give files or folders");
  if (opt.start && opt.end && *opt.start > *opt.end) return Usage("--start is after --end");
  if (EndsWith(output, ".gz")) opt.gzip = true;

  std::vector<Input> inputs;
  std::vector<std::string> errors;
  for (const std::string& p : paths) Collect(p, &inputs, &errors);
  for (const std::string& e : errors) std::cerr << "tracemerge: " << e << "\n";
  if (inputs.empty()) {
    std::cerr << "tracemerge: no input files found\n";
    return 1;
  }

  Merger merger(opt);
  std::vector<char> buf(1 << 20);
  for (const Input& in : inputs) {
    FILE* f = std::fopen(in.disk_path.c_str(), "rb");
    if (!f) {
      std::cerr << "tracemerge: " << in.disk_path << ": " << std::strerror(errno) << "\n";
      continue;
    }
    merger.BeginSource(in.name);
    size_t got;
    while ((got = std::fread(buf.data(), 1, buf.size(), f)) > 0) merger.AppendChunk({buf.data(), got});
    std::fclose(f);
    merger.EndSource();
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
  std::string tmp = dir + "/.tracemerge-" + std::to_string(getpid()) + ".tmp";
  FILE* out = to_stdout ? stdout : std::fopen(tmp.c_str(), "wb");
  if (!out) {
    std::cerr << "tracemerge: cannot write in " << dir << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  bool write_failed = false;
  Report report = merger.Merge([&](std::string_view chunk) {
    if (std::fwrite(chunk.data(), 1, chunk.size(), out) != chunk.size()) write_failed = true;
  });
  if (!to_stdout && std::fclose(out) != 0) write_failed = true;
  if (report.fatal || write_failed) {
    if (!to_stdout) std::remove(tmp.c_str());
    std::cerr << report.Summary();
    if (write_failed) std::cerr << "tracemerge: writing the output failed\n";
    return 1;
  }
  std::string final_name = output;
  if (output.empty()) {
    int64_t end_ns = report.window_bounded && report.window_end_ns != INT64_MAX ? report.window_end_ns
                                                                                 : report.last_end_ns;
    final_name = dir + "/" + std::to_string(end_ns / 1000) + "_merged_timeline.json" + (opt.gzip ? ".gz" : "");
  }
  if (!to_stdout && std::rename(tmp.c_str(), final_name.c_str()) != 0) {
    std::cerr << "tracemerge: cannot create " << final_name << ": " << std::strerror(errno) << "\n";
    std::remove(tmp.c_str());
    return 1;
  }
  if (!report_path.empty()) {
    FILE* r = std::fopen(report_path.c_str(), "wb");
    std::string json = report.ToJson() + "\n";
    if (!r || std::fwrite(json.data(), 1, json.size(), r) != json.size()) {
      std::cerr << "tracemerge: cannot write report " << report_path << "\n";
      if (r) std::fclose(r);
      return 1;
    }
    std::fclose(r);
  }
  if (!quiet) {
    std::cerr << report.Summary();
    if (!to_stdout) std::cerr << "wrote " << final_name << "\n";
  }
  return 0;
}
