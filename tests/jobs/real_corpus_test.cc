// All of ../shared/corpus/real merged in one run: nothing lost (count per
// phase equal to an independent parse of the inputs), valid JSON, sorted,
// no pid shared by two files, every pid named, every event accounted for.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "simdjson.h"
#include "test_util.h"
#include "perfetto_check.h"
#include "viewer_check.h"

namespace tracemerge::test {
namespace {

using PhaseCounts = std::map<std::string, size_t>;

// Counts non-metadata events per phase with simdjson's DOM parser (strict),
// repairing only the documented idiom of an unclosed array.
bool CountInput(const Input& in, PhaseCounts* counts) {
  std::string text = in.bytes.size() > 2 && static_cast<unsigned char>(in.bytes[0]) == 0x1f ? Inflate(in.bytes) : in.bytes;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc)) {
    while (!text.empty() && (isspace(static_cast<unsigned char>(text.back())) || text.back() == ',')) text.pop_back();
    text += "]";
    if (parser.parse(text).get(doc)) return false;
  }
  simdjson::dom::array events;
  if (doc.get_array().get(events) && doc["traceEvents"].get_array().get(events)) return false;
  for (simdjson::dom::element e : events) {
    std::string_view ph;
    if (e["ph"].get_string().get(ph) || ph == "M") continue;
    // Legacy async is written as nestable async (Perfetto refuses the legacy
    // phases); Perfetto's own T (with a dur) stays.
    std::string out(ph);
    const bool has_dur = e["dur"].error() == simdjson::SUCCESS;
    if (ph == "S") out = "b";
    else if (ph == "F") out = "e";
    else if (ph == "p" || (ph == "T" && !has_dur)) out = "n";
    (*counts)[out]++;
  }
  return true;
}

std::set<int64_t> Pids(const std::string& output) {
  std::string err;
  std::set<int64_t> pids;
  for (auto& e : ParseOutput(output, &err)) pids.insert(e.pid);
  return pids;
}

}  // namespace

