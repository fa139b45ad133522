// A strict JSON reader over one event's bytes that writes what it reads,
// compact, into an output buffer (event_parser.cc builds templates with it):
// one pass that validates the grammar, escapes and UTF-8 (simdjson's
// validator) and copies. Strings 16 bytes at a time; numbers that a double or
// int64 cannot hold are written as strings, so that strict readers accept
// the output.
//
//   Reader r{p, p, p + n, &out, max_string, max_depth, {}, 0};
//   r.Fields([&](std::string_view raw_key, std::string_view key) { … r.Value(1) … });
//   → out holds the object compact; r.error / r.error_at when it is not valid
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "buffer.h"
#include "numbers.h"
#include "simdjson.h"

namespace tracemerge {
namespace json_reader {

// Values recurse: this bound (whatever set_max_depth asks) keeps a line of a
// million '[' from overflowing the stack.
constexpr int kMaxNesting = 1024;

inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsNumberByte(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// Bits of the bytes among the 16 at p that end a plain run of string bytes
// ('"', '\\', control bytes), and in *high those of non-ASCII bytes.
inline uint32_t StringStops(const char* p, uint32_t* high) {
#if defined(__SSE2__)
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i stop = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
      _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f)));
  *high = static_cast<uint32_t>(_mm_movemask_epi8(x));
  return static_cast<uint32_t>(_mm_movemask_epi8(stop));
#else
  uint32_t stops = 0;
  *high = 0;
  for (int k = 0; k < 16; k++) {
    const auto c = static_cast<unsigned char>(p[k]);
    if (c == '"' || c == '\\' || c < 0x20) stops |= 1u << k;
    if (c >= 0x80) *high |= 1u << k;
  }
  return stops;
#endif
}

// One pass over the JSON text [p, end): validates it and, into *out, writes it
// compact. The text must stay readable 16 bytes past end (the input is padded).
struct Reader {
  const char* const begin;
  const char* p;
  const char* const end;
  ByteBuffer* out;
  size_t max_string;
  int max_depth;  // levels allowed; a container read by Value(depth) is level depth + 1
  std::string error;
  size_t error_at = 0;
  bool too_long = false;
  bool surrogate = false;  // a \uD800–\uDFFF escape was read (Perfetto refuses those: see FixSurrogates)
  bool repair_utf8 = false;  // invalid UTF-8 in a string is kept (and said in bad_utf8), not an error
  bool bad_utf8 = false;     // such a string was read: the caller writes it as valid (WithValidUtf8)

  bool Fail(const char* what) {
    error = what;
    error_at = static_cast<size_t>(p - begin);
    return false;
  }
  bool TooDeep() {
    Fail("");
    error = "nested deeper than " + std::to_string(max_depth) + " levels";
    return false;
  }
  void SkipSpace() {
    while (p < end && IsSpace(*p)) p++;
  }
  // Skips whitespace, then consumes `c` when it comes next.
  bool Take(char c) {
    SkipSpace();
    if (p < end && *p == c) {
      p++;
      return true;
    }
    return false;
  }

  // Tokens are returned, not written through a pointer: kept in registers,
  // they avoid a store-forwarding stall per value. "" means failure (no valid
  // string or number token is empty).

  // The string at p, as its token (quotes included).
  std::string_view String() {
    if (p >= end || *p != '"') return Fail("expected a string"), std::string_view();
    const char* q = p + 1;
    uint32_t high = 0;
    for (;;) {
      uint32_t h;
      const uint32_t stops = StringStops(q, &h);
      if (!stops) {
        high |= h;
        q += 16;
        if (q >= end) return Fail("unterminated string"), std::string_view();
        continue;
      }
      const int k = __builtin_ctz(stops);
      high |= h & ((1u << k) - 1);
      q += k;
      if (q >= end) return Fail("unterminated string"), std::string_view();
      if (*q == '"') break;
      if (*q == '\\') {
        const char e = q + 1 < end ? q[1] : '\0';
        if (e == 'u') {
          if (q + 5 >= end || !IsHex(q[2]) || !IsHex(q[3]) || !IsHex(q[4]) || !IsHex(q[5])) {
            p = q;
            return Fail("bad \\u escape in string"), std::string_view();
          }
          surrogate |= (q[2] == 'd' || q[2] == 'D') && ((q[3] >= '8' && q[3] <= '9') || (q[3] | 0x20) >= 'a');
          q += 6;
        } else if (e && std::strchr("\"\\/bfnrt", e)) {
          q += 2;
        } else {
          p = q;
          return Fail("bad escape in string"), std::string_view();
        }
        continue;
      }
      p = q;
      return Fail("raw control character in string"), std::string_view();
    }
    const size_t len = static_cast<size_t>(q - p - 1);
    if (len > max_string) {
      Fail("");
      error = "string longer than the limit (" + std::to_string(max_string) + " bytes)";
      too_long = true;
      return {};
    }
    if (high && !simdjson::validate_utf8(p + 1, len)) {
      if (!repair_utf8) return Fail("string is not valid UTF-8"), std::string_view();
      bad_utf8 = true;
    }
    const std::string_view tok(p, len + 2);
    p = q + 1;
    return tok;
  }

