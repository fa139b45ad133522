// Inputs the fuzzers (tests/fuzz) found, reduced to what they show, so the
// fixes stay fixed without running a fuzzer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gzip.h"
#include "numbers.h"
#include "test_util.h"
#include "tokenizer.h"

namespace tracemerge::test {
namespace {

}  // namespace

// fuzz_tokenizer: a top-level key with no value at the very end made the
// scanner step past the data; TRUNCATED then pointed one byte beyond the file.
TEST(FuzzRegression, TopLevelKeyWithoutValueAtEndReportsAnOffsetInsideTheFile) {
  const std::string data = R"({"Type":      ,  "":)";
  TopLevel top;
  std::vector<Diagnostic> diags;
  ScanTrace(data, ScanLimits{}, &top, [](Span) {}, &diags);
  ASSERT_FALSE(diags.empty());
  for (const Diagnostic& d : diags) EXPECT_LE(d.offset, data.size()) << d.message;
}

TEST(IsPortableNumber, WithinDoubleAnd64BitRange) {
  EXPECT_TRUE(IsPortableNumber("0"));
  EXPECT_TRUE(IsPortableNumber("-9223372036854775808"));
  EXPECT_TRUE(IsPortableNumber("18446744073709551615"));
  EXPECT_TRUE(IsPortableNumber("1.7976931348623157e308"));
  EXPECT_TRUE(IsPortableNumber("1e-400"));  // underflows to 0: fine
  EXPECT_TRUE(IsPortableNumber("123456789012345678901234567890.5"));
  EXPECT_FALSE(IsPortableNumber("-9223372036854775809"));
  EXPECT_FALSE(IsPortableNumber("18446744073709551616"));
  EXPECT_FALSE(IsPortableNumber("123456789012345678901234567890"));
  EXPECT_FALSE(IsPortableNumber("4E253383"));
  EXPECT_FALSE(IsPortableNumber("-1.8e308"));
  EXPECT_FALSE(IsPortableNumber(std::string(400, '9') + ".5"));
  EXPECT_FALSE(IsPortableNumber("1e"));
}

// fuzz_merge: a number the grammar allows but a double cannot hold (found as
// 4E253383 in a TF trace's args) was copied verbatim, and strict readers such
// as simdjson's DOM refused the whole output. Such numbers are kept as strings.
TEST(FuzzRegression, OutOfRangeNumbersInArgsKeepTheOutputReadable) {
  const std::string trace =
      R"([{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1,)"
      R"("args":{"big":4E253383,"huge":18446744073709551616,"tiny":1e-400,"ok":[1.5,-2]}}])";
  MergeResult r = MergeInputs({{"x.json", trace}}, {});
  ASSERT_FALSE(r.report.fatal);
  std::string err;
  auto events = ParseOutput(r.output, &err);
  EXPECT_EQ(err, "") << r.output;
  EXPECT_NE(r.output.find(R"("big":"4E253383","huge":"18446744073709551616","tiny":1e-400,"ok":[1.5,-2])"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.report.sources[0].events_kept, 1u);
}

// The same for system metrics: a counter value out of range drops the line.
TEST(FuzzRegression, OutOfRangeMetricValueDropsTheLine) {
  const std::string lines =
      R"({"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":1e999,"NodeId":"algo-1","Timestamp":1591160699})"
      "\n"
      R"({"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":4.5,"NodeId":"algo-1","Timestamp":1591160700})"
      "\n";
  MergeResult r = MergeInputs({{"j/system/incremental/1/1591160699.algo-1.json", lines}}, {});
  ASSERT_FALSE(r.report.fatal);
  std::string err;
  ParseOutput(r.output, &err);
  EXPECT_EQ(err, "") << r.output;
  EXPECT_EQ(r.report.sources[0].events_kept, 1u);
  EXPECT_EQ(r.report.sources[0].events_dropped, 1u);
  EXPECT_TRUE(HasWarning(r.report, Code::kBadJson));
}

// fuzz_merge: bytes 0xF5–0xFF passed the UTF-8 check of JsonEscape as lead
// bytes of 3-byte sequences, so a damaged top-level key quoted in a warning
// (or a file name) made the output invalid UTF-8. They become U+FFFD now.
// fuzz_merge: Kineto's process_labels ("GPU 1") name a GPU's process; a label cut inside a
// UTF-8 sequence (or a lone surrogate escape) reached the process's name unrepaired.
TEST(FuzzRegression, ProcessLabelsThatAreNotUtf8AreRepairedInTheTrackNames) {
  for (const std::string label : {std::string("GPU \xd1"), std::string("GPU \\ud800")}) {
    const std::string trace = R"({"schemaVersion":1,"traceEvents":[)"
                              R"({"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"python3"}},)"
                              R"({"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":")" + label + R"("}},)"
                              R"({"ph":"X","name":"k","ts":1,"dur":1,"pid":0,"tid":7}]})";
    MergeResult r = MergeInputs({{"h_1.1.pt.trace.json", trace}}, {});
    ASSERT_FALSE(r.report.fatal);
    std::string err;
    const std::vector<OutEvent> events = ParseOutput(r.output, &err);
    EXPECT_EQ(err, "") << label;
    bool named = false;
    for (const OutEvent& e : events) named |= e.name == "process_name" && e.arg_name.find("GPU \xEF\xBF\xBD") != std::string::npos;
    EXPECT_TRUE(named) << "the label, its bad part U+FFFD: " << r.output.substr(0, 400);
  }
}

