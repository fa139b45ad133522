#include "args.h"

#include <algorithm>
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
    "                       what a 4 GB heap parses in one file); an XSpace over it\n"
    "                       is read a plane at a time, the limit then per plane\n"
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
    "  --summarize FILE     a scan's map of one input (a cluster's worker): its summary\n"
    "                       written to FILE; the reduce: tracemerge FILE… --scan\n"
    "  --name NAME          what the input is called in its job (with --summarize)\n"
    "  --in-folder          the input was found in a folder given (with --summarize)\n"
    "  --list               the inputs the paths name, in the order read, as JSON\n"
    "  --quiet              print only errors\n"
    "  --options            these options as JSON (for tools that build the flags)\n"
    "  --version, --help\n";

namespace {

constexpr OptionSpec kOptions[] = {
    {"--output", "-o", "", Takes::kValue, "a file name", ""},
    {"--output-dir", "", "output_dir", Takes::kValue, "a folder", ""},
    {"--start", "", "start", Takes::kValue, "a time or a step", ""},
    {"--end", "", "end", Takes::kValue, "a time or a step", ""},
    {"--unit", "", "unit", Takes::kValue, "time or step", "time|step"},
    {"--only", "", "only", Takes::kEach, "a kind", ""},
    {"--group", "", "group", Takes::kValue, "source or phase", "source|phase"},
    {"--offset", "", "offsets", Takes::kPathUs, "PATH=MICROSECONDS", ""},
    {"--align", "", "align", Takes::kValue, "clocks, steps or none", "clocks|steps|none"},
    {"--gzip", "", "gzip", Takes::kNothing, "", ""},
    {"--array", "", "array", Takes::kNothing, "", ""},
    {"--name-tag", "", "name_tag", Takes::kValue, "a name (no '/')", ""},
    {"--report", "", "report", Takes::kValue, "a file name", ""},
    {"--max-file-mb", "", "max_file_mb", Takes::kValue, "a positive integer", ""},
    {"--max-string-mb", "", "max_string_mb", Takes::kValue, "a positive integer", ""},
    {"--memory-mb", "", "memory_mb", Takes::kValue, "an integer ≥ 0", ""},
    {"--threads", "", "threads", Takes::kValue, "a number of threads, 1 or more", ""},
    {"--scan", "", "scan", Takes::kNothing, "", ""},
    {"--summarize", "", "", Takes::kValue, "a file name", ""},
    {"--name", "", "", Takes::kValue, "a name", ""},
    {"--in-folder", "", "", Takes::kNothing, "", ""},
    {"--list", "", "", Takes::kNothing, "", ""},
    {"--quiet", "-q", "", Takes::kNothing, "", ""},
    {"--options", "", "", Takes::kNothing, "", ""},
    {"--version", "", "", Takes::kNothing, "", ""},
    {"--help", "-h", "", Takes::kNothing, "", ""},
};

bool ParseInt(const std::string& s, int64_t* out) {
  auto v = ParseScaled(s, 1);
  if (!v || s.find_first_of(".eE\"") != std::string::npos) return false;
  *out = *v;
  return true;
}

Status Usage(std::string msg) { return Status::Error(Code::kUsage, std::move(msg)); }

}  // namespace

const OptionSpec* FindOption(std::string_view flag) {
  for (const OptionSpec& o : kOptions)
    if (flag == o.flag || (*o.alias && flag == o.alias)) return &o;
  return nullptr;
}

std::string OptionTableJson() {
  constexpr const char* kTakes[] = {"nothing", "value", "each", "path=us"};
  std::string s = "[";
  for (const OptionSpec& o : kOptions) {
    std::string choices;
    for (std::string_view c = o.choices; !c.empty();) {
      const size_t bar = std::min(c.find('|'), c.size());
      choices += (choices.empty() ? "\"" : ",\"") + std::string(c.substr(0, bar)) + "\"";
      c.remove_prefix(std::min(bar + 1, c.size()));
    }
    s += std::string(s.size() > 1 ? ",\n" : "") + "{\"flag\":\"" + o.flag + "\",\"alias\":\"" + o.alias + "\",\"key\":\"" +
         o.key + "\",\"takes\":\"" + kTakes[static_cast<int>(o.takes)] + "\",\"needs\":\"" + o.needs +
         "\",\"choices\":[" + choices + "]}";
  }
  return s + "]";
}

bool ParseOffsetUs(const std::string& text, int64_t* us) { return ParseInt(text, us); }