  // Any value, written to out (numbers a double or int64 cannot hold as
  // strings, so that strict readers accept the output too). *scalar, when
  // given, receives the token of a string, number or literal ("" otherwise).
  bool Value(int depth, std::string_view* scalar = nullptr) {
    SkipSpace();
    if (p >= end) return Fail("value expected");
    std::string_view tok;
    switch (*p) {
      case '{':
      case '[':
        if (scalar) *scalar = {};
        return Container(depth);
      case '"':
        if ((tok = String()).empty()) return false;
        out->AppendPadded(tok);
        break;
      case 't':
      case 'f':
      case 'n': {
        const size_t n = *p == 'f' ? 5 : 4;
        tok = std::string_view(p, std::min<size_t>(n, end - p));
        if (tok != "true" && tok != "false" && tok != "null") return Fail("invalid literal");
        out->append(tok);
        p += n;
        break;
      }
      default:
        if ((tok = Number()).empty()) return false;
    }
    if (scalar) *scalar = tok;
    return true;
  }

  // A number, validated and written in one pass; one a double or an int64
  // cannot hold is written as a string, so that strict readers accept it too.
  std::string_view Number() {
    const char* q = p + (*p == '-');
    const char* const digits = q;
    if (q < end && *q == '0') q++;
    else while (q < end && IsDigit(*q)) q++;
    if (q == digits) return Fail(q == p ? "unexpected character" : "invalid number"), std::string_view();
    const size_t whole = static_cast<size_t>(q - digits);
    bool exponent = false;
    if (q < end && *q == '.') {
      const char* f = ++q;
      while (q < end && IsDigit(*q)) q++;
      if (q == f) return Fail("invalid number"), std::string_view();
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
      q += q + 1 < end && (q[1] == '+' || q[1] == '-') ? 2 : 1;
      const char* x = q;
      while (q < end && IsDigit(*q)) q++;
      if (q == x) return Fail("invalid number"), std::string_view();
      exponent = true;
    }
    if (q < end && IsNumberByte(*q)) return Fail("invalid number"), std::string_view();
    const std::string_view tok(p, q - p);
    p = q;
    if ((!exponent && whole < 19) || IsPortableNumber(tok)) {
      out->AppendPadded(tok);
    } else {
      out->push_back('"');
      out->append(tok);
      out->push_back('"');
    }
    return tok;
  }

  bool Container(int depth) {
    if (depth >= max_depth) return TooDeep();
    const bool object = *p == '{';
    const char close = object ? '}' : ']';
    out->push_back(*p++);
    if (Take(close)) {
      out->push_back(close);
      return true;
    }
    do {
      if (object) {
        const std::string_view key = Key();
        if (key.empty()) return false;
        out->AppendPadded(key);
        out->push_back(':');
      }
      if (!Value(depth + 1)) return false;
      if (Take(close)) {
        out->push_back(close);
        return true;
      }
      out->push_back(',');
    } while (Take(','));
    return Fail(object ? "expected ',' or '}'" : "expected ',' or ']'");
  }

  // A key and its colon, as the key's token (quotes included).
  std::string_view Key() {
    SkipSpace();
    const std::string_view raw = String();
    if (raw.empty()) return raw;
    if (!Take(':')) return Fail("expected ':' after the key"), std::string_view();
    return raw;
  }

  // What a field callback says: false (not valid: stop), true (written), or
  // kDropped (left out: its key and comma are taken back).
  static constexpr int kDropped = 2;

  // The fields of an object, each handed to field(raw key, unquoted key) which
  // reads its value; writes the braces and commas. Ends after the '}'.
  template <class F>
  bool Fields(F&& field) {
    if (!Take('{')) return Fail("expected an object");
    out->push_back('{');
    if (Take('}')) {
      out->push_back('}');
      return true;
    }
    bool first = true;
    do {
      const std::string_view raw = Key();
      if (raw.empty()) return false;
      const size_t before = out->size();
      if (!first) out->push_back(',');
      const int kept = field(raw, raw.substr(1, raw.size() - 2));  // (a key token is quoted)
      if (!kept) return false;
      if (kept == kDropped) out->truncate(before);
      else first = false;
      if (Take('}')) {
        out->push_back('}');
        return true;
      }
    } while (Take(','));
    return Fail("expected ',' or '}'");
  }

  // A value that is validated but not written.
  bool Skip(std::string_view* scalar, int depth = 1) {
    const size_t mark = out->size();
    const bool ok = Value(depth, scalar);
    out->truncate(mark);
    return ok;
  }

  bool AtObject() {
    SkipSpace();
    return p < end && *p == '{';
  }

  bool End() {
    SkipSpace();
    return p == end || Fail("unexpected text after the object");
  }
};

}  // namespace json_reader
}  // namespace tracemerge
