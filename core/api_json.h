// What the JS glue (wasm/bindings.cc) gets from the core, as JSON: the parsed
// command line, the CLI driver's answers, a merge's outcome, a file's kind.
//
//   ArgsJson → {"error":null,"help":false,…,"output":"m.json","paths":["job/"],"gzip":false}
//   ResultJson → {"fatal":null|{code,message,file,offset},"summary":"…","outputName":"…","report":{…}}
//   ClassifyJson("a/x.pb", bytes) → {"kind":"skipped","node":"","reason":"protobuf file, not a trace","quiet":true}
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "driver.h"

namespace tracemerge {

std::string ArgsJson(const Args& args, const Status& status);
std::string ResultJson(const Report& report, const Options& options);
std::string ClassifyJson(std::string_view path, std::string_view raw_head);

// The page's window preview, by the merge's own rules: the window flags as
// the page would pass them (--unit, --start, --end: µs, a UTC date-time or
// steps) and the steps a scan found (step, first ts in µs, as text) →
//   {"error":null|"--start needs …","fatal":null|{code,message},"bounded":true,
//    "start_us":…,"end_us":…,"start_step":2,"end_step":4}
std::string WindowPreviewJson(const std::vector<std::string>& argv, const std::vector<std::string>& steps);
// Every code, how grave it is and what its offset means (status.h):
//   [{"code":"TRUNCATED","severity":"warning","offset":"byte"},…,{"code":"NOTE","severity":"note","offset":"byte_when_set"},…]
std::string CodeTableJson();
// The kinds the suffix filter knows: [{"key":"pythontimeline","only":"pythontimeline.json","label":"pythontimeline"},…]
std::string KindTableJson();

// The CLI driver (driver.h) for wasm/tracemerge-cli.mjs:
//   CliStartJson(argv) → {"exit":-1|0|2,"out":"…","err":"…","args":ArgsJson}
std::string CliStartJson(const std::vector<std::string>& argv);
//   NameFolderJson(root, ["b","a/x"]) → [{"relative":"a/x","name":"job/a/x"},…]
std::string NameFolderJson(std::string_view root, std::vector<std::string> relative);
//   PlanOutputJson(argv, …) → {"toStdout":false,"inPlace":false,"dir":"out","tmp":"out/.tracemerge-7.tmp"}
std::string PlanOutputJson(const std::vector<std::string>& argv, bool first_is_dir, TargetKind target, long pid);
//   FinalNameJs(argv, …, "1594_merged_timeline.json") → "job/1594_merged_timeline.json"
std::string FinalNameJs(const std::vector<std::string>& argv, bool first_is_dir, TargetKind target, long pid,
                        const std::string& default_name);
//   FinishJson(argv, …) → {"exit":0,"out":"","err":"…wrote m.json\n"}
std::string FinishJson(const std::vector<std::string>& argv, bool fatal, const std::string& summary,
                       bool write_failed, bool first_is_dir, TargetKind target, long pid,
                       const std::string& final_name);

}  // namespace tracemerge
