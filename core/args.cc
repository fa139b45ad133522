#include "args.h"

#include <optional>
#include <tuple>

#include "numbers.h"

namespace tracemerge {

const char kUsage[] =
    "usage: tracemerge [merge] [options] PATH...\n"
    "Merges Chrome/Perfetto trace-event JSON (.json, .json.gz) and SageMaker Debugger\n"
    "profiler output into one timeline with absolute Unix-µs times.\n"
    "PATH is a file or a folder (walked recursively, like a folder dropped on the page).\n"
    "\n"
    "  -o FILE              output file; '-' = stdout; a .gz name gzips. Default:\n"
    "                       <end_us>_merged_timeline.json in the first folder given\n"
    "  --output-dir DIR     where the default-named output goes (instead)\n"
    "  --start T, --end T   window: Unix µs or a UTC date-time such as\n"
    "                       '2020-07-13 17:50:18.5' (--unit time), or steps (--unit\n"
    "                       step); events overlapping the window are kept, ends included\n"
    "  --unit time|step     default time; step windows exclude the end step (as smdebug)\n"
    "  --only KIND          merge only these kinds (repeatable): pythontimeline.json,\n"
    "                       model_timeline.json, horovod_timeline.json, trace.json.gz,\n"
    "                       system, other, xplane.pb\n"
    "  --group source|phase one process per source (default) or per phase name\n"
    "  --offset PATH=US     shift a source's times by US µs (repeatable; PATH may be a\n"
    "                       file name, a path or a folder)\n"
    "  --align clocks|steps move each host once: by the clock offset its collectives\n"
    "                       show (always estimated: CLOCK_SKEW), or so that a step\n"
    "                       they share starts together (--start's with --unit step)\n"
    "  --gzip               gzip the output (implied by a .gz output name)\n"
    "  --array              write a bare JSON array of events, as smdebug did (the\n"
    "                       report is then only in --report and the summary)\n"
    "  --name-tag TAG       the default name is <end_us>_TAG_merged_timeline.json\n"
    "                       (smdebug put its node id there)\n"
    "  --report FILE.json   also write the report as JSON\n"
    "  --max-file-mb N      per-file inflated size limit (default 4096; in wasm 1024,\n"
    "                       what a 4 GB heap parses in one file)\n"
    "  --max-string-mb N    longest JSON string in an event (default 64)\n"
    "  --memory-mb N        the merge's memory, about N MB (natively: inflated input,\n"
    "                       events; beyond half of it, events wait in a temporary\n"
    "                       file, and a file that inflates past a quarter of it keeps\n"
    "                       its first part; default: 3/4 of the machine's memory).\n"
    "                       In wasm: events held in the heap (default 512), the rest\n"
    "                       outside it\n"
    "  --threads N          threads to parse and write on (default: the machine's cores;\n"
    "                       the Node CLI: N - 1 helper workers); the same output for any N\n"
    "  --scan               only describe the job (time span, steps, sources); write nothing\n"
    "  --quiet              print only errors\n"
    "  --version, --help\n";

namespace {

bool ParseInt(const std::string& s, int64_t* out) {
  auto v = ParseScaled(s, 1);
  if (!v || s.find_first_of(".eE\"") != std::string::npos) return false;
  *out = *v;
  return true;
}

Status Usage(std::string msg) { return Status::Error(Code::kUsage, std::move(msg)); }

}  // namespace

bool ParseOffsetUs(const std::string& text, int64_t* us) { return ParseInt(text, us); }

Status ParseArgs(const std::vector<std::string>& argv, Args* a) {
  *a = Args{};
  a->options.threads = 0;  // (not given: the CLI's default, the machine's cores)
  size_t i = !argv.empty() && argv[0] == "merge" ? 1 : 0;
  bool only_given = false;
  std::optional<std::string> start_text, end_text;
  for (; i < argv.size(); i++) {
    const std::string& k = argv[i];
    std::string v;
    auto value = [&] {
      if (i + 1 >= argv.size()) return false;
      v = argv[++i];
      return true;
    };
    int64_t n = 0;
    Options& o = a->options;
    if (k == "--help" || k == "-h") {
      a->help = true;
    } else if (k == "--version") {
      a->version = true;
    } else if (k == "-o" || k == "--output") {
      if (!value()) return Usage(k + " needs a file name");
      a->output = v;
    } else if (k == "--output-dir") {
      if (!value()) return Usage("--output-dir needs a folder");
      a->output_dir = v;
    } else if (k == "--start" || k == "--end") {  // read once --unit is known (below)
      if (!value()) return Usage(k + " needs a time or a step");
      (k == "--start" ? start_text : end_text) = v;
    } else if (k == "--unit") {
      if (!value()) return Usage("--unit needs time or step");
      if (Status s = ParseUnit(v, &o.unit); !s.ok()) return s;
    } else if (k == "--group") {
      if (!value()) return Usage("--group needs source or phase");
      if (Status s = ParseGroup(v, &o.group); !s.ok()) return s;
    } else if (k == "--align") {
      if (!value()) return Usage("--align needs clocks, steps or none");
      if (Status s = ParseAlign(v, &o.align); !s.ok()) return s;
    } else if (k == "--only") {
      if (!value()) return Usage("--only needs a kind");
      auto kind = KindFromFilterName(v);
      if (!kind) return Usage("unknown kind for --only: '" + v + "'");
      if (!only_given) o.kinds = 0;
      only_given = true;
      o.kinds |= KindBit(*kind);
    } else if (k == "--offset") {
      size_t eq;
      if (!value() || (eq = v.rfind('=')) == std::string::npos || eq == 0 || !ParseOffsetUs(v.substr(eq + 1), &n))
        return Usage("--offset needs PATH=MICROSECONDS");
      o.offsets_us.push_back({v.substr(0, eq), n});
    } else if (k == "--gzip") {
      o.gzip = true;
    } else if (k == "--array") {
      o.event_array = true;
    } else if (k == "--name-tag") {
      if (!value() || v.empty() || v.find_first_of("/\\") != std::string::npos) return Usage("--name-tag needs a name (no '/')");
      o.name_tag = v;
    } else if (k == "--report") {
      if (!value()) return Usage("--report needs a file name");
      a->report_path = v;
    } else if (k == "--max-file-mb") {
      if (!value() || !ParseInt(v, &n) || n <= 0 || n > (int64_t{1} << 30)) return Usage("--max-file-mb needs a positive integer");
      o.max_inflated_bytes = static_cast<uint64_t>(n) << 20;
      a->max_file_given = true;
    } else if (k == "--memory-mb") {
      if (!value() || !ParseInt(v, &n) || n < 0 || n > (int64_t{1} << 30)) return Usage("--memory-mb needs an integer ≥ 0");
      o.memory_budget = static_cast<uint64_t>(n) << 20;
    } else if (k == "--threads") {
      if (!value() || !ParseInt(v, &n) || n < 1 || n > 1024) return Usage("--threads needs a number of threads, 1 or more");
      o.threads = static_cast<unsigned>(n);
      a->threads_given = true;
    } else if (k == "--scan") {
      o.scan_only = true;
    } else if (k == "--max-string-mb") {
      if (!value() || !ParseInt(v, &n) || n <= 0 || n > (int64_t{1} << 30)) return Usage("--max-string-mb needs a positive integer");
      o.max_string_bytes = static_cast<uint64_t>(n) << 20;
    } else if (k == "--quiet" || k == "-q") {
      a->quiet = true;
    } else if (k.size() > 1 && k[0] == '-') {
      return Usage("unknown option '" + k + "'");
    } else {
      a->paths.push_back(k);
    }
  }
  // A bound: a step number with --unit step, else whole Unix µs or a UTC date-time.
  for (auto [text, bound, flag] : {std::tuple{&start_text, &a->options.start, "--start"},
                                   std::tuple{&end_text, &a->options.end, "--end"}}) {
    if (!*text) continue;
    int64_t n = 0;
    if (a->options.unit == Unit::kStep) {
      if (!ParseInt(**text, &n)) return Usage(std::string(flag) + " needs a step number with --unit step, not '" + **text + "'");
      *bound = n;
    } else if (auto us = ParseTimeText(**text)) {
      *bound = *us;
    } else {
      return Usage(std::string(flag) + " needs whole Unix µs or a UTC date-time such as 2020-07-13 17:50:18.5, not '" +
                   **text + "'");
    }
  }
  if (a->options.start && a->options.end && *a->options.start > *a->options.end)
    return Usage("--start is after --end");
  const std::string& out = a->output;
  if (out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0) a->options.gzip = true;
  return {};
}

std::string DefaultOutputName(const Report& r, const Options& o) {
  int64_t end_ns = r.window_bounded && r.window_end_ns != INT64_MAX ? r.window_end_ns : r.last_end_ns;
  return std::to_string(end_ns / 1000) + (o.name_tag.empty() ? "" : "_" + o.name_tag) + "_merged_timeline.json" +
         (o.gzip ? ".gz" : "");
}

}  // namespace tracemerge
