#include "event_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace tracemerge {
namespace {

// The parser needs readable padding after the event, as the source buffers have.
struct Padded {
  explicit Padded(std::string s) : len(s.size()), data(s + std::string(simdjson::SIMDJSON_PADDING, ' ')) {}
  size_t len;
  std::string data;
};

}  // namespace

TEST(EventParser, PullsTheFieldsTheMergeNeeds) {
  Padded p(R"({"ph":"X","name":"a","ts":"12.5","dur":3,"pid":"Spans","tid":-1,"cat":"c","id":"0x1a",)"
           R"("args":{"step_num":"3","name":"n","big":10159970886766084423}})");
  EventParser parser;
  EventFields f;
  std::string error;
  ASSERT_TRUE(parser.Parse(p.data.data(), p.len, &f, &error)) << error;
  EXPECT_EQ(f.ph, "X");
  EXPECT_EQ(f.name, "a");
  EXPECT_EQ(f.ts, "\"12.5\"");
  EXPECT_EQ(f.dur, "3");
  EXPECT_EQ(f.pid, "\"Spans\"");
  EXPECT_EQ(f.tid, "-1");
  EXPECT_EQ(f.cat, "c");
  EXPECT_EQ(IdKey(f.id), "0x1a");
  EXPECT_EQ(f.arg_step_num, "\"3\"");
  EXPECT_EQ(f.arg_name, "n");
}

TEST(EventParser, RejectsInvalidJson) {
  EventParser parser;
  EventFields f;
  std::string error;
  for (std::string bad : {R"({"ph":"X","a":tru})", R"({"ph":"X","a":[1,}])", R"({"ph":"X","a":01})",
                          R"({"ph":"X","a":"\q"})", "{\"ph\":\"X\",\"a\":\"\xff\"}", R"({"ph" "X"})"}) {
    Padded p(bad);
    EXPECT_FALSE(parser.Parse(p.data.data(), p.len, &f, &error)) << bad;
    EXPECT_FALSE(error.empty());
  }
}

TEST(EventParser, RewriteReplacesIdsAndTimesAndCopiesTheRest) {
  Padded p(R"({"ph":"s","ts":"1.5","pid":"Spans","id":"0x1a","args":{"x":[1,{"y":null}],"s":"q\"r"},"id2":{"global":7,"local":8}})");
  EventParser parser;
  std::unordered_map<std::string, uint64_t> ids{{"0x1a", 41}, {"7", 42}};
  EventRewrite rw;
  rw.pid = 3;
  rw.tid = 9;
  rw.ts_ns = 1594662618873063500;
  rw.ids = &ids;
  std::string out, error;
  ASSERT_TRUE(parser.Rewrite(p.data.data(), p.len, rw, &out, &error)) << error;
  EXPECT_EQ(out,
            R"({"ph":"s","ts":1594662618873063.5,"pid":3,"id":41,"args":{"x":[1,{"y":null}],"s":"q\"r"},)"
            R"("id2":{"global":42,"local":8},"tid":9})");
}

TEST(EventParser, RawControlCharactersAreInvalid) {
  Padded p("{\"ph\":\"i\",\"name\":\"a\tb\"}");
  EventParser parser;
  EventFields f;
  std::string error;
  EXPECT_FALSE(parser.Parse(p.data.data(), p.len, &f, &error));
  EXPECT_FALSE(error.empty());
}

TEST(EventParser, Metrics) {
  Padded p(R"({"Type": "cpu", "Name":"cpu0", "Dimension": "CPUUtilization", "Value":4.76,"NodeId":"algo-1","Timestamp":1591160699.4570894})");
  EventParser parser;
  MetricFields m;
  std::string error;
  ASSERT_TRUE(parser.ParseMetric(p.data.data(), p.len, &m, &error)) << error;
  EXPECT_EQ(m.name, "cpu0");
  EXPECT_EQ(m.dimension, "CPUUtilization");
  EXPECT_EQ(m.node, "algo-1");
  EXPECT_EQ(m.value, "4.76");
  EXPECT_EQ(m.timestamp, "1591160699.4570894");
}

}  // namespace tracemerge
