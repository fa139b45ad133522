// The ingest stages alone: bytes in (stream.h), parse (parse.h), layout (layout.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "layout.h"
#include "parse.h"
#include "stream.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

SourceBytes Stream(const std::string& path, const std::string& bytes, size_t chunk, uint64_t limit = 1 << 20,
                   bool later = false) {
  SourceStream s(path, 7, limit, later, ByteBuffer(), bytes.size());
  for (size_t at = 0; at < bytes.size(); at += chunk) s.Append(std::string_view(bytes).substr(at, chunk));
  SourceBytes in = std::move(s).End();
  in.Inflate();
  return in;
}

ParsedSource Parse(const std::string& path, const std::string& text, unsigned kinds = kAllKinds) {
  SourceBytes in = Stream(path, text, text.size() + 1);
  EventParser parser;
  ParseLimits limits;
  limits.kinds = kinds;
  return ParseSource(in, limits, parser, nullptr);
}

TEST(Stream, GzipOrNotInAnyChunksGivesTheSameBytes) {
  const std::string text = R"({"traceEvents":[{"ph":"i","ts":1}]})";
  const std::string gz = Gzip(text);
  for (size_t chunk : {1, 2, 7, 1000}) {
    for (bool later : {false, true}) {
      for (const std::string* bytes : {&text, &gz}) {
        SourceBytes in = Stream("a.json", *bytes, chunk, 1 << 20, later);
        EXPECT_EQ(std::string(in.data.data(), in.size), text) << chunk;
        EXPECT_EQ(in.bytes_given, bytes->size());
        EXPECT_EQ(in.arrival, 7u);
        EXPECT_TRUE(in.warnings.empty());
        EXPECT_GE(in.data.size(), in.size + kPad) << "padded for the parsers";
      }
    }
  }
}

// Bytes written into the room are the same as bytes appended: plain, gzip,
// split anywhere, over the limit.
TEST(Stream, BytesWrittenInPlaceEqualBytesAppended) {
  const std::string text = R"({"traceEvents":[{"ph":"i","ts":1},{"ph":"i","ts":2}]})";
  for (const std::string& bytes : {text, Gzip(text)}) {
    for (size_t chunk : {1, 3, 1000}) {
      for (uint64_t limit : {uint64_t{1} << 20, uint64_t{20}}) {
        SourceStream a("a.json", 0, limit, false, ByteBuffer(), 0), b("a.json", 0, limit, false, ByteBuffer(), 0);
        for (size_t at = 0; at < bytes.size(); at += chunk) {
          const std::string_view part = std::string_view(bytes).substr(at, chunk);
          a.Append(part);
          std::memcpy(b.Room(part.size() + 5), part.data(), part.size());  // (room for more than came)
          b.Appended(part.size());
        }
        SourceBytes x = std::move(a).End(), y = std::move(b).End();
        x.Inflate();
        y.Inflate();
        EXPECT_EQ(x.data.view(), y.data.view()) << chunk << " " << limit;
        EXPECT_EQ(x.bytes_given, y.bytes_given);
        EXPECT_EQ(x.warnings.size(), y.warnings.size());
      }
    }
  }
}

