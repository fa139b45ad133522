#include "numbers.h"
#include "event_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace tracemerge {
namespace {

// The parser needs readable padding after the event, as the source buffers have.
struct Padded {
  explicit Padded(std::string s) : len(s.size()), data(s + std::string(simdjson::SIMDJSON_PADDING, ' ')) {}
  size_t len;
  std::string data;
};

// One event parsed with its template; the fields point into the Padded text.
struct Parsed {
  bool ok = false;
  EventFields f;
  IdTable ids;
  ByteBuffer tpl;
  std::string error;
};
Parsed ParseWithTemplate(EventParser& parser, const Padded& p) {
  Parsed r;
  r.ok = parser.Parse(p.data.data(), p.len, &r.f, &r.error, &r.tpl, &r.ids);
  return r;
}

// One random edit of ev (not empty): a byte of `alphabet` replaces, joins or a byte goes.
void Mutate(std::string& ev, const std::string& alphabet, std::mt19937& rng) {
  const size_t at = rng() % ev.size();
  const char c = alphabet[rng() % alphabet.size()];
  switch (rng() % 3) {
    case 0: ev[at] = c; break;
    case 1: ev.insert(ev.begin() + at, c); break;
    default: ev.erase(at, 1);
  }
}

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
  EXPECT_EQ(f.dur_ns, 3000);
  EXPECT_EQ(f.pid, "\"Spans\"");
  EXPECT_EQ(f.tid, "-1");
  EXPECT_EQ(f.cat, "c");
  EXPECT_EQ(IdKey(f.id), "0x1a");
  EXPECT_EQ(f.arg(ArgKey::kStepNum), "\"3\"");
  EXPECT_EQ(f.arg(ArgKey::kName), "n");
}

TEST(EventParser, RejectsInvalidJson) {
  EventParser parser;
  EventFields f;
  std::string error;
  for (std::string bad : {R"({"ph":"X","a":tru})", R"({"ph":"X","a":[1,}])", R"({"ph":"X","a":01})",
                          R"({"ph":"X","a":"\q"})", R"({"ph" "X"})",
                          R"({"a":-})", R"({"a":1.})", R"({"a":.5})", R"({"a":1e})", R"({"a":+1})", R"({"a":1.5.3})",
                          R"({"a":nul})", R"({"a":"\u12"})", R"({"a":"open})", R"({"a":1} x)", R"({"a":1,})",
                          R"([1])", R"({"a":{"b":1})", R"({"a" :1 "b":2})", "{\"a\":1,\xff}"}) {
    Padded p(bad);
    EXPECT_FALSE(parser.Parse(p.data.data(), p.len, &f, &error)) << bad;
    EXPECT_FALSE(error.empty());
  }
}

TEST(EventParser, SaysWhereTheEventGoesWrong) {
  EventParser parser;
  EventFields f;
  std::string error;
  Padded p(R"({"ph":"X", "args":{"a":[1, 2, tru]}})");
  ASSERT_FALSE(parser.Parse(p.data.data(), p.len, &f, &error));
  EXPECT_EQ(error, "invalid literal");
  EXPECT_EQ(parser.error_offset(), p.data.find("tru"));
}

TEST(EventParser, KeepsNumbersStrictReadersRefuseAsStrings) {
  Padded p(R"({"a":-0,"b":1E+5,"c":1e400,"d":18446744073709551616,"e":-9223372036854775808,"f":0.5e-3})");
  EventParser parser;
  Parsed r = ParseWithTemplate(parser, p);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.tpl.view(), "{\"a\":-0,\"b\":1E+5,\"c\":\"1e400\",\"d\":\"18446744073709551616\","
                        "\"e\":-9223372036854775808,\"f\":0.5e-3,\"pid\":\x01,\"tid\":\x02}");
}

