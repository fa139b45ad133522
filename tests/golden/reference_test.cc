// Golden tests on ../shared/corpus/smdebug: byte-exact against checked-in
// outputs (regenerate with scripts/update-goldens.sh), also when the inputs
// arrive in tiny chunks, and the same X events at the same absolute times as
// the reference Python implementation's outputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "simdjson.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace tracemerge::test {
namespace {

struct Case {
  std::string name, input;
  std::vector<std::string> options;
  size_t reference_x = 0;
};

// Test names and failure messages show the case name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> LoadCases() {
  std::vector<Case> cases;
  std::ifstream f(std::string(TRACEMERGE_GOLDEN_DIR) + "/../cases.tsv");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, '\t')) cols.push_back(col);
    cols.resize(4);
    Case c{cols[0], cols[1], {}, std::stoul(cols[3])};
    std::stringstream opts(cols[2]);
    for (std::string w; opts >> w;) c.options.push_back(w);
    cases.push_back(c);
  }
  return cases;
}

// The CLI's option words → Options (the same few the cases use).
Options ToOptions(const std::vector<std::string>& words) {
  Options o;
  bool only = false;
  for (size_t i = 0; i + 1 < words.size(); i += 2) {
    const std::string &k = words[i], &v = words[i + 1];
    if (k == "--start") o.start = std::stoll(v);
    if (k == "--end") o.end = std::stoll(v);
    if (k == "--unit") {
      EXPECT_TRUE(ParseUnit(v).ok());
      o.unit = ParseUnit(v).value();
    }
    if (k == "--group") {
      EXPECT_TRUE(ParseGroup(v).ok());
      o.group = ParseGroup(v).value();
    }
    if (k == "--only") {
      if (!only) o.kinds = 0;
      only = true;
      o.kinds |= KindBit(*KindFromFilterName(v));
    }
  }
  return o;
}

using XKey = std::tuple<std::string, int64_t, int64_t>;  // name, ts µs, dur µs

std::multiset<XKey> XEvents(simdjson::dom::array events) {
  std::multiset<XKey> out;
  for (simdjson::dom::element e : events) {
    std::string_view ph, name;
    if (e["ph"].get_string().get(ph) || ph != "X") continue;
    double ts = 0, dur = 0;
    if (e["name"].get_string().get(name) || e["ts"].get_double().get(ts)) ADD_FAILURE() << "X without name/ts";
    if (e["dur"].get_double().get(dur)) dur = 0;
    // The reference truncates fractional µs (TF traces); compare whole µs.
    out.insert({std::string(name), static_cast<int64_t>(ts), static_cast<int64_t>(dur)});
  }
  return out;
}

class Golden : public ::testing::TestWithParam<Case> {};

TEST_P(Golden, MatchesCheckedInOutputInAnyChunkSize) {
  const Case& c = GetParam();
  auto inputs = ReadTree(Corpus(c.input));
  const std::string expected = ReadFile(std::string(TRACEMERGE_GOLDEN_DIR) + "/" + c.name + ".json");
  ASSERT_FALSE(expected.empty()) << "missing golden; run scripts/update-goldens.sh";
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}}) {
    MergeResult r = MergeInputs(inputs, ToOptions(c.options), chunk);
    ASSERT_FALSE(r.report.fatal) << r.report.fatal->ToString();
    EXPECT_TRUE(SameText(r.output, expected)) << c.name << " chunk " << chunk;
  }
}

TEST_P(Golden, SelectsTheReferenceXEventsAtTheSameTimes) {
  const Case& c = GetParam();
  MergeResult r = MergeInputs(ReadTree(Corpus(c.input)), ToOptions(c.options));
  simdjson::dom::parser p1, p2;
  simdjson::dom::element ours, ref;
  ASSERT_EQ(p1.parse(r.output).get(ours), simdjson::SUCCESS);
  simdjson::dom::array our_events;
  ASSERT_EQ(ours["traceEvents"].get_array().get(our_events), simdjson::SUCCESS);
  auto mine = XEvents(our_events);
  EXPECT_EQ(mine.size(), c.reference_x);

  std::string ref_name = c.name.rfind("combined_phase", 0) == 0 ? "combined_step_2_4" : c.name;
  fs::path dir = Corpus("smdebug/expected_merged/" + ref_name);
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  std::string ref_text = ReadFile(fs::directory_iterator(dir)->path().string());
  ASSERT_EQ(p2.parse(ref_text).get(ref), simdjson::SUCCESS);
  simdjson::dom::array ref_events;
  ASSERT_EQ(ref.get_array().get(ref_events), simdjson::SUCCESS);
  auto theirs = XEvents(ref_events);
  EXPECT_EQ(theirs.size(), c.reference_x);
  EXPECT_TRUE(mine == theirs) << c.name << ": X events differ from the reference";
}

INSTANTIATE_TEST_SUITE_P(Smdebug, Golden, ::testing::ValuesIn(LoadCases()),
                         [](const auto& info) { return info.param.name; });

TEST(Golden, StepWindowResolvesLikeTheReference) {
  Options o;
  o.unit = Unit::kStep;
  o.start = 2;
  o.end = 4;
  MergeResult r = MergeInputs(ReadTree(Corpus("smdebug/tests/profiler/resources/merge_traces")), o);
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(r.report.window_start_ns, int64_t{1594662617507447} * 1000);
  EXPECT_EQ(r.report.window_end_ns, int64_t{1594662617676640} * 1000);
}

TEST(Golden, TfTraceTakesItsClockFromTheSidecar) {
  MergeResult r = MergeInputs(ReadTree(Corpus("smdebug/tests/profiler/resources/tfprofiler_timeline_traces")), {});
  std::string err;
  auto events = ParseOutput(r.output, &err);
  ASSERT_EQ(err, "");
  double first = 1e300;
  for (auto& e : events)
    if (e.ph == "X") first = std::min(first, e.ts);
  EXPECT_EQ(static_cast<int64_t>(first), 1596659864545103 + 21307);
}

}  // namespace
}  // namespace tracemerge::test
