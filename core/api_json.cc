#include "api_json.h"

#include "stages.h"

namespace tracemerge {
namespace {

std::string Str(std::string_view s) { return "\"" + JsonEscape(s) + "\""; }
const char* Bool(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string ArgsJson(const Args& a, const Status& status) {
  std::string paths;
  for (const std::string& p : a.paths) paths += (paths.empty() ? "" : ",") + Str(p);
  return std::string("{\"error\":") + (status.ok() ? "null" : Str(status.message)) +
         ",\"help\":" + Bool(a.help) + ",\"version\":" + Bool(a.version) + ",\"quiet\":" + Bool(a.quiet) +
         ",\"output\":" + Str(a.output) + ",\"report\":" + Str(a.report_path) + ",\"gzip\":" +
         Bool(a.options.gzip) + ",\"scan\":" + Bool(a.options.scan_only) +
         ",\"memoryBudgetGiven\":" + Bool(a.options.memory_budget != UINT64_MAX) + ",\"paths\":[" + paths + "],\"usage\":" + Str(kUsage) +
         ",\"version_text\":" + Str(std::string("tracemerge ") + kVersion) + "}";
}

std::string ResultJson(const Report& r, bool gzip) {
  std::string fatal = "null";
  if (r.fatal)
    fatal = "{\"code\":" + Str(CodeName(r.fatal->code)) + ",\"message\":" + Str(r.fatal->message) +
            ",\"file\":" + Str(r.fatal->file) + ",\"offset\":" + std::to_string(r.fatal->offset) + "}";
  return "{\"fatal\":" + fatal + ",\"summary\":" + Str(r.Summary()) + ",\"outputName\":" +
         Str(DefaultOutputName(r, gzip)) + ",\"eventsWritten\":" + std::to_string(r.events_written) +
         ",\"bytesWritten\":" + std::to_string(r.bytes_written) + ",\"report\":" + r.ToJson() + "}";
}

std::string ClassifyJson(std::string_view path, std::string_view raw_head) {
  Classification c = ClassifyRaw(path, raw_head);
  return "{\"kind\":" + Str(KindName(c.kind)) + ",\"node\":" + Str(c.node) + ",\"reason\":" + Str(c.reason) +
         ",\"quiet\":" + Bool(c.quiet) + "}";
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
  const CliStart s = StartCli(argv);
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