// Against simdjson's DOM on mutated events: the same events are valid, and a
// valid event's template is its minified text (plus the pid and tid marks).
// Bytes that are not UTF-8 inside strings: the event is kept, those bytes written as U+FFFD
// (kBadUtf8); outside strings they stay an error (above).
TEST(EventParser, BytesThatAreNotUtf8InStringsBecomeReplacementCharacters) {
  EventParser parser;
  EventFields f;
  std::string error;
  Padded p("{\"ph\":\"X\",\"a\":\"\xff\",\"b\xc3\x28\":\"ok\xf0\x9f\x98\x80\"}");
  ByteBuffer tpl;
  ASSERT_TRUE(parser.Parse(p.data.data(), p.len, &f, &error, &tpl)) << error;
  EXPECT_TRUE(f.converted & kBadUtf8);
  const std::string_view want = "{\"ph\":\"X\",\"a\":\"\xEF\xBF\xBD\",\"b\xEF\xBF\xBD(\":\"ok\xf0\x9f\x98\x80\",";
  EXPECT_EQ(tpl.view().substr(0, want.size()), want);
}

TEST(EventParser, AgreesWithSimdjsonOnMutatedEvents) {
  const std::string seeds[] = {
      R"({"name": "a\"b\u00e9", "cat": "c", "args": {"x": [1, -2.5e3, true, null, {"y": "z"}], "s": "\n"}})",
      R"({ "k" : [ [ ] , { } , "" , 0 , -0.0 , 1E-2 ] , "\u20ac" : false })",
      "{\"utf\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"n\":123456789012345678}",
  };
  const std::string alphabet = "{}[]\":,\\ -+.0123456789eEtrufalsn\x01\x80\xc3\xa9u";
  std::mt19937 rng(5);
  simdjson::dom::parser dom;
  EventParser parser;
  int valid = 0, invalid = 0;
  for (int round = 0; round < 20000; round++) {
    std::string ev = seeds[round % 3];
    for (int m = rng() % 3; m >= 0; m--) Mutate(ev, alphabet, rng);
    simdjson::dom::element doc;
    // (bytes that are not UTF-8 in strings are written as U+FFFD here, where simdjson fails: it
    // reads the text with those bytes replaced, which fails exactly where they were outside strings)
    bool repaired = false;
    const std::string text = WithValidUtf8(ev, &repaired);
    const auto dom_error = dom.parse(text).get(doc);
    if (dom_error == simdjson::NUMBER_ERROR || dom_error == simdjson::BIGINT_ERROR) continue;  // kept as strings here
    const bool dom_ok = !dom_error && doc.is_object();
    Padded p(ev);
    Parsed r = ParseWithTemplate(parser, p);
    ASSERT_EQ(r.ok, dom_ok) << ev << "\n" << r.error;
    if (!r.ok) {
      invalid++;
      EXPECT_LE(parser.error_offset(), ev.size()) << ev;
      continue;
    }
    valid++;
    std::string minified(text.size(), ' ');  // the text, without whitespace outside strings
    size_t minified_len = 0;
    ASSERT_FALSE(simdjson::minify(text.data(), text.size(), minified.data(), minified_len));
    minified.resize(minified_len);
    const std::string marks = minified == "{}" ? "\"pid\":\x01,\"tid\":\x02}" : ",\"pid\":\x01,\"tid\":\x02}";
    minified.insert(minified.size() - 1, marks.substr(0, marks.size() - 1));
    if (ev.find("\"name\"") == std::string::npos && ev.find("\"cat\"") == std::string::npos)
      EXPECT_EQ(r.tpl.view(), minified) << ev;
  }
  EXPECT_GT(valid, 1000);
  EXPECT_GT(invalid, 1000);
}