TEST(FuzzRegression, InvalidUtf8LeadBytesInNamesAndMessagesBecomeReplacementCharacters) {
  const std::string trace = "{\"traceEvents\":[{\"ph\":\"i\",\"ts\":1}],\"k\xfc\x9c\xb0\" ]";
  MergeResult r = MergeInputs({{"dir/\xf8\x88\x80\x80\x80.json", trace}}, {});
  ASSERT_FALSE(r.report.fatal);
  std::string err;
  ParseOutput(r.output, &err);
  EXPECT_EQ(err, "");
  EXPECT_EQ(r.output.find('\xfc'), std::string::npos);
  EXPECT_EQ(r.output.find('\xf8'), std::string::npos);
  EXPECT_NE(r.output.find("\xEF\xBF\xBD"), std::string::npos);
}

// fuzz_merge (UBSan): times are added up in int64 ns — event ts + smdebug
// header, TF sidecar start, offset, ts + dur — and absurd inputs overflowed
// (undefined behaviour). The sums saturate now; the output stays valid.
TEST(FuzzRegression, AbsurdTimesSaturateInsteadOfOverflowing) {
  EXPECT_EQ(AddNs(INT64_MAX - 5, 10), INT64_MAX);
  EXPECT_EQ(AddNs(INT64_MIN + 5, -10), INT64_MIN);
  EXPECT_EQ(AddNs(-5, 10), 5);
  EXPECT_EQ(MicrosToNs(int64_t{1} << 62), INT64_MAX);
  EXPECT_EQ(MicrosToNs(-(int64_t{1} << 62)), INT64_MIN);
  EXPECT_EQ(MicrosToNs(-7), -7000);
  EXPECT_EQ(SubNs(0, INT64_MIN), INT64_MAX);
  EXPECT_EQ(SubNs(INT64_MIN + 5, 10), INT64_MIN);
  EXPECT_EQ(SubNs(5, 10), -5);

  const std::string smdebug =
      R"([{"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":7757657389268714}},)"
      R"({"name":"late","ph":"X","pid":1,"ts":7000000000000000,"dur":9000000000000000}])";
  const std::string tf = R"({"traceEvents":[{"name":"tf","ph":"X","pid":1,"ts":9000000000000000,"dur":1}]})";
  const std::string plain = R"([{"name":"shifted","ph":"X","pid":1,"ts":-9000000000000000,"dur":1}])";
  Options o;
  o.offsets_us = {{"rank-0.json", INT64_MIN}};
  MergeResult r = MergeInputs({{"j/framework/pevents/1/1_n_pythontimeline.json", smdebug},
                               {"j/tf/1/000000000/plugins/profile/d/h.trace.json.gz", tf},
                               {"j/tf/1/000000000/h_999999999999999999_999999999999999999.metadata", ""},
                               {"rank-0.json", plain}},
                              o);
  ASSERT_FALSE(r.report.fatal);
  std::string err;
  ParseOutput(r.output, &err);
  EXPECT_EQ(err, "");
  auto line_of = [&](const std::string& name) {
    size_t at = r.output.find("\"name\":\"" + name + "\"");
    if (at == std::string::npos) return std::string();
    size_t from = r.output.rfind('\n', at), to = r.output.find('\n', at);
    return r.output.substr(from, to - from);
  };
  EXPECT_NE(line_of("late").find("\"ts\":9223372036854775.807"), std::string::npos) << line_of("late");
  EXPECT_NE(line_of("tf").find("\"ts\":9223372036854775.807"), std::string::npos) << line_of("tf");
  EXPECT_NE(line_of("shifted").find("\"ts\":-9223372036854775.808"), std::string::npos) << line_of("shifted");
}

