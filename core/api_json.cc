#include "api_json.h"

#include "numbers.h"
#include "stages.h"

namespace tracemerge {
namespace {

std::string Str(std::string_view s) { return "\"" + JsonEscape(s) + "\""; }
const char* Bool(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string ArgsJson(const Args& a, const Status& status) {
  std::string paths;
  for (const std::string& p : a.paths) paths += (paths.empty() ? "" : ",") + Str(p);
  return std::string("{\"error\":") + (status.ok() ? "null" : Str(status.error().message)) +
         ",\"help\":" + Bool(a.help) + ",\"version\":" + Bool(a.version) + ",\"quiet\":" + Bool(a.quiet) +
         ",\"output\":" + Str(a.output) + ",\"report\":" + Str(a.report_path) + ",\"gzip\":" +
         Bool(a.options.gzip) + ",\"scan\":" + Bool(a.options.scan_only) +
         ",\"memoryBudgetGiven\":" + Bool(a.options.memory_budget != UINT64_MAX) +
         ",\"threads\":" + std::to_string(a.options.threads) + ",\"paths\":[" + paths + "],\"usage\":" + Str(kUsage) +
         ",\"version_text\":" + Str(std::string("tracemerge ") + kVersion) + "}";
}

std::string ResultJson(const Report& r, const Options& options) {
  std::string fatal = "null";
  if (r.fatal)
    fatal = "{\"code\":" + Str(CodeName(r.fatal->code)) + ",\"severity\":" + Str(SeverityName(SeverityOf(r.fatal->code))) +
            ",\"message\":" + Str(r.fatal->message) +
            ",\"file\":" + Str(r.fatal->file) + ",\"offset\":" + std::to_string(r.fatal->offset) +
            ",\"at_byte\":" + Bool(r.fatal->AtByte()) + "}";
  return "{\"fatal\":" + fatal + ",\"summary\":" + Str(r.Summary()) + ",\"outputName\":" +
         Str(DefaultOutputName(r, options)) + ",\"eventsWritten\":" + std::to_string(r.events_written) +
         ",\"clockCheckSeconds\":" + std::to_string(r.clock_check_seconds) +
         ",\"bytesWritten\":" + std::to_string(r.bytes_written) + ",\"report\":" + r.ToJson() + "}";
}

std::string ClassifyJson(std::string_view path, std::string_view raw_head) {
  Classification c = ClassifyRaw(path, raw_head);
  return "{\"kind\":" + Str(KindName(c.kind)) + ",\"node\":" + Str(c.node) + ",\"reason\":" + Str(c.reason) +
         ",\"quiet\":" + Bool(c.quiet) + "}";
}

std::string WindowPreviewJson(const std::vector<std::string>& argv, const std::vector<std::string>& steps) {
  Args args;
  const Status st = ParseArgs(argv, &args);
  if (!st.ok()) return "{\"error\":" + Str(st.error().message) + ",\"fatal\":null}";
  JobShape shape;
  shape.steps_from = "the scan";
  for (size_t k = 0; k + 1 < steps.size(); k += 2) {
    auto step = ParseScaled(steps[k], 1);
    auto ts = ParseMicros(steps[k + 1]);
    if (step && ts) shape.steps.push_back({*step, *ts});
  }
  const Result<Window> resolved = ResolveWindow(args.options, shape);
  if (const Diagnostic& fatal = resolved.error(); !resolved.ok())
    return "{\"error\":null,\"fatal\":{\"code\":" + Str(CodeName(fatal.code)) + ",\"message\":" + Str(fatal.message) +
           "}}";
  const Window& w = resolved.value();
  std::string s = "{\"error\":null,\"fatal\":null,\"bounded\":" + std::string(Bool(w.bounded));
  if (w.start_ns != INT64_MIN) s += ",\"start_us\":" + FormatMicros(w.start_ns);
  if (w.end_ns != INT64_MAX) s += ",\"end_us\":" + FormatMicros(w.end_ns);
  if (w.start_step) s += ",\"start_step\":" + std::to_string(*w.start_step);
  if (w.end_step) s += ",\"end_step\":" + std::to_string(*w.end_step);
  if (w.start_ns != INT64_MIN && w.end_ns != INT64_MAX && w.end_ns < w.start_ns) s += ",\"empty\":true";
  return s + "}";
}

std::string CodeTableJson() {
  std::string s = "[";
  for (int c = 0; c <= static_cast<int>(Code::kLast); c++) {
    const Code code = static_cast<Code>(c);
    const OffsetIs o = OffsetOf(code);
    s += std::string(c ? "," : "") + "{\"code\":" + Str(CodeName(code)) + ",\"severity\":" +
         Str(SeverityName(SeverityOf(code))) + ",\"offset\":" +
         Str(o == OffsetIs::kByte ? "byte" : o == OffsetIs::kByteWhenSet ? "byte_when_set" : "nothing") + "}";
  }
  return s + "]";
}

std::string KindTableJson() {
  std::string s = "[";
  for (const KindRow& r : kKindRows)
    s += (s.size() > 1 ? ",{\"key\":" : "{\"key\":") + Str(r.name) + ",\"only\":" + Str(r.only) +
         ",\"label\":" + Str(r.label) + "}";
  return s + "]";
}

namespace {

std::string CliJson(int exit, const std::string& out, const std::string& err) {
  return "{\"exit\":" + std::to_string(exit) + ",\"out\":" + Str(out) + ",\"err\":" + Str(err);
}

std::string PlanFields(const OutputFilePlan& p) {
  return std::string("\"toStdout\":") + Bool(p.to_stdout) + ",\"inPlace\":" + Bool(p.in_place) +
         ",\"dir\":" + Str(p.dir) + ",\"tmp\":" + Str(p.tmp);
}

}  // namespace

std::string CliStartJson(const std::vector<std::string>& argv) {
  CliStart s = StartCli(argv);
  if (s.exit < 0 && (!s.args.summarize_path.empty() || s.args.list_inputs)) {  // (a cluster's worker is native)
    s.exit = 2;
    s.err = CliError("--summarize and --list are the native CLI's (tracemerge, and the Python package's cluster scan)") + "\n";
  }
  return CliJson(s.exit, s.out, s.err) + ",\"args\":" + ArgsJson(s.args, Status()) + "}";
}

std::string NameFolderJson(std::string_view root, std::vector<std::string> relative) {
  std::string s = "[";
  for (const FolderFile& f : NameFolderFiles(root, std::move(relative)))
    s += (s.size() > 1 ? ",{\"relative\":" : "{\"relative\":") + Str(f.relative) + ",\"name\":" + Str(f.name) + "}";
  return s + "]";
}

std::string PlanOutputJson(const std::vector<std::string>& argv, bool first_is_dir, TargetKind target, long pid) {
  Args args;
  ParseArgs(argv, &args);
  return "{" + PlanFields(PlanOutputFile(args, first_is_dir, target, pid)) + "}";
}

std::string FinalNameJs(const std::vector<std::string>& argv, bool first_is_dir, TargetKind target, long pid,
                        const std::string& default_name) {
  Args args;
  ParseArgs(argv, &args);
  return FinalOutputName(args, PlanOutputFile(args, first_is_dir, target, pid), default_name);
}

std::string FinishJson(const std::vector<std::string>& argv, bool fatal, const std::string& summary,
                       bool write_failed, bool first_is_dir, TargetKind target, long pid,
                       const std::string& final_name) {
  Args args;
  ParseArgs(argv, &args);
  const CliEnd e = FinishCli(args, fatal, summary, write_failed, PlanOutputFile(args, first_is_dir, target, pid), final_name);
  return CliJson(e.exit, e.out, e.err) + "}";
}

}  // namespace tracemerge
