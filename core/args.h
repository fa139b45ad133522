// The command line, parsed once for both CLIs (native and `node tracemerge-cli.mjs`),
// so their flags cannot drift apart. No I/O here.
//
//   ParseArgs({"merge","job/","--unit","step","--start","2","--end","4","-o","m.json"}, &a)
//   → a.paths = {"job/"}, a.options.unit = kStep, a.options.start = 2, a.output = "m.json"
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "merger.h"

namespace tracemerge {

extern const char kUsage[];

// What each option is called and takes: the one list the CLIs parse by and every API that
// builds their flags reads (Python's keywords, the JS options, the notebook's, through
// OptionTableJson / `tracemerge --options`), so no API restates a flag.
enum class Takes {
  kNothing,  // a switch: --gzip (the APIs: true)
  kValue,    // --unit step
  kEach,     // a value each time it is given: --only KIND … (the APIs: a list)
  kPathUs,   // PATH=US each time it is given: --offset (the APIs: a map PATH → µs)
};
struct OptionSpec {
  const char* flag;     // "--max-file-mb"
  const char* alias;    // "-o", or ""
  const char* key;      // the APIs' name: "max_file_mb" (JS: maxFileMb); "" for the CLI's own (--help, -o …)
  Takes takes;
  const char* needs;    // what "--X needs …" says is missing
  const char* choices;  // the values it takes ("time|step"), or "" for any
};
// The spec of `flag` (or its alias), or nullptr.
const OptionSpec* FindOption(std::string_view flag);
//   OptionTableJson() → [{"flag":"--output","alias":"-o","key":"","takes":"value","needs":"a file name","choices":[]},…]
std::string OptionTableJson();

struct Args {
  Options options;
  std::string output;       // "" = default name, "-" = stdout
  std::string output_dir;   // --output-dir: where the default name goes ("" = the first folder given, else here)
  std::string report_path;  // --report
  bool quiet = false, help = false, version = false, list_options = false;  // (list_options: --options)
  bool threads_given = false;  // --threads (else options.threads is 0: the CLI's default, the cores)
  bool max_file_given = false; // --max-file-mb (else each build's default: wasm's is lower)
  std::vector<std::string> paths;
  // A scan's map on a cluster (summary.h): the input's summary to this file, under this
  // name (default: its own) and found in a folder or not; --list: the inputs only.
  std::string summarize_path, name;
  bool in_folder = false, list_inputs = false;
};

// kUsage on errors is the caller's to print; the Status says what was wrong.
Status ParseArgs(const std::vector<std::string>& args, Args* out);
// The US of --offset PATH=US: whole µs, signed ("-1500"); false if the text is not one.
bool ParseOffsetUs(const std::string& text, int64_t* us);

// "<end_us>[_<name_tag>]_merged_timeline.json[.gz]" — the reference's default name.
std::string DefaultOutputName(const Report& report, const Options& options);

}  // namespace tracemerge
