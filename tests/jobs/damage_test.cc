// Damaged inputs never crash or hang the merge: the damaged file is named with
// a byte offset, the intact file still merges completely, output stays valid JSON.
#include <gtest/gtest.h>

#include <random>

#include "numbers.h"
#include "simdjson.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

const char kIntactName[] = "job/intact.json";
const char kIntact[] = R"({"traceEvents":[{"ph":"X","name":"ok1","pid":1,"tid":1,"ts":10,"dur":5},
{"ph":"i","name":"ok2","pid":1,"tid":1,"ts":12},{"ph":"C","name":"ok3","pid":1,"ts":13,"args":{"v":1}}]})";
constexpr size_t kIntactEvents = 3;

std::string SmallTrace() {
  return ReadFile(Corpus("real/chrome_catapult/trivial_trace.json"));
}

// Merges the damaged file beside an intact one and checks the promises.
void CheckDamaged(const std::string& what, const std::string& bytes, bool expect_diagnostic = true) {
  SCOPED_TRACE(what);
  const std::string name = "job/damaged.json";
  MergeResult r = MergeInputs({{kIntactName, kIntact}, {name, bytes}}, {});
  ASSERT_FALSE(r.report.fatal) << r.report.fatal->ToString();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.output).get(doc), simdjson::SUCCESS) << "output is not valid JSON";
  for (const SourceReport& s : r.report.sources) {
    if (s.path == kIntactName) EXPECT_EQ(s.events_kept, kIntactEvents);
    if (s.path == name && s.included)
      EXPECT_EQ(s.events_read, s.events_kept + s.events_dropped + s.events_outside + s.metadata_merged +
                                   s.metadata_unused);
  }
  if (!expect_diagnostic) return;
  bool named = false;
  for (const Diagnostic& d : r.report.warnings) named |= d.file == name;
  EXPECT_TRUE(named) << r.report.Summary();
}

}  // namespace

TEST(Damage, TruncatedAtEveryByte) {
  const std::string full = SmallTrace();
  ASSERT_GT(full.size(), 100u);
  for (size_t cut = 0; cut < full.size(); cut++) {
    // Cutting only trailing whitespace/newline loses nothing and needs no warning.
    bool lossless = full.find_first_not_of(" \n\r\t", cut) == std::string::npos;
    CheckDamaged("cut at " + std::to_string(cut), full.substr(0, cut), !lossless);
  }
}

TEST(Damage, TruncatedGzipAtManyPoints) {
  const std::string gz = Gzip(SmallTrace());
  for (size_t cut = 0; cut < gz.size(); cut += 3) CheckDamaged("gz cut at " + std::to_string(cut), gz.substr(0, cut));
}

TEST(Damage, RandomByteFlips) {
  const std::string full = SmallTrace();
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; round++) {
    std::string s = full;
    int flips = 1 + round % 5;
    for (int k = 0; k < flips; k++) s[rng() % s.size()] = static_cast<char>(rng() & 0xff);
    CheckDamaged("flip round " + std::to_string(round), s, false);
  }
}

TEST(Damage, GarbageEmptyAndBrokenGzip) {
  std::mt19937 rng(7);
  std::string garbage(4096, 0);
  for (char& c : garbage) c = static_cast<char>(rng());
  CheckDamaged("garbage", garbage);
  CheckDamaged("empty", "");
  CheckDamaged("only whitespace", "  \n ");
  std::string gz = Gzip(SmallTrace());
  for (size_t i = 20; i < 40 && i < gz.size(); i++) gz[i] = static_cast<char>(gz[i] ^ 0xff);
  CheckDamaged("corrupt gzip", gz);
  CheckDamaged("gzip header only", std::string("\x1f\x8b\x08\x00", 4));
}

TEST(Damage, DeepNesting) {
  std::string open_deep = "[{\"ph\":\"i\",\"ts\":1,\"args\":" + std::string(200000, '[');
  CheckDamaged("200000 open brackets", open_deep);
  std::string closed_deep = "[{\"ph\":\"i\",\"ts\":1,\"args\":" + std::string(200000, '[') + std::string(200000, ']') +
                            "},{\"ph\":\"i\",\"name\":\"after\",\"ts\":2}]";
  CheckDamaged("200000 balanced brackets", closed_deep);
}