TEST(EventParser, TemplateMarksWhatTheMergeFillsInAndCopiesTheRest) {
  Padded p(R"({"ph":"s", "ts":"1.5","pid":"Spans","id":"0x1a","dur":-3,"args":{"x":[1, {"y":null}],"s":"q\"r"},)"
           R"("id2":{"global":7,"local":8},"bind_id":"0x1a"})");
  EventParser parser;
  Parsed r = ParseWithTemplate(parser, p);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.tpl.view(),
            "{\"ph\":\"s\",\"ts\":\x03,\"pid\":\x01,\"id\":\x04" "1\x05,\"dur\":0,"
            "\"args\":{\"x\":[1,{\"y\":null}],\"s\":\"q\\\"r\"},\"id2\":{\"global\":\x04" "2\x05,\"local\":8},"
            "\"bind_id\":\x06" "1\x05,\"tid\":\x02}");
  EXPECT_EQ(r.ids.size(), 2u);
  EXPECT_EQ(r.f.dur, "-3");
  EXPECT_EQ(r.f.dur_ns, -1);  // negative: the merge warns
}

TEST(EventParser, RawControlCharactersAreInvalid) {
  Padded p("{\"ph\":\"i\",\"name\":\"a\tb\"}");
  EventParser parser;
  EventFields f;
  std::string error;
  EXPECT_FALSE(parser.Parse(p.data.data(), p.len, &f, &error));
  EXPECT_FALSE(error.empty());
}

// A flat record's tokens by the caller's keys (system metrics' lines are read so).
TEST(EventParser, RecordTokensByTheCallersKeys) {
  Padded p(R"({"Type": "cpu", "Name":"cpu0", "Dimension": "CPUUtilization", "Value":4.76,"NodeId":"algo-1","Timestamp":1591160699.4570894,"Name":"cpu1","x":{"Value":1}})");
  EventParser parser;
  const std::string_view keys[] = {"Name", "Value", "Timestamp", "Missing"};
  std::string_view t[4] = {"stale", "stale", "stale", "stale"};
  std::string error;
  ASSERT_TRUE(parser.ParseRecord(p.data.data(), p.len, keys, 4, t, &error)) << error;
  EXPECT_EQ(t[0], "\"cpu1\"");  // the last of a repeated key; a nested one is not the record's
  EXPECT_EQ(t[1], "4.76");
  EXPECT_EQ(t[2], "1591160699.4570894");
  EXPECT_EQ(t[3], "");
  Padded bad(R"({"Name":"cpu0",})");
  EXPECT_FALSE(parser.ParseRecord(bad.data.data(), bad.len, keys, 4, t, &error));
  EXPECT_FALSE(error.empty());
}

// The depth limit (the line itself is level 1) holds for metrics lines too,
// which no tokenizer checks first, and the error names it.
TEST(EventParser, DepthLimit) {
  EventParser parser;
  parser.set_max_depth(3);
  const std::string_view keys[] = {"Name"};
  std::string_view t[1];
  std::string error;
  Padded ok(R"({"Name":"a","x":[[1]]})"), deep(R"({"Name":"a","x":[[[1]]]})");
  EXPECT_TRUE(parser.ParseRecord(ok.data.data(), ok.len, keys, 1, t, &error)) << error;
  EXPECT_FALSE(parser.ParseRecord(deep.data.data(), deep.len, keys, 1, t, &error));
  EXPECT_EQ(error, "nested deeper than 3 levels");
  EXPECT_EQ(parser.error_offset(), deep.data.find("[1]"));
  // In events, args and id2 (read apart from other values) count the same way.
  EventFields f;
  for (const char* ok_event : {R"({"args":{"x":[1]}})", R"({"id2":{"local":[2]}})", R"({"x":[[1]]})"}) {
    Padded p(ok_event);
    EXPECT_TRUE(parser.Parse(p.data.data(), p.len, &f, &error)) << ok_event << ": " << error;
  }
  for (const char* deep_event : {R"({"args":{"x":[[1]]}})", R"({"id2":{"local":[[2]]}})", R"({"x":[[[1]]]})"}) {
    Padded p(deep_event);
    EXPECT_FALSE(parser.Parse(p.data.data(), p.len, &f, &error)) << deep_event;
  }
}

}  // namespace tracemerge

#include "tokenizer.h"

