// The native CLI's run — folders walked, files read into the core in 1 MB
// chunks, the output written atomically, the summary — for the CLI (main.cc)
// and the C ABI (core/capi: the Python package): one path, the same bytes.
//   RunCli({"job/", "-o", "m.json"}, io) → {exit 0, result: ResultJson (report, summary, output name), output "m.json"}
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "merger.h"

namespace tracemerge {

struct RunIo {
  std::function<void(std::string_view)> out, err;  // what the CLI prints on stdout and stderr
  bool terminal = false;                            // stderr is a terminal: a progress line on it
  // Progress as the core reports it (stage "parse", "plan", "write"), beside the line; false cancels.
  std::function<bool(const Progress&)> progress;
  // Told the size over which an input is big (Options.big_input_bytes: one at a time), before
  // the first is read: main.cc has the C library give such buffers back to the system when freed.
  std::function<void(uint64_t)> big_input;
};
struct RunResult {
  int exit = 0;              // 0 merged (warnings allowed), 1 nothing merged or a fatal error, 2 usage
  std::string result_json;   // the merge's ResultJson (api_json.h), "" when none ran
  std::string output;        // the file written ("" on stdout, a scan, or a failure)
};
RunResult RunCli(const std::vector<std::string>& argv, const RunIo& io);

}  // namespace tracemerge