// Found while writing fuzz_merge's seeds (the fuzzer's inputs are too short to
// reach it): metrics lines skip the tokenizer's depth limit, and the event
// parser recursed once per level, so one deeply nested line overflowed the stack.
TEST(FuzzRegression, DeeplyNestedMetricsLineIsDroppedNotACrash) {
  const std::string head =
      R"({"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":4.5,"NodeId":"algo-1","Timestamp":1591160699})";
  const std::string deep = R"({"Name":"x","Value":1,"Timestamp":1591160700,"a":)" + std::string(1000000, '[') +
                           std::string(1000000, ']') + "}";
  MergeResult r = MergeInputs({{"j/system/incremental/1/1591160699.algo-1.json", head + "\n" + deep + "\n" + head + "\n"}}, {});
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(r.report.sources[0].events_kept, 2u);
  EXPECT_EQ(r.report.sources[0].events_dropped, 1u);
  EXPECT_TRUE(HasWarning(r.report, Code::kBadJson));
}

// fuzz_gzip: when an inflate() call filled the output room exactly and the
// input was used up, the bytes zlib still held back (the rest of a match) came
// out only with the next chunk — a truncated file fed whole lost them, fed in
// pieces kept them. Every cut of a stream of long matches, into rooms of every
// size around a match: fed whole, the same bytes as fed a byte at a time.
TEST(FuzzRegression, InflatedBytesDoNotDependOnChunksOrOutputRoom) {
  std::string text;
  for (int i = 0; i < 400; i++) text += "{\"name\":\"step\",\"ph\":\"X\",\"ts\":" + std::to_string(i % 7) + "},";
  const std::string gz = Gzip(text);
  for (size_t cut = 20; cut < gz.size(); cut += 7) {
    const std::string_view stream = std::string_view(gz).substr(0, cut);
    auto inflate = [&](size_t chunk, size_t capacity) {
      Inflater inf(uint64_t{1} << 24);
      ByteBuffer out;
      out.reserve(capacity);
      for (size_t i = 0; i < stream.size(); i += chunk) inf.Feed(stream.substr(i, chunk), out);
      const Status finished = inf.Finish();
      const Diagnostic& problem = finished.error();
      EXPECT_FALSE(finished.ok());  // (cut short)
      EXPECT_EQ(problem.code, Code::kTruncated);
      return std::string(out.view());
    };
    const std::string bytewise = inflate(1, 0);
    EXPECT_EQ(text.compare(0, bytewise.size(), bytewise), 0) << "cut " << cut;
    for (size_t capacity = 1; capacity < 600; capacity += 13)
      ASSERT_EQ(inflate(stream.size(), capacity), bytewise) << "cut " << cut << ", room " << capacity;
  }
}

// fuzz_merge: Kineto's top-level host_name went into process names as it was
// written — the tokenizer skips top-level values unchecked — so a raw control
// byte in it made the output invalid JSON. Now it is read as a JSON string
// (and re-escaped), or left out when it is none.
TEST(FuzzRegression, ATopLevelHostNameIsCheckedBeforeItNamesTracks) {
  for (const std::string host : {std::string("\"a\\u001fb\\\"c\""), std::string("\"a\x1f" "b\""), std::string("7")}) {
    const std::string trace = R"({"traceEvents":[{"ph":"i","ts":1,"pid":1,"tid":1}],"distributedInfo":{"rank":1},"host_name":)" +
                              host + "}";
    const MergeResult r = MergeInputs({{"rank1.json", trace}}, {});
    std::string error;
    ParseOutput(r.output, &error);
    EXPECT_EQ(error, "") << host;
    EXPECT_NE(r.output.find("\"rank 1"), std::string::npos) << host;
  }
}