TEST(RealCorpus, EverythingMergesNothingIsLost) {
  auto inputs = ReadTree(Corpus("real"));
  ASSERT_GT(inputs.size(), 40u);
  MergeResult r = MergeInputs(inputs, {});
  ASSERT_FALSE(r.report.fatal);

  // The JSON traces counted here; the XSpace by its provenance (PROVENANCE.tsv: /host:CPU
  // 15 354 events, GPU 1, 4, 6 19 / 3 875 / 3 880), every one an X slice.
  auto xplane = [](const Input& in) { return in.name.find(".xplane.pb") != std::string::npos; };
  auto json = [&](const Input& in) { return in.name.find(".tsv") == std::string::npos && !xplane(in); };
  PhaseCounts expected, got;
  size_t traces = 0;
  std::string xplane_bytes;
  for (const Input& in : inputs)
    if (json(in)) {
      EXPECT_TRUE(CountInput(in, &expected)) << in.name;
      traces++;
    } else if (xplane(in)) {
      expected["X"] += 15354 + 19 + 3875 + 3880;
      xplane_bytes += in.bytes;
      traces++;
    }

  std::string err;
  auto events = ParseOutput(r.output, &err);
  ASSERT_EQ(err, "") << "output is not valid JSON";
  std::set<int64_t> named, used;
  double last_ts = -1e300;
  bool in_meta = true;
  for (auto& e : events) {
    EXPECT_GT(e.pid, 0);
    EXPECT_LT(e.pid, int64_t{1} << 31);
    used.insert(e.pid);
    if (e.ph == "M") {
      EXPECT_TRUE(in_meta) << "metadata after events";
      if (e.name == "process_name") named.insert(e.pid);
      continue;
    }
    in_meta = false;
    got[e.ph]++;
    EXPECT_GE(e.ts, last_ts) << "not sorted at " << e.name;
    last_ts = e.ts;
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(named, used) << "every pid has a process_name";

  // Privacy: the output brings nothing that was not in the inputs (but the report
  // and generated track names): every event name occurs in some input.
  std::string all_inputs;
  for (const Input& in : inputs)
    all_inputs += in.bytes.size() > 2 && static_cast<unsigned char>(in.bytes[0]) == 0x1f ? Inflate(in.bytes) : in.bytes;
  std::set<std::string_view> input_strings;  // every "…" in the inputs, raw
  for (size_t i = all_inputs.find('"'); i != std::string::npos;) {
    size_t j = i + 1;
    while (j < all_inputs.size() && all_inputs[j] != '"') j += all_inputs[j] == '\\' ? 2 : 1;
    if (j >= all_inputs.size()) break;
    input_strings.insert(std::string_view(all_inputs).substr(i + 1, j - i - 1));
    i = all_inputs.find('"', j + 1);
  }
  std::set<std::string> names;
  for (auto& e : events)
    if (e.ph != "M" && !e.name.empty()) names.insert(e.name);
  ASSERT_GT(names.size(), 100u);
  for (const std::string& name : names) {
    // Names with escapes appear escaped in the input; compare the plain ones.
    if (name.find_first_of("\\\"\n\t/") != std::string::npos) continue;
    EXPECT_TRUE(input_strings.count(name) || xplane_bytes.find(name) != std::string::npos) << "not in any input: " << name;
  }

  // No pid shared by two files: the pids of the files merged one by one add up.
  size_t separate = 0;
  for (const Input& in : inputs) {
    if (!json(in) && !xplane(in)) continue;
    separate += Pids(MergeInputs({in}, {}).output).size();
  }
  EXPECT_EQ(separate, used.size());

  // Every event read is kept, dropped with a warning, folded into track names,
  // or left out with its empty process: nothing vanishes unaccounted.
  std::set<std::string> included;  // (files: a file of several devices or ranks is a source per each)
  for (const SourceReport& s : r.report.sources) {
    if (s.path.find(".xplane.pb") != std::string::npos) EXPECT_EQ(s.kind, Kind::kXPlane) << s.path;
    if (!s.included) continue;
    included.insert(s.path);
    EXPECT_EQ(s.events_read,
              s.events_kept + s.events_dropped + s.events_outside + s.metadata_merged + s.metadata_unused)
        << s.path;
    EXPECT_EQ(s.events_dropped, 0u) << s.path;
  }
  EXPECT_EQ(included.size(), traces);
}

}  // namespace tracemerge::test

namespace tracemerge::test {
namespace {

// What the viewers read holds together: no X slice partially overlaps
// another on its track, exactly, as Perfetto reads it, or as JS doubles —
// for every corpus file merged alone, for all merged at once, and for the
// smdebug cases.
void ExpectReadingsHold(const std::vector<Input>& inputs, const std::string& what, uint64_t* slices) {
  const MergeResult r = MergeInputs(inputs, {});
  ASSERT_FALSE(r.report.fatal) << what << ": " << r.report.fatal->message;
  const Readings check = CheckReadings(r.output);
  EXPECT_EQ(check.error, "") << what;
  EXPECT_TRUE(check.ok()) << what << ": overlaps exact " << check.overlaps[0] << ", perfetto " << check.overlaps[1]
                          << ", js " << check.overlaps[2] << "; first: " << check.first;
  *slices += check.slices;
}

TEST(RealCorpus, SlicesNestOrFollowInEveryViewersReading) {
  uint64_t slices = 0;
  const std::vector<Input> inputs = ReadTree(Corpus("real"));
  for (const Input& in : inputs)
    if (in.name.find(".tsv") == std::string::npos) ExpectReadingsHold({in}, in.name, &slices);  // (not PROVENANCE.tsv)
  ExpectReadingsHold(inputs, "the whole corpus", &slices);
  for (const char* job : {"smdebug/tests/profiler/resources", "smdebug/constructed/combined_job", "smdebug/history"})
    ExpectReadingsHold(ReadTree(Corpus(job)), job, &slices);
  EXPECT_GT(slices, 300000u);
}

// The checker finds what it is for: slices that touch exactly at epoch
// times overlap once Perfetto or JS rounds them.
TEST(ViewerCheck, FindsOverlapsOnlyInTheReadingsThatHaveThem) {
  const Readings exact = CheckReadings(R"({"traceEvents":[{"ph":"X","ts":0,"dur":10,"pid":1,"tid":1},
                                                          {"ph":"X","ts":5,"dur":10,"pid":1,"tid":1}]})");
  EXPECT_EQ(exact.overlaps[0], 1u);
  EXPECT_EQ(exact.overlaps[1], 1u);
  EXPECT_EQ(exact.overlaps[2], 1u);
  // A ends exactly where B starts; read, A's end (its ts and dur rounded
  // apart) lands past B's start.
  const Readings rounded = CheckReadings(R"({"traceEvents":[
      {"ph":"X","ts":1712195495406752.2,"dur":0.4,"pid":1,"tid":1},
      {"ph":"X","ts":1712195495406752.6,"dur":1,"pid":1,"tid":1}]})");
  EXPECT_EQ(rounded.overlaps[0], 0u);
  EXPECT_EQ(rounded.overlaps[1] + rounded.overlaps[2], 2u) << rounded.first;
}

}  // namespace
}  // namespace tracemerge::test