namespace {

// What ParseArgs keeps between options: --start/--end read once --unit is known.
struct ArgsSoFar {
  bool only_given = false;
  std::optional<std::string> start_text, end_text;
};

// One option f (the table's flag) and its value v into *a; needs: what to say when v will not do.
Status TakeOption(std::string_view f, const std::string& v, const Status& needs, Args* a, ArgsSoFar* p) {
  int64_t n = 0;
  Options& o = a->options;
  if (f == "--help") {
    a->help = true;
  } else if (f == "--version") {
    a->version = true;
  } else if (f == "--options") {
    a->list_options = true;
  } else if (f == "--quiet") {
    a->quiet = true;
  } else if (f == "--output") {
    a->output = v;
  } else if (f == "--output-dir") {
    a->output_dir = v;
  } else if (f == "--start" || f == "--end") {  // read once --unit is known (below)
    (f == "--start" ? p->start_text : p->end_text) = v;
  } else if (f == "--unit") {
    auto unit = ParseUnit(v);
    if (!unit.ok()) return unit.error();
    o.unit = unit.value();
  } else if (f == "--group") {
    auto group = ParseGroup(v);
    if (!group.ok()) return group.error();
    o.group = group.value();
  } else if (f == "--align") {
    auto align = ParseAlign(v);
    if (!align.ok()) return align.error();
    o.align = align.value();
  } else if (f == "--only") {
    auto kind = KindFromFilterName(v);
    if (!kind) return Usage("unknown kind for --only: '" + v + "'");
    if (!p->only_given) o.kinds = 0;
    p->only_given = true;
    o.kinds |= KindBit(*kind);
  } else if (f == "--offset") {
    const size_t eq = v.rfind('=');
    if (eq == std::string::npos || eq == 0 || !ParseOffsetUs(v.substr(eq + 1), &n)) return needs;
    o.offsets_us.push_back({v.substr(0, eq), n});
  } else if (f == "--gzip") {
    o.gzip = true;
  } else if (f == "--array") {
    o.event_array = true;
  } else if (f == "--name-tag") {
    if (v.empty() || v.find_first_of("/\\") != std::string::npos) return needs;
    o.name_tag = v;
  } else if (f == "--report") {
    a->report_path = v;
  } else if (f == "--max-file-mb") {
    if (!ParseInt(v, &n) || n <= 0 || n > (int64_t{1} << 30)) return needs;
    o.max_inflated_bytes = static_cast<uint64_t>(n) << 20;
    a->max_file_given = true;
  } else if (f == "--memory-mb") {
    if (!ParseInt(v, &n) || n < 0 || n > (int64_t{1} << 30)) return needs;
    o.memory_budget = static_cast<uint64_t>(n) << 20;
  } else if (f == "--threads") {
    if (!ParseInt(v, &n) || n < 1 || n > 1024) return needs;
    o.threads = static_cast<unsigned>(n);
    a->threads_given = true;
  } else if (f == "--scan") {
    o.scan_only = true;
  } else if (f == "--summarize") {
    a->summarize_path = v;
  } else if (f == "--name") {
    a->name = v;
  } else if (f == "--in-folder") {
    a->in_folder = true;
  } else if (f == "--list") {
    a->list_inputs = true;
  } else if (f == "--max-string-mb") {
    if (!ParseInt(v, &n) || n <= 0 || n > (int64_t{1} << 30)) return needs;
    o.max_string_bytes = static_cast<uint64_t>(n) << 20;
  }
  return {};
}

// A bound: a step number with --unit step, else whole Unix µs or a UTC date-time.
Status TakeBounds(const ArgsSoFar& p, Options* o) {
  for (auto [text, bound, flag] : {std::tuple{&p.start_text, &o->start, "--start"},
                                   std::tuple{&p.end_text, &o->end, "--end"}}) {
    if (!*text) continue;
    int64_t n = 0;
    if (o->unit == Unit::kStep) {
      if (!ParseInt(**text, &n)) return Usage(std::string(flag) + " needs a step number with --unit step, not '" + **text + "'");
      *bound = n;
    } else if (auto us = ParseTimeText(**text)) {
      *bound = *us;
    } else {
      return Usage(std::string(flag) + " needs whole Unix µs or a UTC date-time such as 2020-07-13 17:50:18.5, not '" +
                   **text + "'");
    }
  }
  if (o->start && o->end && *o->start > *o->end) return Usage("--start is after --end");
  return {};
}

}  // namespace

Status ParseArgs(const std::vector<std::string>& argv, Args* a) {
  *a = Args{};
  a->options.threads = 0;  // (not given: the CLI's default, the machine's cores)
  ArgsSoFar p;
  for (size_t i = !argv.empty() && argv[0] == "merge" ? 1 : 0; i < argv.size(); i++) {
    const std::string& k = argv[i];
    const OptionSpec* spec = FindOption(k);
    if (!spec && k.size() > 1 && k[0] == '-') return Usage("unknown option '" + k + "'");
    if (!spec) {
      a->paths.push_back(k);
      continue;
    }
    const Status needs = Usage(k + " needs " + spec->needs);
    std::string v;
    if (spec->takes != Takes::kNothing) {
      if (i + 1 >= argv.size()) return needs;
      v = argv[++i];
    }
    if (Status taken = TakeOption(spec->flag, v, needs, a, &p); !taken.ok()) return taken;
  }
  if (Status bounds = TakeBounds(p, &a->options); !bounds.ok()) return bounds;
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