// fuzz_merge: an event whose ph is a number (400.0) was kept as phase '4';
// Perfetto reads no phase there and refuses it. Now it is dropped as BAD_EVENT.
TEST(FuzzRegression, APhThatIsNotAStringDropsItsEvent) {
  const MergeResult r = MergeInputs({{"a.json", R"([{"ph":400.0,"ts":1,"pid":1},{"ph":"i","ts":2,"pid":1}])"}}, {});
  ASSERT_FALSE(r.report.fatal);
  EXPECT_EQ(r.report.sources[0].events_dropped, 1u);
  EXPECT_EQ(r.report.sources[0].events_kept, 1u);
  EXPECT_EQ(r.report.warnings[0].message, "\"ph\" is not a string; dropped");
}

// Found by fuzz_merge: a tts or tdur that is an object was written as
// "tdur": with no value (invalid JSON); a dur that is an object gave a second
// "dur". Both are kept out or written once, with their notes.
TEST(FuzzRegression, ObjectsWhereNumbersBelongLeaveNoEmptyOrRepeatedKey) {
  const std::string trace =
      R"([{"name":"a","ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"tts":{"x":1},"tdur":[1]},)"
      R"({"name":"f","ph":"X","pid":1,"tid":1,"ts":7,"dur":{}}])";
  MergeResult r = MergeInputs({{"odd.json", trace}}, {});
  std::string err;
  ParseOutput(r.output, &err);
  EXPECT_EQ(err, "");
  EXPECT_EQ(r.output.find("\"tts\""), std::string::npos);
  EXPECT_EQ(r.output.find("\"tdur\""), std::string::npos);
  EXPECT_NE(r.output.find(R"("name":"f","ph":"X","pid":1,"tid":1,"ts":7,"dur":0})"), std::string::npos) << r.output;
  std::string codes;
  for (const Diagnostic& d : r.report.warnings) codes += std::string(CodeName(d.code)) + "@" + std::to_string(d.offset) + " ";
  EXPECT_NE(codes.find("BAD_EVENT@"), std::string::npos) << codes;  // the dur that is not a number
  EXPECT_NE(codes.find("NOTE@1 "), std::string::npos) << codes;     // the tts/tdur left out
}

// Found by fuzz_merge: a source moved back (an offset, --align) took its
// metadata events before 0, where Perfetto drops them and the names they give.
TEST(FuzzRegression, MetadataMovedBackStaysAtZero) {
  const std::string trace =
      R"([{"name":"trace_config","ph":"M","pid":1,"tid":1,"ts":0,"args":{"value":2}},)"
      R"({"name":"step","ph":"X","pid":1,"tid":1,"ts":1000,"dur":5}])";
  Options o;
  o.offsets_us = {{"rank-0.json", -500}};
  MergeResult r = MergeInputs({{"rank-0.json", trace}}, o);
  EXPECT_NE(r.output.find(R"("name":"step","ph":"X","pid":1,"tid":1,"ts":500,)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(R"("ts":-)"), std::string::npos) << r.output;
}

// Found by fuzz_xplane: an XSpace read a plane at a time that stops at a damaged plane counted
// only the bytes read to there as the file's (inflated_bytes), read whole all of them.
TEST(FuzzRegression, AnXSpaceReadInPiecesThatStopsStillCountsTheWholeFile) {
  const std::string plane = std::string("\x12\x09/host:CPU\x1a\x04\x22\x02\x08\x80", 17);  // an event's varint cut
  std::string space = "\x0a\x11" + plane;
  for (int i = 0; i < 20; i++) space += std::string("\x0a\x05\x12\x03" "abc", 7);  // planes after it, never read
  auto report = [&](bool pieces) {
    Options o;
    if (pieces) o.big_input_bytes = 16;  // (read in pieces past 16 bytes held)
    return MergeInputs({{"j/plugins/profile/s/h.xplane.pb", space}}, o, 3).report;
  };
  const Report whole = report(false), pieces = report(true);
  ASSERT_EQ(pieces.sources.size(), 1u);
  EXPECT_EQ(pieces.sources[0].inflated_bytes, space.size());
  EXPECT_EQ(pieces.ToJson(), whole.ToJson());
}

}  // namespace tracemerge::test