namespace tracemerge::test {
namespace {

// What only the data can remove (Perfetto counts them the same in the input):
// flow ids reused while open, flows outside slices, B/E children that outlive
// their X parent.
constexpr const char* kForcedStats[] = {"flow_duplicate_id", "flow_no_enclosing_slice", "misplaced_end_event",
                                        "flow_without_direction", "flow_invalid_id"};

std::string Text(const Input& in) {
  return in.bytes.size() > 2 && static_cast<unsigned char>(in.bytes[0]) == 0x1f ? Inflate(in.bytes) : in.bytes;
}

std::string Describe(const std::map<std::string, uint64_t>& m) {
  std::string s;
  for (auto& [k, v] : m) s += k + " × " + std::to_string(v) + "; ";
  return s;
}

// Perfetto imports our output without an error or a loss that the input
// does not force: nothing avoidable, and the forced stats no more than the
// input has (each file alone, then all at once, then the smdebug jobs).
TEST(RealCorpus, PerfettoImportsEverythingTheDataAllows) {
  const std::vector<Input> inputs = ReadTree(Corpus("real"));
  std::map<std::string, uint64_t> forced_in;  // over all inputs
  size_t checked = 0;
  for (const Input& in : inputs) {
    const MergeResult r = MergeInputs({in}, {});
    if (r.report.fatal) continue;
    const PerfettoImport out = CheckPerfettoImport(r.output);
    EXPECT_EQ(Describe(Avoidable(out)), "") << in.name;
    const PerfettoImport input = CheckPerfettoImport(Text(in));
    for (const char* stat : kForcedStats) {
      const uint64_t got = out.stats.count(stat) ? out.stats.at(stat) : 0;
      if (!input.fatal.empty() && input.fatal.rfind("bytes after", 0) != 0) {
        EXPECT_EQ(got, 0u) << in.name << ": " << stat << " where Perfetto cannot read the input (" << input.fatal << ")";
        continue;
      }
      const uint64_t had = input.stats.count(stat) ? input.stats.at(stat) : 0;
      EXPECT_LE(got, had) << in.name << ": " << stat;
      forced_in[stat] += had;
    }
    checked++;
  }
  EXPECT_GT(checked, 40u);
  const PerfettoImport all = CheckPerfettoImport(MergeInputs(inputs, {}).output);
  EXPECT_EQ(Describe(Avoidable(all)), "") << "the whole corpus";
  for (const char* stat : kForcedStats)
    EXPECT_LE(all.stats.count(stat) ? all.stats.at(stat) : 0, forced_in[stat]) << "the whole corpus: " << stat;
  for (const char* job : {"smdebug/tests/profiler/resources", "smdebug/constructed/combined_job", "smdebug/history"}) {
    const PerfettoImport r = CheckPerfettoImport(MergeInputs(ReadTree(Corpus(job)), {}).output);
    EXPECT_EQ(Describe(Avoidable(r)), "") << job;
    EXPECT_TRUE(r.stats.empty()) << job << ": " << Describe(r.stats);
  }
}

// The checked-in goldens too, as a viewer reads them.
TEST(Goldens, PerfettoImportsThemWholeAndTheirSlicesNest) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TRACEMERGE_GOLDEN_DIR)) {
    const std::string text = ReadFile(entry.path().string());
    const PerfettoImport r = CheckPerfettoImport(text);
    EXPECT_EQ(Describe(Avoidable(r)), "") << entry.path();
    EXPECT_TRUE(CheckReadings(text).ok()) << entry.path();
    n++;
  }
  EXPECT_GE(n, 12u);
}

