#include "tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
