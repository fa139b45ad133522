// The CLI driver (driver.h): what both CLIs print, how they name a folder's
// files and where they write — the rules, without the I/O.
#include "driver.h"

#include "api_json.h"

#include <set>

#include <gtest/gtest.h>
#include <simdjson.h>

namespace tracemerge {
namespace {

TEST(Driver, StartEndsTheRunForHelpVersionUsageAndNoInput) {
  EXPECT_EQ(StartCli({"--help"}).exit, 0);
  EXPECT_EQ(StartCli({"--help"}).out, kUsage);
  EXPECT_EQ(StartCli({"--version"}).out, std::string("tracemerge ") + kVersion + "\n");
  const CliStart bad = StartCli({"--nope"});
  EXPECT_EQ(bad.exit, 2);
  EXPECT_EQ(bad.err, std::string("tracemerge: unknown option '--nope'\n\n") + kUsage);
  EXPECT_EQ(StartCli({}).exit, 2);
  EXPECT_EQ(StartCli({"merge", "--unit", "step"}).err.rfind("tracemerge: no input", 0), 0u);
  const CliStart go = StartCli({"merge", "job/", "-o", "m.json"});
  EXPECT_EQ(go.exit, -1);
  EXPECT_EQ(go.args.paths, (std::vector<std::string>{"job/"}));
}

// The option table (what Python, JS and the notebook build flags from) is what the CLI parses
// and what --help lists: each flag, with a value where it takes one, parses; without one it
// says what it needs; every key an API uses is unique.
TEST(Driver, TheOptionTableIsWhatTheCliParsesAndLists) {
  const std::string table = OptionTableJson();
  EXPECT_EQ(StartCli({"--options"}).out, table + "\n");
  simdjson::dom::parser parser;
  simdjson::dom::array specs;
  ASSERT_EQ(parser.parse(table).get(specs), simdjson::SUCCESS);
  std::set<std::string> keys;
  size_t n = 0;
  auto text = [](simdjson::simdjson_result<simdjson::dom::element> e) {
    std::string_view v;
    EXPECT_EQ(e.get(v), simdjson::SUCCESS);
    return std::string(v);
  };
  for (simdjson::dom::element o : specs) {
    n++;
    const std::string flag = text(o["flag"]), alias = text(o["alias"]), key = text(o["key"]), takes = text(o["takes"]);
    SCOPED_TRACE(flag);
    const std::string usage = kUsage;
    auto listed = [&](const std::string& f) {
      return !f.empty() && (usage.find(" " + f + " ") != std::string::npos || usage.find(" " + f + ",") != std::string::npos ||
                            usage.find(" " + f + "\n") != std::string::npos);
    };
    EXPECT_TRUE(listed(flag) || listed(alias)) << "--help does not list it";
    if (!alias.empty()) EXPECT_EQ(FindOption(alias), FindOption(flag));
    if (!key.empty()) EXPECT_TRUE(keys.insert(key).second) << "key given twice: " << key;
    std::string value = takes == "path=us" ? "x.json=5" : flag == "--only" ? "system" : "1";
    simdjson::dom::array choices;
    ASSERT_EQ(o["choices"].get(choices), simdjson::SUCCESS);
    for (simdjson::dom::element c : choices) value = std::string(c.get_c_str().value_unsafe());  // (the last one)
    Args a;
    std::vector<std::string> argv{flag};
    if (takes != "nothing") argv.push_back(value);
    argv.push_back("job/");
    EXPECT_TRUE(ParseArgs(argv, &a).ok()) << value;
    if (takes != "nothing") {
      const Status missing = ParseArgs({flag}, &a);
      EXPECT_EQ(missing.error().message, flag + " needs " + text(o["needs"]));
    }
  }
  EXPECT_GE(n, 20u);
  EXPECT_EQ(FindOption("--nope"), nullptr);
  EXPECT_EQ(FindOption("job/"), nullptr);
}

TEST(Driver, FolderFilesAreNamedAfterTheFolderInByteOrder) {
  const auto files = NameFolderFiles("/data/job/", {"b.json", "a/x.json", "B.json", "a.json"});
  std::vector<std::string> names;
  for (auto& f : files) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"job/B.json", "job/a.json", "job/a/x.json", "job/b.json"}));
  EXPECT_EQ(files[2].relative, "a/x.json");
  EXPECT_EQ(NameFolderFiles("/", {"x"})[0].name, "//x");
  EXPECT_EQ(NameFile("././r/rank-0.json"), "r/rank-0.json");
}