TEST(Stream, ChunksAskedForStopAtTheSizeHintSoTheBufferIsNotRegrown) {
  const std::string text = R"({"traceEvents":[)" + std::string(82, ' ') + "]}";  // 100 bytes
  SourceStream s("a.json", 0, uint64_t{1} << 20, false, ByteBuffer(), text.size());
  std::vector<size_t> asked;
  for (size_t at = 0;;) {  // as a reader does: ask, read what there is, say how much came
    const size_t want = s.ChunkSize(64);
    asked.push_back(want);
    const size_t got = std::min(want, text.size() - at);
    if (got == 0) break;
    std::memcpy(s.Room(want), text.data() + at, got);
    s.Appended(got);
    at += got;
  }
  ASSERT_EQ(text.size(), 100u);
  EXPECT_EQ(asked, (std::vector<size_t>{64, 37, 1}));  // the last: to see the end
  std::memcpy(s.Room(1), "\n", 1);  // it grew after all: read on in whole chunks
  s.Appended(1);
  EXPECT_EQ(s.ChunkSize(64), 64u);
  SourceBytes in = std::move(s).End();
  in.Inflate();
  EXPECT_EQ(in.data.view().substr(0, in.size), text + "\n");

  SourceStream none("b.json", 0, uint64_t{1} << 20, false, ByteBuffer(), 0);
  EXPECT_EQ(none.ChunkSize(64), 64u);  // no hint: whole chunks
  SourceStream gz("c.json.gz", 0, uint64_t{1} << 20, false, ByteBuffer(), 10);
  gz.Append(Gzip(text));
  EXPECT_EQ(gz.ChunkSize(64), 64u);  // gzip: its chunks are not the buffer's
}

TEST(Stream, OverTheLimitKeepsTheFirstPartWithAWarning) {
  const std::string text(100, 'x');
  for (const std::string& bytes : {text, Gzip(text)}) {
    SourceBytes in = Stream("a.json", bytes, 9, 40);
    EXPECT_EQ(in.size, 40u);
    ASSERT_EQ(in.warnings.size(), 1u);
    EXPECT_EQ(in.warnings[0].code, Code::kTooLarge);
    EXPECT_EQ(in.warnings[0].file, "a.json");
  }
}

// Records of 3 to 40 bytes ("<length byte><bytes>"), read as they come: the stream holds
// at most one record and a chunk, never the file, and reads a file far over its limit whole;
// a record over the limit is said, with the records before it read.
class LengthRecords final : public Pieces {
 public:
  size_t Take(std::string_view bytes, uint64_t at) override {
    EXPECT_EQ(at, taken);
    held = std::max(held, bytes.size());
    size_t done = 0;
    while (done < bytes.size() && done + 1 + static_cast<unsigned char>(bytes[done]) <= bytes.size())
      done += 1 + static_cast<unsigned char>(bytes[done]);
    taken += done;
    return done;
  }
  uint64_t taken = 0;
  size_t held = 0;
};

TEST(Stream, ARecordsSourceHoldsOneRecordAtATimeNotTheFile) {
  std::string file;
  for (int i = 0; file.size() < 5000; i++) file += std::string(1, static_cast<char>(2 + i % 39)) + std::string(2 + i % 39, 'r');
  for (size_t chunk : {1, 7, 64}) {
    SCOPED_TRACE(chunk);
    LengthRecords* records = nullptr;
    SourceStream s("x.rec", 0, /*limit=*/100, false, ByteBuffer(), file.size());
    s.SetPieces(50, [&](const SourceBytes& in) {
      EXPECT_GT(in.data.size(), 50u);
      auto r = std::make_unique<LengthRecords>();
      records = r.get();
      return std::unique_ptr<Pieces>(std::move(r));
    });
    for (size_t at = 0; at < file.size(); at += chunk) s.Append(std::string_view(file).substr(at, chunk));
    SourceBytes in = std::move(s).End();
    ASSERT_NE(records, nullptr);
    EXPECT_TRUE(in.warnings.empty()) << in.warnings[0].message;
    EXPECT_EQ(records->taken + in.data.size(), file.size());
    EXPECT_EQ(in.data.size(), 0u) << "every record whole, taken";
    EXPECT_LE(records->held, 100u) << "the limit, not the file's 5000 bytes";
  }
  // A record of 200 bytes: over the limit from its first byte on.
  size_t whole = 0;  // the first 1000-odd bytes' whole records
  while (whole < 1000) whole += 1 + static_cast<unsigned char>(file[whole]);
  const std::string big = file.substr(0, whole) + std::string(1, static_cast<char>(200)) + std::string(200, 'b');
  SourceStream s("x.rec", 0, 100, false, ByteBuffer(), big.size());
  s.SetPieces(50, [](const SourceBytes&) { return std::unique_ptr<Pieces>(std::make_unique<LengthRecords>()); });
  s.Append(big);
  SourceBytes in = std::move(s).End();
  ASSERT_EQ(in.warnings.size(), 1u);
  EXPECT_EQ(in.warnings[0].code, Code::kTooLarge);
  EXPECT_EQ(in.taken, whole);
  EXPECT_EQ(in.warnings[0].offset, whole + 100);
  EXPECT_NE(in.warnings[0].message.find("a record from byte " + std::to_string(whole) + " on"), std::string::npos)
      << in.warnings[0].message;
}

