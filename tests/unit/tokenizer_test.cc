#include "tokenizer.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "numbers.h"
#include "simdjson.h"

namespace tracemerge {
namespace {

struct Scan {
  bool ok;
  TopLevel top;
  std::vector<std::string> events;
  std::vector<Diagnostic> diags;
};

Scan DoScan(std::string_view data, int max_depth = 256) {
  Scan s;
  ScanLimits limits;
  limits.max_depth = max_depth;
  s.ok = ScanTrace(data, limits, &s.top,
                   [&](Span sp) { s.events.emplace_back(data.substr(sp.offset, sp.length)); }, &s.diags);
  return s;
}

bool Has(const Scan& s, Code code) {
  for (auto& d : s.diags)
    if (d.code == code) return true;
  return false;
}

}  // namespace

TEST(Tokenizer, BareArray) {
  Scan s = DoScan(R"([{"ph":"X"}, {"ph":"B","name":"a]}"}])");
  ASSERT_TRUE(s.ok);
  EXPECT_FALSE(s.top.is_object);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[1], R"({"ph":"B","name":"a]}"})");
  EXPECT_TRUE(s.diags.empty());
}

TEST(Tokenizer, ObjectFormWithBaseTimeAfterEvents) {
  Scan s = DoScan(R"({"schemaVersion":1,"traceEvents":[{"ph":"X"}],"x":{"a":[1,2]},"baseTimeNanoseconds":17})");
  ASSERT_TRUE(s.ok);
  EXPECT_TRUE(s.top.is_object);
  EXPECT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.top.base_time_ns, "17");
}

TEST(Tokenizer, TolerantIdioms) {
  // Trailing comma, empty records, no closing bracket (raw Horovod).
  Scan s = DoScan("[\n{\"ph\":\"X\"},\n{},\n{\"ph\":\"E\"},\n");
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.events.size(), 2u);
  EXPECT_TRUE(Has(s, Code::kNote));
  EXPECT_FALSE(Has(s, Code::kTruncated));
}

TEST(Tokenizer, TruncatedLastEventKeepsTheOnesBefore) {
  Scan s = DoScan(R"([{"ph":"X","ts":1},{"ph":"X","ts":2},{"ph":"X","na)");
  EXPECT_EQ(s.events.size(), 2u);
  ASSERT_TRUE(Has(s, Code::kTruncated));
  for (auto& d : s.diags)
    if (d.code == Code::kTruncated) EXPECT_EQ(d.offset, 37u);  // where the cut event starts
}

TEST(Tokenizer, EscapedQuotesInsideStrings) {
  Scan s = DoScan(R"([{"name":"a\"}\\","ph":"i"},{"ph":"X"}])");
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0], R"({"name":"a\"}\\","ph":"i"})");
}

TEST(Tokenizer, TooDeepEventIsDroppedNotFatal) {
  std::string deep = "[{\"a\":" + std::string(1000, '[') + std::string(1000, ']') + "},{\"ph\":\"X\"}]";
  Scan s = DoScan(deep, 100);
  EXPECT_EQ(s.events.size(), 1u);
  EXPECT_TRUE(Has(s, Code::kTooDeep));
}

TEST(Tokenizer, NotATrace) {
  EXPECT_FALSE(DoScan("").ok);
  EXPECT_FALSE(DoScan("hello").ok);
  EXPECT_FALSE(DoScan(R"({"a":1})").ok);
}

TEST(Tokenizer, NonObjectElementsAreReported) {
  Scan s = DoScan(R"([1, "x", {"ph":"X"}])");
  EXPECT_EQ(s.events.size(), 1u);
  EXPECT_TRUE(Has(s, Code::kBadEvent));
}

TEST(Tokenizer, Lines) {
  std::vector<std::string> lines;
  std::string_view d = "{\"a\":1}\n\n  {\"b\":2}\r\n{\"c\":";
  ScanLines(d, [&](Span sp) { lines.emplace_back(d.substr(sp.offset, sp.length)); });
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], "{\"b\":2}\r");
  EXPECT_EQ(lines[2], "{\"c\":");
}

}  // namespace tracemerge

namespace tracemerge {
namespace {

// Event boundaries found 64 bytes at a time agree with simdjson's on valid
// arrays full of what trips a scanner: escaped quotes and backslash runs across
// block edges, brackets inside strings, deep nesting, long strings.
TEST(ScanTrace, BlockScanFindsTheSameEventsAsSimdjson) {
  std::mt19937 rng(11);
  const char* pieces[] = {"\\\\", "\\\"", "{", "}", "[", "]", "x", "\\\\\\\"", "\\u00e9", ",", ":", " "};
  auto str = [&] {
    std::string s = "\"";
    for (int n = rng() % 40; n > 0; n--) s += pieces[rng() % 12];
    if (rng() % 8 == 0) s += std::string(rng() % 200, 'y');
    return s + "\"";
  };
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    switch (depth > 4 ? rng() % 2 : rng() % 4) {
      case 0: return str();
      case 1: return std::to_string(rng() % 1000);
      case 2: {
        std::string a = "[";
        for (int n = rng() % 4; n > 0; n--) a += value(depth + 1) + (n > 1 ? "," : "");
        return a + "]";
      }
      default: {
        std::string o = "{";
        for (int n = rng() % 4; n > 0; n--) o += str() + ":" + value(depth + 1) + (n > 1 ? ", " : "");
        return o + "}";
      }
    }
  };
  for (int round = 0; round < 300; round++) {
    std::string doc = std::string(rng() % 70, ' ') + "[";
    for (int n = 1 + rng() % 30; n > 0; n--) doc += "{\"ph\":" + value(1) + "}" + (n > 1 ? ",\n" : "");
    doc += "]";
    std::vector<std::pair<uint64_t, uint64_t>> ours, theirs;
    TopLevel top;
    std::vector<Diagnostic> diags;
    ASSERT_TRUE(ScanTrace(doc, {}, &top, [&](Span s) { ours.push_back({s.offset, s.length}); }, &diags));
    simdjson::padded_string padded(doc);
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document d;
    ASSERT_FALSE(parser.iterate(padded).get(d)) << doc;
    simdjson::ondemand::array events;
    ASSERT_FALSE(d.get_array().get(events)) << doc;
    for (auto e : events) {
      std::string_view raw;
      ASSERT_FALSE(e.raw_json().get(raw)) << doc;
      raw = Trim(raw);
      theirs.push_back({static_cast<uint64_t>(raw.data() - padded.data()), raw.size()});
    }
    ASSERT_EQ(ours, theirs) << doc;
  }
}

}  // namespace
}  // namespace tracemerge