// The checker finds what Perfetto refuses (each rule read in its source).
TEST(PerfettoCheck, FindsWhatPerfettoRefuses) {
  auto check = [](const std::string& events) { return CheckPerfettoImport(R"({"traceEvents":[)" + events + "]}"); };
  EXPECT_EQ(check(R"({"ph":"X","ts":1,"pid":1,"tid":1})").reasons["X without dur"], 1u);
  EXPECT_EQ(check(R"({"ph":"T","ts":1,"id":1,"pid":1,"tid":1})").reasons["T without dur"], 1u);
  EXPECT_EQ(check(R"({"ph":"i","ts":-1,"pid":1,"tid":1})").stats["trace_sorter_negative_timestamp_dropped"], 1u);
  EXPECT_NE(check(R"({"ph":"B","ts":1,"pid":1,"tid":1,"tts":null})").fatal, "");
  EXPECT_NE(check(R"({"ph":"i","ts":1,"pid":1,"tid":1,"name":"\ud83d\ude00"})").fatal, "");
  EXPECT_EQ(check(R"({"ph":"C","ts":1,"pid":1,"tid":1,"args":{"a":true}})").forced["counter value not a number"], 1u);
  // A bind_id with no direction (found by fuzz_merge): the input's, kept as it came.
  const std::string undirected = R"([{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"bind_id":"0x1","flow_in":false}])";
  EXPECT_EQ(check(undirected.substr(1, undirected.size() - 2)).forced["bind_id without flow_in/flow_out"], 1u);
  // A flow event without an id (found by fuzz_merge): the input's too; an id we wrote is always readable.
  EXPECT_EQ(check(R"({"ph":"f","ts":1,"pid":1,"tid":1})").forced["flow without id"], 1u);
  EXPECT_EQ(check(R"({"ph":"f","ts":1,"pid":1,"tid":1,"id":"zz"})").forced.count("flow id"), 0u);
  const PerfettoImport merged = CheckPerfettoImport(
      MergeInputs({{"undirected.json", undirected},
                   {"flows.json", R"([{"ph":"X","ts":1,"dur":9,"pid":1,"tid":1},{"ph":"s","ts":2,"pid":1,"tid":1,"id":"zz"},
                                      {"ph":"f","ts":3,"pid":1,"tid":1},{"ph":"f","ts":4,"pid":1,"tid":1,"id":"zz","bp":"e"}])"}},
                  {}).output);
  EXPECT_EQ(merged.stats.at("flow_without_direction"), 1u);
  EXPECT_EQ(merged.reasons.at("flow without id"), 1u);
  EXPECT_EQ(merged.reasons.count("flow id"), 0u);
  EXPECT_TRUE(Avoidable(merged).empty()) << Describe(Avoidable(merged));
  // A B that outlives the X it began in; a flow id started twice.
  const PerfettoImport r = check(R"({"ph":"X","ts":1,"dur":10,"pid":1,"tid":1},{"ph":"B","ts":2,"pid":1,"tid":1},
      {"ph":"i","ts":20,"pid":1,"tid":1},{"ph":"s","id":"0x1","ts":3,"pid":1,"tid":1},{"ph":"s","id":"0x1","ts":4,"pid":1,"tid":1})");
  EXPECT_EQ(r.stats.at("misplaced_end_event"), 1u);
  EXPECT_EQ(r.stats.at("flow_duplicate_id"), 1u);
  EXPECT_TRUE(Avoidable(r).empty()) << Describe(Avoidable(r));
}