// A source that does not read in pieces (the opener says null) is held whole, as before.
TEST(Stream, ASourceNotOfRecordsIsHeldWhole) {
  const std::string text(300, 'x');
  int asked = 0;
  SourceStream s("a.json", 0, 1000, false, ByteBuffer(), text.size());
  s.SetPieces(50, [&](const SourceBytes&) { return asked++, std::unique_ptr<Pieces>(); });
  for (size_t at = 0; at < text.size(); at += 10) s.Append(std::string_view(text).substr(at, 10));
  SourceBytes in = std::move(s).End();
  EXPECT_EQ(asked, 1) << "asked once";
  EXPECT_EQ(in.data.size(), 300u);
}

// The gzip length field is the file's word: believed up to what deflate can
// inflate the file's bytes to (1032×), never a size to reserve as it says.
TEST(Stream, AGzipLengthFieldIsAHintWithinWhatDeflateCanInflate) {
  const std::string text(1 << 20, 'a');  // deflate's best case: ~1000×
  const std::string gz = Gzip(text);
  EXPECT_EQ(GzipSizeHint(gz.substr(0, 2), gz.substr(gz.size() - 4), gz.size()), text.size());
  std::string forged = Gzip("[{\"ph\":\"i\",\"ts\":1}]");
  forged.replace(forged.size() - 4, 4, std::string("\x00\x00\x00\xF0", 4));  // 0xF0000000: 4 GB
  EXPECT_EQ(GzipSizeHint(forged.substr(0, 2), forged.substr(forged.size() - 4), forged.size()), forged.size() * 1032);
  EXPECT_EQ(GzipSizeHint("[{", "}]\n\n", 500), 500u) << "not gzip: its size";
}

TEST(Stream, ACutGzipKeepsWhatInflatedAndSaysWhere) {
  std::string gz = Gzip(std::string(5000, 'a'));
  gz.resize(gz.size() / 2);
  SourceBytes in = Stream("a.json.gz", gz, 3);
  ASSERT_EQ(in.warnings.size(), 1u);
  EXPECT_EQ(in.warnings[0].code, Code::kTruncated);
  EXPECT_NE(in.warnings[0].message.find("compressed offset"), std::string::npos);
}

TEST(Parse, EventsTablesAndMarksOfATrace) {
  ParsedSource s = Parse("r/rank-0.json", R"({"traceEvents":[
      {"ph":"M","name":"process_name","pid":7,"args":{"name":"trainer"}},
      {"ph":"X","name":"ProfilerStep#3","ts":5,"dur":2,"pid":7,"tid":1},
      {"ph":"b","cat":"c","id":"0x1","ts":6,"pid":7,"tid":1},
      {"ph":"X","ts":"bad","pid":7,"tid":1}],"baseTimeNanoseconds":1000})");
  EXPECT_TRUE(s.report.included);
  EXPECT_EQ(s.report.kind, Kind::kOther);
  EXPECT_EQ(s.report.events_read, 4u);
  EXPECT_EQ(s.report.events_dropped, 1u);
  EXPECT_EQ(s.report.metadata_merged, 1u);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0].ts, 5000);
  EXPECT_EQ(s.events[0].dur, 2000);
  EXPECT_EQ(s.procs.size(), 1u);
  EXPECT_EQ(s.procs[0].name, "trainer");
  EXPECT_EQ(s.steps, (Marks{{3, 0}}));
  EXPECT_EQ(s.step_kind, StepKind::kProfilerStep);
  EXPECT_TRUE(s.has_pairs);
  EXPECT_EQ(s.id_count, 1u);
  EXPECT_EQ(s.said.base_time, "1000");
  EXPECT_EQ(s.cls.format, FormatId::kKineto) << "a trace whose keys say Kineto is Kineto's";
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0].code, Code::kBadEvent);
  EXPECT_EQ(s.warnings[0].file, "r/rank-0.json");
}

