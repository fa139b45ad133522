// Helpers shared by the tests: read files, run a merge in memory, parse output.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "merger.h"

namespace tracemerge::test {

std::string Corpus(const std::string& rel);  // path under ../shared/corpus
std::string ReadFile(const std::string& path);
std::string Inflate(const std::string& gz);  // whole-buffer gunzip for test checks
std::string Gzip(const std::string& text);   // with the core's GzipWriter

struct Input {
  std::string name;
  std::string bytes;
  bool in_folder = false;  // found in a folder (Merger::BeginSource): its run is that folder
};
// Every regular file under a folder, named "<folder name>/<relative path>", sorted, in_folder.
std::vector<Input> ReadTree(const std::string& dir);

struct MergeResult {
  std::string output;
  Report report;
};
MergeResult MergeInputs(const std::vector<Input>& inputs, const Options& options, size_t chunk = 0);

// A fixture with a fresh folder of its own per test, removed after it.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  // Writes text to dir_/rel (folders made as needed); returns the path.
  std::string Write(const std::string& rel, const std::string& text);
  std::filesystem::path dir_;
};

// A scratch folder and the project's job generators (tests/bench/gen_ranks.py, gen_xplane.py).
class GeneratorTest : public ScratchDirTest {
 protected:
  // Runs the generator into dir_/name; returns the folder (its truth beside it: <folder>.truth.json).
  std::string Generate(const std::string& name, const std::string& args, const std::string& script = "gen_ranks.py");
};

// Equal strings, or a failure that shows the first difference (not 200 KB of text).
::testing::AssertionResult SameText(const std::string& actual, const std::string& expected);

// A parsed output event (the fields tests look at).
struct OutEvent {
  std::string ph, name;
  double ts = 0, dur = 0;
  std::string ts_text, dur_text;
  int64_t pid = 0, tid = 0;
  bool has_tid = false;
  std::string arg_name;  // args.name for M events
};
// Parses a merged output strictly (simdjson DOM); fails the test on invalid JSON.
std::vector<OutEvent> ParseOutput(const std::string& json, std::string* error);

// The output's events, parsed (a test failure on invalid JSON); those but the metadata; their names.
std::vector<OutEvent> Events(const MergeResult& r);
std::vector<OutEvent> NonMeta(const MergeResult& r);
std::set<std::string> Names(const std::vector<OutEvent>& ev);
// A warning of this code (for this file, if given) among the report's.
bool HasWarning(const Report& r, Code code, const std::string& file = "");
// An smdebug timeline's clock header (events at 1 s since the epoch), ending in a comma.
extern const char kHeader[];

}  // namespace tracemerge::test