// What Perfetto refuses for its form is written in a form it takes, the
// meaning kept, each kind said once per file with its first byte.
TEST(PerfettoForms, ConvertedEventsKeepTheirMeaningAndAreNoted) {
  const std::string trace = R"([{"ph":"S","name":"a","cat":"c","id":7,"ts":1594662618000001,"pid":1,"tid":1},
    {"ph":"T","name":"a","cat":"c","id":7,"ts":1594662618000002,"pid":1,"tid":1,"args":{"step":"s1"}},
    {"ph":"F","name":"a","cat":"c","id":7,"ts":1594662618000003,"pid":1,"tid":1},
    {"ph":"T","name":"Running","ts":1594662618000004,"dur":2,"pid":1,"tid":1},
    {"ph":"X","name":42,"ts":1594662618000005,"pid":1,"tid":1,"tts":"17","tdur":null,"args":[1,2]},
    {"ph":"X","name":"\ud83d\ude00 \ud800","ts":1594662618000006,"dur":1,"pid":1,"tid":1,"bind_id":3,"flow_out":1},
    {"ph":"C","name":"cpu","ts":1594662618000007,"pid":1,"args":{"cpu":"5.472452785666407","label":"x","n":3}},
    {"ph":"M","name":"process_sort_index","pid":1,"args":{"sort_index":"1000002","name":"7"}}])";
  const MergeResult r = MergeInputs({{"a.json", trace}}, {});
  ASSERT_FALSE(r.report.fatal);
  const std::string& out = r.output;
  EXPECT_NE(out.find(R"("ph":"b","name":"a","cat":"c","id":1)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("ph":"n","name":"a","cat":"c","id":1,"ts":1594662618000002,"pid":1,"tid":1,"args":{"step":"s1"})"),
            std::string::npos);
  EXPECT_NE(out.find(R"("ph":"e","name":"a")"), std::string::npos);
  EXPECT_NE(out.find(R"("ph":"T","name":"Running")"), std::string::npos) << "Perfetto's own T (with a dur) stays";
  EXPECT_NE(out.find(R"("name":"42","ts":1594662618000005,"pid":1,"tid":1,"tts":17,"args":{"value":[1,2]},"dur":0})"),
            std::string::npos);
  EXPECT_NE(out.find("\"name\":\"\xF0\x9F\x98\x80 \\ufffd\""), std::string::npos) << "a pair as UTF-8, a lone half as U+FFFD";
  EXPECT_NE(out.find(R"("bind_id":4294967298,"flow_out":true)"), std::string::npos) << "bind_ids beyond v1 flow ids";
  EXPECT_NE(out.find(R"("args":{"cpu":5.472452785666407,"label":"x","n":3})"), std::string::npos)
      << "a counter's numeric string as its number (a non-numeric one stays: the data's)";
  EXPECT_NE(out.find(R"("args":{"sort_index":1000002,"name":"7"})"), std::string::npos) << "only sort_index, in metadata";
  EXPECT_EQ(Describe(Avoidable(CheckPerfettoImport(out))), "");
  EXPECT_EQ(CheckPerfettoImport(trace).reasons.count("counter value a numeric string"), 1u) << "the input's, avoidable";
  size_t notes = 0;
  for (const Diagnostic& w : r.report.warnings) notes += w.code == Code::kNote && w.file == "a.json";
  EXPECT_EQ(notes, 8u) << "legacy async, no dur, tts/tdur, name type, args type, flow flag, surrogates, numeric strings";
  std::string err;
  EXPECT_EQ(ParseOutput(out, &err).size(), 11u) << "and the counter's thread's name";
  EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace tracemerge::test