TEST(Damage, NumbersOutOfRangeAndWrongTypes) {
  CheckDamaged("ts 1e400", R"([{"ph":"X","name":"a","ts":1e400,"dur":1}])");
  CheckDamaged("20-digit pid", R"([{"ph":"X","name":"a","ts":1,"dur":1,"pid":12345678901234567890}])", false);
  CheckDamaged("negative dur", R"([{"ph":"X","name":"a","ts":1,"dur":-5}])");
  for (const char* field : {"ph", "ts", "dur", "pid", "tid", "name", "args", "id", "id2", "cat", "s", "bind_id"}) {
    for (const char* value : {"5", "{}", "[1]", "null", "true", "\"x\"", "-1"}) {
      std::string ev = std::string(R"([{"ph":"X","name":"a","ts":1,"dur":1,")") + field + "\":" + value + "}]";
      CheckDamaged(ev, ev, false);
    }
  }
}

// Bytes that are not UTF-8 in an event's strings (keys, values, names) cost only themselves: the
// event is kept with U+FFFD for them, said once with the first event's offset; a process name
// too. The output is valid UTF-8 (a JSON reader would refuse the whole trace).
TEST(Damage, InvalidUtf8IsWrittenAsReplacementWithItsOffset) {
  std::string s = "[{\"ph\":\"i\",\"name\":\"ok\",\"ts\":1},{\"ph\":\"i\",\"name\":\"\xc3\x28\",\"ts\":2,"
                  "\"args\":{\"k\xff\":\"\xed\xa0\x80\"}},{\"ph\":\"M\",\"name\":\"process_name\",\"args\":{\"name\":\"p\xfe\"}}]";
  CheckDamaged("invalid utf-8", s);
  MergeResult r = MergeInputs({{"u.json", s}}, {});
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(r.report.sources[0].events_kept, 2u);
  EXPECT_EQ(r.report.sources[0].events_dropped, 0u);
  bool noted = false;
  for (auto& d : r.report.warnings) noted |= d.code == Code::kNote && d.offset == 31 && d.message.find("not UTF-8") != std::string::npos;
  EXPECT_TRUE(noted) << r.report.Summary();
  bool changed = false;
  EXPECT_EQ(WithValidUtf8(r.output, &changed), r.output) << "the output is valid UTF-8";
  EXPECT_NE(r.output.find("\"name\":\"\xEF\xBF\xBD(\""), std::string::npos);
  EXPECT_NE(r.output.find("\"k\xEF\xBF\xBD\":\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""), std::string::npos) << "a surrogate's bytes too";
  EXPECT_NE(r.output.find("p\xEF\xBF\xBD"), std::string::npos) << "the process name";
}

TEST(Damage, InflateLimitStopsAGzipBombOfGigabytes) {
  // 16 concatenated members of 256 MB of spaces: 4 GB inflated from ~4 MB.
  const std::string member = Gzip(std::string(256 << 20, ' '));
  std::string bomb = Gzip("[");
  for (int i = 0; i < 16; i++) bomb += member;
  ASSERT_LT(bomb.size(), size_t{8} << 20);
  Options o;
  o.max_inflated_bytes = 64 << 20;
  MergeResult r = MergeInputs({{kIntactName, kIntact}, {"bomb.json.gz", bomb}}, o, 1 << 20);
  ASSERT_FALSE(r.report.fatal);
  bool too_large = false;
  for (auto& d : r.report.warnings) too_large |= d.code == Code::kTooLarge && d.file == "bomb.json.gz";
  EXPECT_TRUE(too_large) << r.report.Summary();
  for (auto& s : r.report.sources)
    if (s.path == "bomb.json.gz") EXPECT_LE(s.inflated_bytes, uint64_t{64} << 20);
}

TEST(Damage, StringLongerThanTheLimitDropsItsEvent) {
  std::string trace = R"([{"ph":"i","name":"ok","ts":1},{"ph":"i","name":")" + std::string(5000, 'x') +
                      R"(","ts":2},{"ph":"i","name":"ok2","ts":3}])";
  Options o;
  o.max_string_bytes = 1024;
  MergeResult r = MergeInputs({{kIntactName, kIntact}, {"long.json", trace}}, o);
  ASSERT_FALSE(r.report.fatal);
  bool found = false;
  for (auto& d : r.report.warnings)
    found |= d.code == Code::kTooLarge && d.file == "long.json" && d.offset == 48 &&  // the long string
             d.message.find("string longer than the limit (1024 bytes)") != std::string::npos;
  EXPECT_TRUE(found) << r.report.Summary();
  for (auto& s : r.report.sources)
    if (s.path == "long.json") EXPECT_EQ(s.events_kept, 2u);
}

}  // namespace tracemerge::test