TEST(Parse, TooLongStringsAreTooLargeByTheParsersWordNotItsMessage) {
  SourceBytes in = Stream("a.json", R"([{"ph":"i","ts":1,"name":")" + std::string(100, 'n') + R"("}])", 5);
  EventParser parser;
  parser.set_max_string(10);
  ParsedSource s = ParseSource(in, ParseLimits(), parser, nullptr);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0].code, Code::kTooLarge);
  EXPECT_EQ(parser.error_kind(), ParseError::kStringTooLong);
}

TEST(Parse, SkippedFilteredAndMetricsSources) {
  EXPECT_FALSE(Parse("p/x.pb", "\x08\x01").report.included);
  EXPECT_EQ(Parse("a.json", "[]", KindBit(Kind::kSystem)).report.note, "filtered out (kind not selected)");
  ParsedSource m = Parse("j/system/incremental/1/1591160699.algo-1.json",
                         R"({"Name":"cpu0","Dimension":"CPUUtilization","Value":4.5,"NodeId":"algo-1","Timestamp":1591160699.5})"
                         "\n{\"Name\":\"cpu0\",\"Dim");
  EXPECT_EQ(m.report.kind, Kind::kSystem);
  ASSERT_EQ(m.events.size(), 1u);
  EXPECT_EQ(m.events[0].ts, 1591160699500000000);
  EXPECT_EQ(m.report.events_dropped, 1u);  // the broken last line, a note
  EXPECT_EQ(m.warnings[0].code, Code::kNote);
}

TEST(Layout, AnOutOfOrderSourceIsPutInTimeOrderUnlessPairsNeedItsFileOrder) {
  for (bool pairs : {false, true}) {
    const std::string e = pairs ? R"({"ph":"B","ts":30,"pid":1},{"ph":"E","ts":10,"pid":1},{"ph":"i","ts":20,"pid":1})"
                                : R"({"ph":"i","ts":30,"pid":1},{"ph":"i","ts":10,"pid":1,"args":{"step_num":1}},{"ph":"i","ts":20,"pid":1})";
    ParsedSource s = Parse("j/framework/pevents/1/1_n_pythontimeline.json", "[" + e + "]");
    ByteBuffer input;
    input.append("spare input");
    Budget budget(UINT64_MAX, nullptr);
    LayOut(s, input, budget);
    std::vector<int64_t> ts;
    for (const Event& ev : s.events) ts.push_back(ev.ts / 1000);
    EXPECT_EQ(ts, pairs ? (std::vector<int64_t>{30, 10, 20}) : (std::vector<int64_t>{10, 20, 30}));
    if (!pairs) {
      EXPECT_EQ(s.steps, (Marks{{1, 0}})) << "marks follow their event";
      EXPECT_NE(s.arena.view().substr(s.events[0].offset, s.events[0].length).find("step_num"), std::string::npos);
    }
    EXPECT_EQ(input.capacity(), 0u) << "the input buffer is recycled";
    EXPECT_GT(budget.TakeSpare().capacity(), 0u);
  }
}

}  // namespace
}  // namespace tracemerge::test
