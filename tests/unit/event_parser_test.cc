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

TEST(EventParser, TemplateMarksWhatTheMergeFillsInAndCopiesTheRest) {
  Padded p(R"({"ph":"s", "ts":"1.5","pid":"Spans","id":"0x1a","dur":-3,"args":{"x":[1, {"y":null}],"s":"q\"r"},)"
           R"("id2":{"global":7,"local":8},"bind_id":"0x1a"})");
  EventParser parser;
  EventFields f;
  IdTable ids;
  ByteBuffer tpl;
  std::string error;
  ASSERT_TRUE(parser.Parse(p.data.data(), p.len, &f, &error, &tpl, &ids)) << error;
  EXPECT_EQ(tpl.view(),
            "{\"ph\":\"s\",\"ts\":\x03,\"pid\":\x01,\"id\":\x04" "1\x05,\"dur\":0,"
            "\"args\":{\"x\":[1,{\"y\":null}],\"s\":\"q\\\"r\"},\"id2\":{\"global\":\x04" "2\x05,\"local\":8},"
            "\"bind_id\":\x04" "1\x05,\"tid\":\x02}");
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(f.dur, "-3");
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
