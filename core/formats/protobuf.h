// Protobuf's wire format, read in place and never past the end of its bytes:
// what the XPlane module (xplane.cc) needs, ~80 lines instead of a library
// (protozero would do the same; this one also says where the bytes went wrong).
// A message is a run of fields (tag varint: number << 3 | wire type); the
// reader descends only into the messages its caller knows, so nesting is
// bounded by the schema, whatever the bytes say.
//
//   WireReader r(bytes, /*at=*/0);
//   while (r.Next()) {
//     if (r.field() == 2 && r.wire() == kWireBytes) name = r.bytes();
//     else if (r.field() == 3 && r.wire() == kWireBytes) ReadLine(r.Message());
//   }
//   if (r.failed()) Warn(r.error_at(), r.error());   // truncated varint, length past the end, …
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tracemerge {

enum WireType : uint8_t { kWireVarint = 0, kWireFixed64 = 1, kWireBytes = 2, kWireFixed32 = 5 };

// How many bytes the first field of `b` takes, once they have all come: 0 while
// b ends inside it (more may come). A field that is not well formed (a tag or a
// varint over 10 bytes, a wire type this schema does not use) counts to b's end:
// reading it says what is wrong.
size_t FieldSize(std::string_view b);

class WireReader {
 public:
  // bytes: one message; at: the offset of its first byte in the file (for errors).
  WireReader(std::string_view bytes, uint64_t at) : p_(bytes.data()), end_(bytes.data() + bytes.size()), at_(at), start_(bytes.data()) {}

  // The next field; false at the end of the message or on damage (failed()).
  bool Next();
  uint32_t field() const { return field_; }
  WireType wire() const { return wire_; }
  uint64_t varint() const { return value_; }         // kWireVarint (int64 fields: cast)
  uint64_t fixed() const { return value_; }          // kWireFixed64 / kWireFixed32, little-endian
  double fixed_double() const;                       // kWireFixed64 as a double
  std::string_view bytes() const { return bytes_; }  // kWireBytes
  // The kWireBytes field as a message of its own.
  WireReader Message() const { return WireReader(bytes_, at_ + static_cast<uint64_t>(bytes_.data() - start_)); }
  // Where the current field starts, in the file.
  uint64_t field_at() const { return field_at_; }

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  uint64_t error_at() const { return error_at_; }

 private:
  bool Varint(uint64_t* out);
  bool Fail(const char* what);
  const char* p_;
  const char* end_;
  uint64_t at_;        // file offset of start_
  const char* start_;  // the message's first byte
  uint32_t field_ = 0;
  WireType wire_ = kWireVarint;
  uint64_t value_ = 0;
  std::string_view bytes_;
  uint64_t field_at_ = 0;
  std::string error_;
  uint64_t error_at_ = 0;
};

}  // namespace tracemerge