TEST(Driver, OutputPlanTemporaryFileInPlaceAndFinalName) {
  Args a = StartCli({"job", "-o", "out/m.json"}).args;
  OutputFilePlan p = PlanOutputFile(a, true, TargetKind::kMissing, 42);
  EXPECT_EQ(p.dir, "out");
  EXPECT_EQ(p.tmp, "out/.tracemerge-42.tmp");
  EXPECT_FALSE(p.in_place || p.to_stdout);
  EXPECT_EQ(FinalOutputName(a, p, "1_merged_timeline.json"), "out/m.json");
  a = StartCli({"job"}).args;  // the default: in the first folder, named by the merge
  p = PlanOutputFile(a, true, TargetKind::kMissing, 42);
  EXPECT_EQ(p.dir, "job");
  EXPECT_EQ(FinalOutputName(a, p, "1_merged_timeline.json"), "job/1_merged_timeline.json");
  EXPECT_EQ(PlanOutputFile(StartCli({"x.json"}).args, false, TargetKind::kMissing, 1).dir, ".");
  p = PlanOutputFile(StartCli({"job", "-o", "/dev/null"}).args, true, TargetKind::kOther, 1);
  EXPECT_TRUE(p.in_place);
  EXPECT_EQ(p.tmp, "/dev/null");
  p = PlanOutputFile(StartCli({"job", "-o", "-"}).args, true, TargetKind::kMissing, 1);
  EXPECT_TRUE(p.to_stdout);
  EXPECT_EQ(p.tmp, "");
}

TEST(Driver, FinishPrintsTheSummaryAndSetsTheExitStatus) {
  const Args a = StartCli({"job", "-o", "m.json"}).args;
  const OutputFilePlan p = PlanOutputFile(a, true, TargetKind::kMissing, 1);
  CliEnd e = FinishCli(a, false, "S\n", false, p, "m.json");
  EXPECT_EQ(e.exit, 0);
  EXPECT_EQ(e.err, "S\nwrote m.json\n");
  e = FinishCli(a, true, "S\n", false, p, "");
  EXPECT_EQ(e.exit, 1);
  EXPECT_EQ(e.err, "S\n");
  e = FinishCli(a, false, "S\n", true, p, "");
  EXPECT_EQ(e.err, "S\ntracemerge: writing the output failed\n");
  EXPECT_EQ(FinishCli(StartCli({"job", "--quiet"}).args, false, "S\n", false, p, "x").err, "");
  e = FinishCli(StartCli({"job", "--scan"}).args, false, "S\n", false, p, "");
  EXPECT_EQ(e.out, "S\n");
  EXPECT_EQ(e.err, "");
}

}  // namespace
// The page's window preview: the merge's own parse and step rule.
TEST(Driver, WindowPreviewAsTheMergeWouldResolveIt) {
  const std::vector<std::string> steps = {"2", "1594662617507447", "4", "1594662617676641"};
  EXPECT_EQ(WindowPreviewJson({"--unit", "step", "--start", "2", "--end", "4"}, steps),
            R"({"error":null,"fatal":null,"bounded":true,"start_us":1594662617507447,"end_us":1594662617676640,"start_step":2,"end_step":4})");
  EXPECT_EQ(WindowPreviewJson({"--start", "2020-07-13 17:50:18.5"}, {}),
            R"({"error":null,"fatal":null,"bounded":true,"start_us":1594662618500000})");
  EXPECT_NE(WindowPreviewJson({"--unit", "step", "--start", "9"}, steps).find("UNKNOWN_STEP"), std::string::npos);
  EXPECT_NE(WindowPreviewJson({"--start", "noon"}, {}).find("\"error\":\"--start needs whole Unix µs or a UTC date-time"),
            std::string::npos);
  EXPECT_NE(WindowPreviewJson({"--unit", "step", "--start", "4", "--end", "4"}, steps).find("\"empty\":true"),
            std::string::npos);
  EXPECT_EQ(KindTableJson().rfind(R"([{"key":"pythontimeline","only":"pythontimeline.json","label":"pythontimeline"},)", 0), 0u);
}

}  // namespace tracemerge
