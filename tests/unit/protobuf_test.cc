// Protobuf's wire reader (core/formats/protobuf.h): every wire type read in place, each
// field's place in the file, and damage named at its offset, never a read past the bytes.
#include "formats/protobuf.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace tracemerge {
namespace {

TEST(WireReader, ReadsEachWireTypeWithItsPlaceInTheFile) {
  // field 1 varint 300; field 2 bytes {field 3 varint 7}; field 4 fixed64 1.5; field 5 fixed32 9
  std::string msg("\x08\xac\x02" "\x12\x02\x18\x07" "\x21", 8);
  double d = 1.5;
  char le[8];
  std::memcpy(le, &d, 8);
  msg += std::string(le, 8) + std::string("\x2d\x09\x00\x00\x00", 5);
  WireReader r(msg, 1000);
  ASSERT_TRUE(r.Next());
  EXPECT_EQ(r.field(), 1u);
  EXPECT_EQ(r.wire(), kWireVarint);
  EXPECT_EQ(r.varint(), 300u);
  EXPECT_EQ(r.field_at(), 1000u);
  ASSERT_TRUE(r.Next());
  EXPECT_EQ(r.field(), 2u);
  ASSERT_EQ(r.wire(), kWireBytes);
  EXPECT_EQ(r.field_at(), 1003u);
  WireReader inner = r.Message();
  ASSERT_TRUE(inner.Next());
  EXPECT_EQ(inner.field(), 3u);
  EXPECT_EQ(inner.varint(), 7u);
  EXPECT_EQ(inner.field_at(), 1005u);  // its own bytes' place in the file
  EXPECT_FALSE(inner.Next());
  EXPECT_FALSE(inner.failed());
  ASSERT_TRUE(r.Next());
  EXPECT_EQ(r.wire(), kWireFixed64);
  EXPECT_EQ(r.fixed_double(), 1.5);
  ASSERT_TRUE(r.Next());
  EXPECT_EQ(r.wire(), kWireFixed32);
  EXPECT_EQ(r.fixed(), 9u);
  EXPECT_FALSE(r.Next());
  EXPECT_FALSE(r.failed());
}

TEST(WireReader, NeverReadsPastItsBytes) {
  for (const std::string& bad : {std::string("\x0a\x05" "ab", 4), std::string("\x08\xff\xff", 3), std::string("\x0b", 1),
                                 std::string("\x00\x01", 2), std::string(11, '\xff')}) {
    WireReader r(bad, 100);
    while (r.Next()) {
    }
    EXPECT_TRUE(r.failed());
    EXPECT_GE(r.error_at(), 100u);
    EXPECT_LT(r.error_at(), 100u + bad.size());
  }
}

// Whether a field has all come: every wire type, cut at every byte (0: more to come), and
// fields no reader can read (their size: the bytes given, for the reader to say why).
TEST(FieldSize, WholeWhenItsBytesHaveComeUntilThenZero) {
  const std::string varint = "\x08\x96\x01", fixed64 = "\x11" + std::string(8, '\x01'), fixed32 = "\x1d" + std::string(4, '\x02'),
                    bytes = "\x22\x03" "abc", long_bytes = "\x0a\x80\x01" + std::string(128, 'p');
  for (const std::string& field : {varint, fixed64, fixed32, bytes, long_bytes}) {
    EXPECT_EQ(FieldSize(field), field.size());
    EXPECT_EQ(FieldSize(field + "\x08\x01"), field.size()) << "the first field only";
    for (size_t cut = 0; cut < field.size(); cut++) EXPECT_EQ(FieldSize(field.substr(0, cut)), 0u) << cut;
  }
  for (const std::string& bad : {std::string(11, '\xff'), std::string("\x08") + std::string(11, '\x80'),
                                 std::string("\x0b\x01\x02"), std::string("\x0f\x01")}) {  // (groups, wire type 7)
    EXPECT_EQ(FieldSize(bad), bad.size());
    WireReader r(bad, 0);
    EXPECT_FALSE(r.Next());
    EXPECT_TRUE(r.failed()) << "the reader says why";
  }
}

}  // namespace
}  // namespace tracemerge