namespace tracemerge {
namespace {

// What the scan made of each event: where, whether it parsed, and its template
// or its error and where the error is.
using Outcome = std::tuple<uint64_t, bool, std::string, size_t>;

// Reading each event without knowing its end (ScanTrace's read_event, the
// merge's way) gives what reading the span the tokenizer found gives: the same
// events, templates, errors at the same bytes, diagnostics — and only events
// that really are bad fall back to the span.
TEST(EventParser, ReadingWithoutTheEndAgreesWithReadingTheSpan) {
  const std::string seeds[] = {
      R"({"name": "a\"b", "ph":"X", "args": {"x": [1, -2.5e3, true, null, {"y": "z"}], "s": "\n"}, "id": 3})",
      R"({ "k" : [ [ ] , { } , "" , 0 , -0.0 , 1E-2 ] , "ts" : 5 })",
      R"({"a":{"b":{"c":[[1]]}}})",
      R"({ })",
  };
  const std::string alphabet = "{}[]\":,\\ -+.0123456789eEtrufalsn\x01";
  std::mt19937 rng(9);
  int fell_back = 0, read = 0;
  for (int round = 0; round < 3000; round++) {
    std::string doc = "[";
    for (int n = 1 + rng() % 8; n > 0; n--) {
      std::string ev = seeds[rng() % 4];
      for (int m = static_cast<int>(rng() % 3) - 1; m >= 0 && !ev.empty(); m--)  // a third stay intact
        Mutate(ev, alphabet, rng);
      doc += ev + (n > 1 ? ", " : "");
    }
    if (rng() % 4) doc += "]";  // else unclosed, or cut inside the last event:
    else doc.resize(doc.size() - rng() % std::min<size_t>(10, doc.size()));
    const Padded p(doc);
    const std::string_view d(p.data.data(), p.len);
    ScanLimits limits;
    limits.max_depth = 2 + rng() % 5;  // some events are too deep
    // The span's parser needs no depth limit (the tokenizer has applied it);
    // the one reading without the end applies it itself.
    EventParser parser, open_parser;
    open_parser.set_max_depth(limits.max_depth);
    auto bounded = [&](std::vector<Outcome>* out, Span sp) {
      EventFields f;
      std::string error;
      ByteBuffer tpl;
      IdTable ids;
      const bool ok = parser.Parse(d.data() + sp.offset, sp.length, &f, &error, &tpl, &ids);
      out->push_back({sp.offset, ok, ok ? std::string(tpl.view()) : error, ok ? 0 : parser.error_offset()});
      return ok;
    };
    std::vector<Outcome> spans, open;
    std::vector<Diagnostic> span_diags, open_diags;
    TopLevel top;
    const bool span_ok = ScanTrace(d, limits, &top, [&](Span sp) { bounded(&spans, sp); }, &span_diags);
    const bool open_ok = ScanTrace(
        d, limits, &top,
        [&](Span sp) {
          fell_back++;
          EXPECT_FALSE(bounded(&open, sp)) << "a good event fell back: " << d.substr(sp.offset, sp.length);
        },
        &open_diags,
        [&](uint64_t at) -> uint64_t {
          EventFields f;
          std::string error;
          ByteBuffer tpl;
          IdTable ids;
          size_t length = 0;
          if (!open_parser.Parse(d.data() + at, d.size() - at, &f, &error, &tpl, &ids, &length)) return 0;
          read++;
          open.push_back({at, true, std::string(tpl.view()), 0});
          return at + length;
        });
    EXPECT_EQ(span_ok, open_ok) << doc;
    EXPECT_EQ(spans, open) << doc;
    ASSERT_EQ(span_diags.size(), open_diags.size()) << doc;
    for (size_t k = 0; k < span_diags.size(); k++) {
      EXPECT_EQ(span_diags[k].offset, open_diags[k].offset) << doc;
      EXPECT_EQ(span_diags[k].message, open_diags[k].message) << doc;
    }
  }
  EXPECT_GT(read, 1000);
  EXPECT_GT(fell_back, 1000);
}

}  // namespace
}  // namespace tracemerge
