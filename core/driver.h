// The command-line run's rules, for both CLIs (core/cli/main.cc and
// wasm/tracemerge-cli.mjs through the bindings): what to print and the exit
// status, how a folder's files are named and ordered, where the output goes.
// The hosts keep only their I/O (walking folders, reading, writing, renaming).
//
//   StartCli({"job/", "-o", "m.json"}) → exit -1 (go on), args.paths {"job/"}
//   StartCli({"--nope"})               → exit 2, err "tracemerge: unknown option '--nope'\n\n" + usage
//   NameFolderFiles("/data/job", {"b.json", "a/x.json"}) → {"job/a/x.json", "job/b.json"} (byte order)
//   PlanOutputFile(args -o out/m.json, …) → dir "out", tmp "out/.tracemerge-<pid>.tmp"
//   exit status: 0 merged (warnings allowed), 1 nothing merged or a fatal error, 2 usage
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"

namespace tracemerge {

// The start of a run: the parsed flags, or the end of it (help, version, a
// usage error, no input) with what to print.
struct CliStart {
  Args args;
  int exit = -1;         // ≥ 0: print out and err, exit with this
  std::string out, err;  // for stdout and stderr
};
CliStart StartCli(const std::vector<std::string>& argv);

// "tracemerge: " + message + "\n": how the CLIs say what went wrong.
std::string CliError(std::string_view message);
// The same file given again (a folder and a file in it, a link beside its target: one device
// and inode), read once: "tracemerge: note: <again> is <first> again (one file given twice):
// read once\n".
std::string CliSameFile(std::string_view again, std::string_view first);

// The merge's names for a folder's files, "<folder name>/<relative path>"
// ('/'-separated), in the core's order (FileOrder) — as the page names a dropped folder's.
// root: the folder as given (its name is that of its canonical path).
struct FolderFile {
  std::string relative;  // as found under the folder ('/'-separated)
  std::string name;      // what the merge calls it
};
std::vector<FolderFile> NameFolderFiles(std::string_view root, std::vector<std::string> relative);
// A file given by itself keeps its path, without leading "./".
std::string NameFile(std::string_view arg);

// Where the output goes: written to a temporary file next to the target and
// renamed once complete (the name may carry the window's end, known only
// then), except on stdout ("-") and on a device or a pipe (written in place:
// renaming over one would replace it with a regular file).
enum class TargetKind { kMissing, kRegular, kDirectory, kOther };
struct OutputFilePlan {
  bool to_stdout = false, in_place = false;
  std::string dir;  // where the output (and the temporary file) goes
  std::string tmp;  // written there first ("" on stdout; the target when in place)
};
// target: what args.output is now (kMissing when not given); first_is_dir:
// whether the first path given is a folder (the default output goes there).
// serial: this run's number in the process (two merges of one process — two Python threads —
// never share a temporary file): ".tracemerge-<pid>-<serial>.tmp"; 0 leaves it out.
OutputFilePlan PlanOutputFile(const Args& args, bool first_is_dir, TargetKind target, long pid, uint64_t serial = 0);
// The final name: -o, or <dir>/<default name> (the report's: ResultJson's outputName).
std::string FinalOutputName(const Args& args, const OutputFilePlan& plan, const std::string& default_name);

// The end of a run: what to print and the exit status.
struct CliEnd {
  int exit = 0;
  std::string out, err;
};
// summary: Report::Summary(). A scan prints it on stdout; a merge on stderr
// (unless --quiet, when it worked), with "wrote NAME" when not on stdout.
CliEnd FinishCli(const Args& args, bool fatal, const std::string& summary, bool write_failed,
                 const OutputFilePlan& plan, const std::string& final_name);

}  // namespace tracemerge