namespace tracemerge::test {
namespace {

// One outlier decides nothing (issue 41): 1 000 events at Unix µs and one at ts 0
// (or -0, 1e-400) — the file keeps its clock, nothing moves 54 years, and a NOTE
// counts the stray; a file whose times are half relative is judged clockless.
TEST(Damage, OneEventAtTsZeroDoesNotDecideTheFilesClock) {
  for (const char* zero : {"0", "-0", "1e-400"}) {
    SCOPED_TRACE(zero);
    std::string trace = "[";
    for (int i = 0; i < 1000; i++)
      trace += R"({"ph":"X","name":"e","pid":1,"tid":1,"ts":)" + std::to_string(1700000000000000 + i) + R"(,"dur":1},)";
    trace += std::string(R"({"ph":"X","name":"zero","pid":1,"tid":1,"ts":)") + zero + R"(,"dur":1}])";
    const MergeResult r = MergeInputs({{"job/a.json", trace}}, {});
    ASSERT_FALSE(r.report.fatal);
    ASSERT_EQ(r.report.sources.size(), 1u);
    EXPECT_TRUE(r.report.sources[0].absolute);
    size_t notes = 0;
    for (const Diagnostic& d : r.report.warnings) {
      EXPECT_NE(d.code, Code::kNoClock);
      notes += d.code == Code::kNote && d.message.find("1 event of 1001 at times before 2001") != std::string::npos;
    }
    EXPECT_EQ(notes, 1u);
    EXPECT_EQ(r.report.last_end_ns, (1700000000000000 + 999 + 1) * 1000) << "not moved by 54 years";
    EXPECT_NE(r.output.find(R"("ts":1700000000000000,)"), std::string::npos);
  }
  std::string half = "[";
  for (int i = 0; i < 10; i++) half += R"({"ph":"i","name":"r","pid":1,"tid":1,"ts":)" + std::to_string(i) + "},";
  for (int i = 0; i < 10; i++) half += R"({"ph":"i","name":"u","pid":1,"tid":1,"ts":)" + std::to_string(1700000000000000 + i) + "},";
  half += R"({"ph":"i","name":"end","pid":1,"tid":1,"ts":20}])";
  const MergeResult h = MergeInputs({{"job/half.json", half}}, {});
  ASSERT_EQ(h.report.sources.size(), 1u);
  EXPECT_FALSE(h.report.sources[0].absolute) << "half its times relative: no clock to trust";
}

// Every string the output writes is valid (issue 41): lone surrogate escapes in a
// process or thread name become U+FFFD, a pair its character, counted in a NOTE as in
// event text — none reaches the output, where Perfetto would refuse the whole trace.
TEST(Damage, SurrogateEscapesInTrackNamesAreRepairedAndNoted) {
  const std::string trace = R"([{"ph":"M","name":"process_name","pid":1,"args":{"name":"proc \ud800 x"}},)"
                            R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"thr \uDFFF y \ud83d\ude00"}},)"
                            R"({"ph":"X","name":"a","pid":1,"tid":2,"ts":1700000000000000,"dur":1}])";
  const MergeResult r = MergeInputs({{"job/s.json", trace}}, {});
  ASSERT_FALSE(r.report.fatal);
  std::string lower = r.output.substr(0, r.output.find("\"metadata\""));  // (the report quotes the NOTE's "\\uD800")
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* bad : {"\\ud8", "\\ud9", "\\uda", "\\udb", "\\udc", "\\udd", "\\ude", "\\udf"})
    EXPECT_EQ(lower.find(bad), std::string::npos) << bad;
  EXPECT_NE(r.output.find("proc \\ufffd x"), std::string::npos);
  EXPECT_NE(r.output.find("thr \\ufffd y \xF0\x9F\x98\x80"), std::string::npos);
  size_t notes = 0;
  for (const Diagnostic& d : r.report.warnings) notes += d.code == Code::kNote && d.message.find("\\uD800") != std::string::npos;
  EXPECT_EQ(notes, 1u);
}

}  // namespace
}  // namespace tracemerge::test
