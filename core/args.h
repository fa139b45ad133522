// The command line, parsed once for both CLIs (native and `node tracemerge-cli.mjs`),
// so their flags cannot drift apart. No I/O here.
//
//   ParseArgs({"merge","job/","--unit","step","--start","2","--end","4","-o","m.json"}, &a)
//   → a.paths = {"job/"}, a.options.unit = kStep, a.options.start = 2, a.output = "m.json"
#pragma once

#include <string>
#include <vector>

#include "merger.h"

namespace tracemerge {

extern const char kUsage[];

struct Args {
  Options options;
  std::string output;       // "" = default name, "-" = stdout
  std::string output_dir;   // --output-dir: where the default name goes ("" = the first folder given, else here)
  std::string report_path;  // --report
  bool quiet = false, help = false, version = false;
  bool threads_given = false;  // --threads (else options.threads is 0: the CLI's default, the cores)
  bool max_file_given = false; // --max-file-mb (else each build's default: wasm's is lower)
  std::vector<std::string> paths;
};

// kUsage on errors is the caller's to print; the Status says what was wrong.
Status ParseArgs(const std::vector<std::string>& args, Args* out);
// The US of --offset PATH=US: whole µs, signed ("-1500"); false if the text is not one.
bool ParseOffsetUs(const std::string& text, int64_t* us);

// "<end_us>[_<name_tag>]_merged_timeline.json[.gz]" — the reference's default name.
std::string DefaultOutputName(const Report& report, const Options& options);

}  // namespace tracemerge
