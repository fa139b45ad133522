#include "formats/protobuf.h"

#include <cstring>

namespace tracemerge {

namespace {

// A varint at p (p moves past it): 1 read; 0 cut off at end; -1 longer than 10 bytes.
int ReadVarint(const char*& p, const char* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= end) return 0;
    const auto byte = static_cast<unsigned char>(*p++);
    v |= uint64_t{byte & 0x7fu} << shift;
    if (byte < 0x80) {
      *out = v;
      return 1;
    }
  }
  return -1;
}

}  // namespace

size_t FieldSize(std::string_view b) {
  const char* p = b.data();
  const char* const end = p + b.size();
  auto upto = [&](const char* q) { return static_cast<size_t>(q - b.data()); };
  uint64_t tag = 0, v = 0;
  int k = ReadVarint(p, end, &tag);
  if (k <= 0) return k == 0 ? 0 : b.size();
  switch (tag & 7) {
    case kWireVarint: k = ReadVarint(p, end, &v); return k == 0 ? 0 : k < 0 ? b.size() : upto(p);
    case kWireFixed64: return end - p >= 8 ? upto(p + 8) : 0;
    case kWireFixed32: return end - p >= 4 ? upto(p + 4) : 0;
    case kWireBytes:
      k = ReadVarint(p, end, &v);
      if (k <= 0) return k == 0 ? 0 : b.size();
      return v <= static_cast<uint64_t>(end - p) ? upto(p + v) : 0;
    default: return b.size();
  }
}

bool WireReader::Fail(const char* what) {
  if (error_.empty()) {
    error_ = what;
    error_at_ = field_at_;
  }
  p_ = end_;
  return false;
}

bool WireReader::Varint(uint64_t* out) { return ReadVarint(p_, end_, out) == 1; }

double WireReader::fixed_double() const {
  double d;
  std::memcpy(&d, &value_, sizeof d);
  return d;
}

bool WireReader::Next() {
  if (p_ >= end_) return false;
  field_at_ = at_ + static_cast<uint64_t>(p_ - start_);
  uint64_t tag = 0;
  if (!Varint(&tag)) return Fail("protobuf: a field's tag is cut off or longer than 10 bytes");
  if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff) return Fail("protobuf: a field numbered 0 or beyond 2^29");
  field_ = static_cast<uint32_t>(tag >> 3);
  wire_ = static_cast<WireType>(tag & 7);
  switch (wire_) {
    case kWireVarint:
      if (!Varint(&value_)) return Fail("protobuf: a varint is cut off or longer than 10 bytes");
      return true;
    case kWireFixed64:
    case kWireFixed32: {
      const size_t n = wire_ == kWireFixed64 ? 8 : 4;
      if (static_cast<size_t>(end_ - p_) < n) return Fail("protobuf: a fixed-size value is cut off");
      value_ = 0;
      for (size_t i = 0; i < n; i++) value_ |= uint64_t{static_cast<unsigned char>(p_[i])} << (8 * i);
      p_ += n;
      return true;
    }
    case kWireBytes: {
      uint64_t n = 0;
      if (!Varint(&n)) return Fail("protobuf: a length is cut off");
      if (n > static_cast<uint64_t>(end_ - p_)) return Fail("protobuf: a length runs past the end of its message");
      bytes_ = std::string_view(p_, static_cast<size_t>(n));
      p_ += n;
      return true;
    }
    default:
      return Fail("protobuf: an unknown wire type (groups are not used by this schema)");
  }
}

}  // namespace tracemerge
