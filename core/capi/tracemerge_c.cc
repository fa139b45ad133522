// The C ABI (tracemerge_c.h): RunCli (core/cli/run.h) behind three functions.
#include "tracemerge_c.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "merger.h"
#include "run.h"
#include "stages.h"

using namespace tracemerge;

extern "C" char* tm_run(int argc, const char* const* argv, tm_progress_fn progress, void* user) {
  std::vector<std::string> args;
  for (int i = 0; i < argc; i++) args.emplace_back(argv[i] ? argv[i] : "");
  std::string out, err;
  RunIo io;
  io.out = [&](std::string_view s) { out.append(s); };
  io.err = [&](std::string_view s) { err.append(s); };
  if (progress)
    io.progress = [&](const Progress& p) {
      return progress(user, p.stage, static_cast<double>(p.done), static_cast<double>(p.total)) != 0;
    };
  const RunResult r = RunCli(args, io);
  const std::string json = "{\"exit\":" + std::to_string(r.exit) + ",\"out\":\"" + JsonEscape(out) + "\",\"err\":\"" +
                           JsonEscape(err) + "\",\"output\":\"" + JsonEscape(r.output) + "\",\"result\":" +
                           (r.result_json.empty() ? std::string("null") : r.result_json) + "}";
  char* text = static_cast<char*>(std::malloc(json.size() + 1));
  if (text) std::memcpy(text, json.c_str(), json.size() + 1);
  return text;
}

extern "C" void tm_free(char* text) { std::free(text); }

extern "C" const char* tm_version(void) { return kVersion; }
