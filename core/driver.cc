#include "driver.h"

#include <algorithm>

#include "merger.h"

namespace tracemerge {

std::string CliError(std::string_view message) { return "tracemerge: " + std::string(message) + "\n"; }

std::string CliSameFile(std::string_view again, std::string_view first) {
  return CliError("note: " + std::string(again) + " is " + std::string(first) + " again (one file given twice): read once");
}

CliStart StartCli(const std::vector<std::string>& argv) {
  CliStart s;
  if (Status st = ParseArgs(argv, &s.args); !st.ok()) {
    s.exit = 2;
    s.err = CliError(st.error().message) + "\n" + kUsage;
  } else if (s.args.help) {
    s.exit = 0;
    s.out = kUsage;
  } else if (s.args.version) {
    s.exit = 0;
    s.out = std::string("tracemerge ") + kVersion + "\n";
  } else if (s.args.list_options) {
    s.exit = 0;
    s.out = OptionTableJson() + "\n";
  } else if (s.args.paths.empty()) {
    s.exit = 2;
    s.err = CliError("no input: give files or folders") + "\n" + kUsage;
  }
  return s;
}

std::vector<FolderFile> NameFolderFiles(std::string_view root, std::vector<std::string> relative) {
  std::string_view label = root;
  while (label.size() > 1 && label.back() == '/') label.remove_suffix(1);
  const size_t slash = label.find_last_of('/');
  if (slash != std::string_view::npos && slash + 1 < label.size()) label.remove_prefix(slash + 1);
  std::vector<FolderFile> files;
  files.reserve(relative.size());
  for (std::string& r : relative) {
    std::string name = std::string(label) + "/" + r;
    files.push_back({std::move(r), std::move(name)});
  }
  std::vector<std::string> names;
  names.reserve(files.size());
  for (const FolderFile& f : files) names.push_back(f.name);
  std::vector<FolderFile> ordered;
  ordered.reserve(files.size());
  for (uint32_t i : FileOrder(names)) ordered.push_back(std::move(files[i]));
  return ordered;
}

std::string NameFile(std::string_view arg) {
  while (arg.substr(0, 2) == "./") arg.remove_prefix(2);
  return std::string(arg);
}

OutputFilePlan PlanOutputFile(const Args& args, bool first_is_dir, TargetKind target, long pid, uint64_t serial) {
  OutputFilePlan p;
  const std::string& out = args.output;
  p.to_stdout = out == "-";
  p.dir = ".";
  if (!out.empty() && !p.to_stdout) {
    const size_t slash = out.find_last_of('/');
    if (slash != std::string::npos) p.dir = slash == 0 ? "/" : out.substr(0, slash);
  } else if (out.empty() && !args.output_dir.empty()) {
    p.dir = args.output_dir;
  } else if (out.empty() && first_is_dir && !args.paths.empty()) {
    p.dir = args.paths[0];
  }
  p.in_place = !out.empty() && !p.to_stdout && target == TargetKind::kOther;
  if (p.in_place) p.tmp = out;
  else if (!p.to_stdout)
    p.tmp = (p.dir == "/" ? std::string() : p.dir) + "/.tracemerge-" + std::to_string(pid) +
            (serial ? "-" + std::to_string(serial) : std::string()) + ".tmp";
  return p;
}

std::string FinalOutputName(const Args& args, const OutputFilePlan& plan, const std::string& default_name) {
  if (!args.output.empty()) return args.output;
  return (plan.dir == "/" ? std::string() : plan.dir) + "/" + default_name;
}

CliEnd FinishCli(const Args& args, bool fatal, const std::string& summary, bool write_failed,
                 const OutputFilePlan& plan, const std::string& final_name) {
  CliEnd e;
  if (args.options.scan_only) {  // a description, not a merge: on stdout
    e.out = summary;
    e.exit = fatal ? 1 : 0;
    return e;
  }
  if (fatal || write_failed) {
    e.exit = 1;
    e.err = summary;
    if (write_failed) e.err += CliError("writing the output failed");
    return e;
  }
  if (!args.quiet) {
    e.err = summary;
    if (!plan.to_stdout) e.err += "wrote " + final_name + "\n";
  }
  return e;
}

}  // namespace tracemerge
