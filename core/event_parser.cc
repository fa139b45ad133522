#include "event_parser.h"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "numbers.h"
#include "simdjson.h"

namespace tracemerge {
namespace {

// Values recurse: this bound (whatever set_max_depth asks) keeps a line of a
// million '[' from overflowing the stack.
constexpr int kMaxNesting = 1024;

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNumberByte(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// Bits of the bytes among the 16 at p that end a plain run of string bytes
// ('"', '\\', control bytes), and in *high those of non-ASCII bytes.
uint32_t StringStops(const char* p, uint32_t* high) {
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
    if (high && !simdjson::validate_utf8(p + 1, len)) return Fail("string is not valid UTF-8"), std::string_view();
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
      if (!first) out->push_back(',');
      first = false;
      if (!field(raw, raw.substr(1, raw.size() - 2))) return false;  // (a key token is quoted)
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

// The top-level keys the merge looks at. Classified once per key by length
// and bytes: a chain of string compares cost a memcmp call per candidate.
enum class Field { kOther, kArgs, kId2, kPid, kTid, kTs, kDur, kId, kBindId, kPh, kName, kCat };

Field FieldOf(std::string_view k) {
  auto is = [&](const char* word) { return std::memcmp(k.data(), word, k.size()) == 0; };
  switch (k.size()) {
    case 2: return is("ts") ? Field::kTs : is("ph") ? Field::kPh : is("id") ? Field::kId : Field::kOther;
    case 3:
      switch (k[0]) {
        case 'p': return is("pid") ? Field::kPid : Field::kOther;
        case 't': return is("tid") ? Field::kTid : Field::kOther;
        case 'd': return is("dur") ? Field::kDur : Field::kOther;
        case 'c': return is("cat") ? Field::kCat : Field::kOther;
        case 'i': return is("id2") ? Field::kId2 : Field::kOther;
      }
      return Field::kOther;
    case 4: return is("name") ? Field::kName : is("args") ? Field::kArgs : Field::kOther;
    case 7: return is("bind_id") ? Field::kBindId : Field::kOther;
  }
  return Field::kOther;
}

// Writes a placeholder for an id: kIdMark, the local number, kIdEnd.
void PutId(std::string_view tok, IdTable* ids, ByteBuffer* out) {
  auto [it, added] = ids->try_emplace(std::string(IdKey(tok)), static_cast<uint32_t>(ids->size() + 1));
  out->push_back(kIdMark);
  out->AppendUint(it->second);
  out->push_back(kIdEnd);
}

}  // namespace

std::string_view Unquote(std::string_view t) {
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') return t.substr(1, t.size() - 2);
  return t;
}

std::string_view IdKey(std::string_view token) { return Unquote(token); }

bool EventParser::Parse(const char* data, size_t len, EventFields* f, std::string* error, ByteBuffer* out,
                        IdTable* ids, size_t* consumed) {
  if (!out) {
    scratch_.clear();
    scratch_ids_.clear();
    out = &scratch_;
    ids = &scratch_ids_;
  }
  Reader r{data, data, data + len, out, max_string_, std::min(max_depth_, kMaxNesting), {}, 0};
  bool had_pid = false, had_tid = false;
  std::string_view tok;
  auto field = [&](std::string_view raw_key, std::string_view key) {
    out->AppendPadded(raw_key);
    out->push_back(':');
    switch (const Field which = FieldOf(key)) {
      // args and id2 objects are read here, as level 2: their values are Value(2).
      case Field::kArgs:
        if (!r.AtObject()) break;
        if (r.max_depth < 2) return r.TooDeep();
        return r.Fields([&](std::string_view raw, std::string_view akey) {
          out->AppendPadded(raw);
          out->push_back(':');
          if (!r.Value(2, &tok)) return false;
          switch (akey.size()) {  // (by length first: most keys are none of these)
            case 3: if (akey == "Seq") f->arg_seq = tok; break;
            case 4: if (akey == "name") f->arg_name = Unquote(tok); break;
            case 6: if (akey == "labels") f->arg_labels = Unquote(tok); break;
            case 8: if (akey == "step_num") f->arg_step_num = tok; break;
            case 15: if (akey == "Collective name") f->arg_collective = tok; break;
            case 18: if (akey == "Process Group Name") f->arg_group = tok; break;
            case 32: if (akey == "start_time_since_epoch_in_micros") f->arg_start_time = tok; break;
          }
          return true;
        });
      case Field::kId2:  // {"global": x} ids are renumbered, {"local": x} stay per process
        if (!r.AtObject()) break;
        if (r.max_depth < 2) return r.TooDeep();
        return r.Fields([&](std::string_view raw, std::string_view ikey) {
          out->AppendPadded(raw);
          out->push_back(':');
          if (ikey != "global") return r.Value(2);
          if (!r.Skip(&tok, 2)) return false;
          if (tok.empty()) return r.Fail("id2.global is not a scalar");
          f->id2_global = tok;
          PutId(tok, ids, out);
          return true;
        });
      // Fields the merge rewrites: validated and captured, written as placeholders.
      case Field::kPid:
      case Field::kTid:
      case Field::kTs:
        if (!r.Skip(&tok)) return false;
        (which == Field::kPid ? f->pid : which == Field::kTid ? f->tid : f->ts) = tok;
        had_pid |= which == Field::kPid;
        had_tid |= which == Field::kTid;
        out->push_back(which == Field::kPid ? kPidMark : which == Field::kTid ? kTidMark : kTsMark);
        return true;
      case Field::kDur: {
        if (!r.Skip(&f->dur)) return false;
        auto dur = ParseMicros(f->dur);
        f->dur_ns = dur && *dur >= 0 ? *dur : -1;
        if (f->dur_ns >= 0) AppendMicros(*out, f->dur_ns);
        else out->push_back('0');  // the merge warns about it
        return true;
      }
      case Field::kId:
      case Field::kBindId:
        if (!r.Skip(&tok)) return false;
        if (tok.empty()) return r.Fail("id is not a scalar");
        (which == Field::kId ? f->id : f->bind_id) = tok;
        PutId(tok, ids, out);
        return true;
      default:
        if (!r.Value(1, &tok)) return false;
        if (which == Field::kPh) f->ph = Unquote(tok);
        else if (which == Field::kName) f->name = Unquote(tok);
        else if (which == Field::kCat) f->cat = Unquote(tok);
        return true;
    }
    return r.Value(1);  // args or id2 that is not an object
  };
  // (A depth limit below 1 allows not even the event itself.)
  const bool ok = r.max_depth >= 1 ? r.Fields(field) && (consumed || r.End()) : r.TooDeep();
  if (!ok) {
    *error = std::move(r.error);
    error_offset_ = r.error_at;
    error_kind_ = r.too_long ? ParseError::kStringTooLong : ParseError::kInvalid;
    return false;
  }
  // Every output event has a pid and a tid, before its closing brace.
  out->truncate(out->size() - 1);
  const bool empty = out->view().back() == '{';
  if (!had_pid) {
    out->append(empty ? "\"pid\":" : ",\"pid\":");
    out->push_back(kPidMark);
  }
  if (!had_tid) {  // after the fields or the pid just written
    out->append(",\"tid\":");
    out->push_back(kTidMark);
  }
  out->push_back('}');
  if (consumed) *consumed = static_cast<size_t>(r.p - data);
  return true;
}

bool EventParser::ParseMetric(const char* data, size_t len, MetricFields* m, std::string* error) {
  *m = {};
  scratch_.clear();
  Reader r{data, data, data + len, &scratch_, max_string_, std::min(max_depth_, kMaxNesting), {}, 0};
  std::string_view tok;
  const bool ok = r.Fields([&](std::string_view, std::string_view key) {
                    if (!r.Skip(&tok)) return false;
                    if (key == "Name") m->name = Unquote(tok);
                    else if (key == "Dimension") m->dimension = Unquote(tok);
                    else if (key == "NodeId") m->node = Unquote(tok);
                    else if (key == "Value") m->value = tok;
                    else if (key == "Timestamp") m->timestamp = tok;
                    return true;
                  }) &&
                  r.End();
  if (!ok) {
    *error = std::move(r.error);
    error_offset_ = r.error_at;
    error_kind_ = r.too_long ? ParseError::kStringTooLong : ParseError::kInvalid;
  }
  return ok;
}

}  // namespace tracemerge
