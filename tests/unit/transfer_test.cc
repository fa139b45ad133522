// Sources parsed by another Merger and handed over as bytes (ExportSource →
// ImportSource: the wasm build's second Worker) merge exactly as if this
// merger had read them: the same output bytes and report, whatever order the
// imports come in, in memory or into a store; bytes that are not an export
// are refused and change nothing.
#include <gtest/gtest.h>

#include <functional>

#include "store.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

// Parses one input alone, as the second instance does, and exports it.
std::string Exported(const Input& in, const Options& options) {
  Merger helper(options);
  helper.BeginSource(in.name, 0, in.in_folder);
  helper.AppendChunk(in.bytes);
  helper.EndSource();
  const std::string bytes(helper.ExportSource().view());
  EXPECT_TRUE(helper.ExportSource().empty()) << "exported twice: " << in.name;
  // The source has left the helper: what it would merge now lacks it.
  MergeResult rest;
  rest.report = helper.Merge([&](std::string_view c) { rest.output.append(c); });
  EXPECT_EQ(rest.report.events_written, 0u) << in.name;
  return bytes;
}

// The inputs `helped` picks are parsed by a helper; their bytes arrive after
// all the others (last first), each at the place its input had.
MergeResult MergeWithHelper(const std::vector<Input>& inputs, const Options& options,
                            const std::function<bool(size_t)>& helped) {
  Options helper_options = options;
  helper_options.store = nullptr;
  Merger m(options);
  std::vector<std::pair<uint32_t, std::string>> late;
  for (size_t i = 0; i < inputs.size(); i++) {
    if (helped(i)) {
      late.push_back({m.ReserveArrival(), Exported(inputs[i], helper_options)});
      EXPECT_FALSE(late.back().second.empty()) << inputs[i].name;
    } else {
      m.BeginSource(inputs[i].name, 0, inputs[i].in_folder);
      m.AppendChunk(inputs[i].bytes);
      m.EndSource();
    }
  }
  m.DoneReading();  // as the wasm merger's settle(): the last imports come after it
  for (auto it = late.rbegin(); it != late.rend(); ++it) EXPECT_TRUE(m.ImportSource(it->second, it->first));
  MergeResult r;
  r.report = m.Merge([&](std::string_view c) { r.output.append(c); });
  return r;
}

TEST(Transfer, ImportedSourcesMergeAsIfReadHere) {
  for (const char* dir : {"real", "smdebug"}) {
    auto inputs = ReadTree(Corpus(dir));
    ASSERT_GT(inputs.size(), 4u) << dir;
    for (bool stored : {false, true}) {
      auto options = [&] {  // (each merge a store of its own: the store names sources by number)
        Options o;
        if (stored) o.store = std::make_shared<FileStore>();
        if (stored) o.memory_budget = 0;
        return o;
      };
      MergeResult direct = MergeInputs(inputs, options());
      ASSERT_FALSE(direct.report.fatal) << dir;
      for (int pick = 0; pick < 3; pick++) {  // odd ones, even ones, all
        MergeResult helped = MergeWithHelper(inputs, options(), [&](size_t i) { return pick == 2 || i % 2 == pick; });
        EXPECT_TRUE(SameText(helped.output, direct.output)) << dir << (stored ? " stored " : " ") << pick;
        EXPECT_EQ(helped.report.ToJson(), direct.report.ToJson()) << dir << pick;
        EXPECT_EQ(helped.report.Summary(), direct.report.Summary()) << dir << pick;
      }
    }
  }
}

TEST(Transfer, SamePathKeepsItsPlaceInArrivalOrder) {
  // Two sources of one name tie in time: the one given first comes first,
  // though its bytes are imported after the second was read.
  const std::vector<Input> inputs = {
      {"job/a.json", R"([{"ph":"X","name":"first","ts":5,"dur":1,"pid":1,"tid":1}])"},
      {"job/a.json", R"([{"ph":"X","name":"second","ts":5,"dur":1,"pid":1,"tid":1}])"},
  };
  Merger m({});
  const uint32_t first = m.ReserveArrival();
  m.AddSource(inputs[1].name, inputs[1].bytes);
  ASSERT_TRUE(m.ImportSource(Exported(inputs[0], {}), first));
  MergeResult r;
  r.report = m.Merge([&](std::string_view c) { r.output.append(c); });
  EXPECT_TRUE(SameText(r.output, MergeInputs(inputs, {}).output));
  EXPECT_LT(r.output.find("\"first\""), r.output.find("\"second\""));
}

TEST(Transfer, AnImportWhileASourceIsStreamingInLeavesItWhole) {
  // JS imports a helper's source whenever its message comes — maybe between
  // two chunks of a source this merger is reading.
  const std::vector<Input> inputs = ReadTree(Corpus("smdebug/constructed/combined_job"));
  ASSERT_GT(inputs.size(), 3u);
  Merger m({});
  for (size_t i = 0; i < inputs.size(); i++) {
    if (i % 3 == 1) continue;  // these come from the helper, in the middle of the next one
    m.BeginSource(inputs[i].name);
    const std::string_view bytes = inputs[i].bytes;
    m.AppendChunk(bytes.substr(0, bytes.size() / 2));
    if (i % 3 == 2) ASSERT_TRUE(m.ImportSource(Exported(inputs[i - 1], {}), m.ReserveArrival()));
    m.AppendChunk(bytes.substr(bytes.size() / 2));
    m.EndSource();
  }
  MergeResult r;
  r.report = m.Merge([&](std::string_view c) { r.output.append(c); });
  // (Arrival order differs only among sources of one path: none here.)
  EXPECT_TRUE(SameText(r.output, MergeInputs(inputs, {}).output));
}

TEST(Transfer, BytesThatAreNotAnExportAreRefused) {
  const Input good{"job/a.json", R"([{"ph":"X","name":"a","ts":5,"dur":1,"pid":1,"tid":1},)"
                                 R"({"ph":"X","name":"b","ts":7,"dur":1,"pid":1,"tid":2}])"};
  const std::string bytes = Exported(good, {});
  ASSERT_FALSE(bytes.empty());
  const std::string alone = MergeInputs({{"job/z.json", R"([{"ph":"i","name":"z","ts":6,"pid":1}])"}}, {}).output;
  std::vector<std::string> bad = {"", "tmsrc1", bytes + "x", "xmsrc1" + bytes.substr(6)};
  for (size_t cut = 0; cut < bytes.size(); cut += 7) bad.push_back(bytes.substr(0, cut));
  for (size_t at = 6; at < bytes.size(); at += 5) {  // lengths and indices made too large
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(0x7f);
    bad.push_back(flipped);
  }
  int refused = 0;
  for (const std::string& b : bad) {
    Merger m({});
    m.AddSource("job/z.json", R"([{"ph":"i","name":"z","ts":6,"pid":1}])");
    if (m.ImportSource(b, m.ReserveArrival())) continue;  // (a flip inside a name or a template may still be one)
    refused++;
    MergeResult r;
    r.report = m.Merge([&](std::string_view c) { r.output.append(c); });
    EXPECT_TRUE(SameText(r.output, alone));
  }
  EXPECT_GT(refused, static_cast<int>(bad.size()) / 2);
  Options background;  // a merger parsing on more threads cannot export
  background.threads = 2;
  Merger m(background);
  m.AddSource(good.name, good.bytes);
  EXPECT_TRUE(m.ExportSource().view().empty());
}

}  // namespace
}  // namespace tracemerge::test
