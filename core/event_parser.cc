#include "event_parser.h"

#include <algorithm>
#include <cstring>

#include "json_reader.h"
#include "numbers.h"

namespace tracemerge {
namespace {

using json_reader::Reader;
using json_reader::kMaxNesting;

// The top-level keys the merge looks at. Classified once per key by length
// and bytes: a chain of string compares cost a memcmp call per candidate.
enum class Field {
  kOther, kArgs, kId2, kPid, kTid, kTs, kDur, kId, kBindId, kPh, kName, kCat, kTts, kTdur, kFlowIn, kFlowOut
};

// The arguments the formats read (registry.h), and a bit per length one has.
struct ArgKeyText {
  std::string_view key;
  bool unquoted;
};
#define TRACEMERGE_ARG_TEXT(id, key, unquoted) {key, unquoted},
constexpr ArgKeyText kArgKey[kArgKeys] = {TRACEMERGE_ARG_KEYS(TRACEMERGE_ARG_TEXT)};
constexpr uint64_t ArgKeyLengths() {
  uint64_t bits = 0;
  for (const ArgKeyText& a : kArgKey) bits |= a.key.size() < 64 ? uint64_t{1} << a.key.size() : 0;
  return bits;
}
constexpr uint64_t kArgKeyLengths = ArgKeyLengths();
static_assert([] {
  for (const ArgKeyText& a : kArgKey)
    if (a.key.empty() || a.key.size() >= 64) return false;
  return true;
}(), "an argument key is 1 to 63 bytes long");

Field FieldOf(std::string_view k) {
  auto is = [&](const char* word) { return std::memcmp(k.data(), word, k.size()) == 0; };
  switch (k.size()) {
    case 2: return is("ts") ? Field::kTs : is("ph") ? Field::kPh : is("id") ? Field::kId : Field::kOther;
    case 3:
      switch (k[0]) {
        case 'p': return is("pid") ? Field::kPid : Field::kOther;
        case 't': return is("tid") ? Field::kTid : is("tts") ? Field::kTts : Field::kOther;
        case 'd': return is("dur") ? Field::kDur : Field::kOther;
        case 'c': return is("cat") ? Field::kCat : Field::kOther;
        case 'i': return is("id2") ? Field::kId2 : Field::kOther;
      }
      return Field::kOther;
    case 4: return is("name") ? Field::kName : is("args") ? Field::kArgs : is("tdur") ? Field::kTdur : Field::kOther;
    case 7: return is("bind_id") ? Field::kBindId : is("flow_in") ? Field::kFlowIn : Field::kOther;
    case 8: return is("flow_out") ? Field::kFlowOut : Field::kOther;
  }
  return Field::kOther;
}

// Writes a placeholder for an id: kIdMark (or kBindMark), the local number, kIdEnd.
void PutId(std::string_view tok, IdTable* ids, ByteBuffer* out, char mark = kIdMark) {
  auto [it, added] = ids->try_emplace(std::string(IdKey(tok)), static_cast<uint32_t>(ids->size() + 1));
  out->push_back(mark);
  out->AppendUint(it->second);
  out->push_back(kIdEnd);
}

// Rewrites the \uD800–\uDFFF escapes in the JSON text from `from` on: a
// high and low pair becomes the UTF-8 of its code point, a lone half U+FFFD
// (the text stays valid JSON and means the same; Perfetto refuses the escapes).
void FixSurrogates(ByteBuffer* out, size_t from) {
  auto hex = [](const char* p) {
    unsigned v = 0;
    for (int k = 0; k < 4; k++) v = v << 4 | static_cast<unsigned>(p[k] <= '9' ? p[k] - '0' : (p[k] | 0x20) - 'a' + 10);
    return v;
  };
  auto half = [&](const char* p, const char* end, unsigned lo, unsigned hi) {
    return end - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex(p + 2) >= lo && hex(p + 2) <= hi;
  };
  std::string text(out->view().substr(from));
  std::string fixed;
  fixed.reserve(text.size());
  bool in_string = false;
  for (const char *p = text.data(), *end = p + text.size(); p < end;) {
    if (*p == '"') in_string = !in_string;
    if (!in_string || *p != '\\') {
      fixed.push_back(*p++);
      continue;
    }
    if (half(p, end, 0xD800, 0xDBFF) && half(p + 6, end, 0xDC00, 0xDFFF)) {
      const unsigned cp = 0x10000 + ((hex(p + 2) - 0xD800) << 10) + (hex(p + 8) - 0xDC00);
      fixed.push_back(static_cast<char>(0xF0 | cp >> 18));
      fixed.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
      fixed.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
      fixed.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      p += 12;
    } else if (half(p, end, 0xD800, 0xDFFF)) {
      fixed += "\\ufffd";
      p += 6;
    } else {  // another escape: copied whole (its second byte may be a quote)
      fixed.append(p, 2);
      p += 2;
    }
  }
  out->truncate(from);
  out->append(fixed);
}

// A finite JSON number as Perfetto reads tts/tdur, or "" when the token is none.
std::string_view NumberToken(std::string_view tok) {
  const std::string_view inner = Unquote(tok);
  if (inner.empty() || !IsJsonNumber(inner) || !IsPortableNumber(inner)) return {};
  return inner;
}

}  // namespace

std::string WithoutSurrogateEscapes(std::string_view text, bool* changed) {
  *changed = false;
  for (size_t i = text.find("\\u"); i != std::string_view::npos && !*changed; i = text.find("\\u", i + 1))
    *changed = i + 2 < text.size() && (text[i + 2] == 'd' || text[i + 2] == 'D') && i + 3 < text.size() &&
               (text[i + 3] == '8' || text[i + 3] == '9' || (text[i + 3] | 0x20) >= 'a');
  if (!*changed) return std::string(text);
  ByteBuffer b;
  b.append("\"");
  b.append(text);
  b.append("\"");
  FixSurrogates(&b, 0);
  const std::string_view v = b.view();
  return std::string(v.substr(1, v.size() - 2));
}

const char* ConversionText(unsigned bit) {
  switch (bit) {
    case kLegacyAsync: return "legacy async events (ph S, T, p, F) written as nestable async (b, n, n, e): Perfetto drops or refuses the legacy phases";
    case kNoDur: return "X events without \"dur\" written with \"dur\":0: Perfetto refuses an X without one";
    case kThreadTime: return "tts/tdur values that are not finite numbers written as numbers or left out: Perfetto's reader stalls on them";
    case kNameType: return "names or categories that are numbers or booleans written as strings: Perfetto reads them as no name";
    case kArgsType: return "args that are not objects written as {\"value\": …}: Perfetto ignores them";
    case kFlowFlag: return "flow_in/flow_out values that are not booleans written as booleans (or left out): Perfetto ignores them";
    case kSurrogate: return "\\uD800–\\uDFFF escapes written as UTF-8 (U+FFFD when unpaired): Perfetto refuses the whole trace over them";
    case kBadUtf8: return "events whose strings hold bytes that are not UTF-8, written with U+FFFD for those bytes: a JSON reader refuses the whole trace over them";
    case kNumberString: return "counter values and sort_index values written as numeric strings (\"5.47\") written as numbers: Perfetto's importer fails the event over them";
  }
  return "";
}

std::string_view Unquote(std::string_view t) {
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') return t.substr(1, t.size() - 2);
  return t;
}

std::string_view IdKey(std::string_view token) { return Unquote(token); }

// One long function on purpose: it runs once per event, and its field switch and the lambdas
// that share its state (the reader, the template being written) are the hot path — split
// into calls that pass that state, every event would pay for them (README, Performance).
bool EventParser::Parse(const char* data, size_t len, EventFields* f, std::string* error, ByteBuffer* out,
                        IdTable* ids, size_t* consumed) {
  if (!out) {
    scratch_.clear();
    scratch_ids_.clear();
    out = &scratch_;
    ids = &scratch_ids_;
  }
  Reader r{data, data, data + len, out, max_string_, std::min(max_depth_, kMaxNesting), {}, 0};
  r.repair_utf8 = true;  // (an event's text that is not UTF-8 is written as U+FFFD, not the event dropped)
  const size_t start = out->size();
  size_t ph_at = 0;  // where the template has ph's letter
  number_strings_.clear();
  bool had_pid = false, had_tid = false;
  std::string_view tok;
  // One long function on purpose, as Parse: the switch over a field's key, for every field.
  auto field = [&](std::string_view raw_key, std::string_view key) -> int {
    out->AppendPadded(raw_key);
    out->push_back(':');
    const Field which = FieldOf(key);
    switch (which) {
      // args and id2 objects are read here, as level 2: their values are Value(2).
      case Field::kArgs:
        if (!r.AtObject()) break;
        if (r.max_depth < 2) return r.TooDeep();
        return r.Fields([&](std::string_view raw, std::string_view akey) {
          out->AppendPadded(raw);
          out->push_back(':');
          const size_t at = out->size();
          if (!r.Value(2, &tok)) return false;
          if (tok.size() > 2 && tok[0] == '"' && !NumberToken(tok).empty()) number_strings_.push_back({at, akey == "sort_index"});
          if (akey.size() < 64 && (kArgKeyLengths >> akey.size() & 1)) {  // (by length first: most keys are none)
            for (size_t k = 0; k < kArgKeys; k++)
              if (akey.size() == kArgKey[k].key.size() && akey[0] == kArgKey[k].key[0] && akey == kArgKey[k].key) {
                f->args[k] = kArgKey[k].unquoted ? Unquote(tok) : tok;
                break;
              }
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
        if (f->dur.empty()) f->dur = "{}";  // an object or an array: there, but not a number
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
        PutId(tok, ids, out, which == Field::kBindId ? kBindMark : kIdMark);
        return true;
      case Field::kTts:
      case Field::kTdur:  // a finite number, or left out
        if (!r.Skip(&tok)) return false;
        if (!tok.empty() && tok == NumberToken(tok)) return out->append(tok), true;  // (objects and arrays give no token)
        f->converted |= kThreadTime;
        if (NumberToken(tok).empty()) return Reader::kDropped;
        return out->append(NumberToken(tok)), true;
      case Field::kFlowIn:
      case Field::kFlowOut:  // a boolean, or left out
        if (!r.Skip(&tok)) return false;
        if (tok == "true" || tok == "false") return out->append(tok), true;
        f->converted |= kFlowFlag;
        if (tok == "1" || tok == "\"true\"") return out->append("true"), true;
        if (tok == "0" || tok == "\"false\"") return out->append("false"), true;
        return Reader::kDropped;
      default: {
        const size_t mark = out->size();
        if (!r.Value(1, &tok)) return false;
        if (which == Field::kPh) {
          f->ph_not_string = tok.empty() || tok[0] != '"';  // (then no phase: Perfetto reads none)
          f->ph = f->ph_not_string ? std::string_view() : Unquote(tok);
          if (tok.size() >= 3 && tok[0] == '"') ph_at = mark + 1;  // (its letter may be rewritten at the end)
        } else if (which == Field::kName || which == Field::kCat) {
          (which == Field::kName ? f->name : f->cat) = Unquote(tok);
          if (!tok.empty() && tok[0] != '"' && tok != "null") {  // a number or a boolean: as a string
            out->truncate(mark);
            out->push_back('"');
            out->append(tok);
            out->push_back('"');
            f->converted |= kNameType;
          }
        }
        return true;
      }
    }
    if (which == Field::kArgs) {  // args that is not an object: kept, as {"value": …}
      out->append("{\"value\":");
      if (!r.Value(1)) return false;  // (as deep as it was read: the limit is the input's)
      out->push_back('}');
      f->converted |= kArgsType;
      return true;
    }
    return r.Value(1);  // id2 that is not an object
  };
  // (A depth limit below 1 allows not even the event itself.)
  const bool ok = r.max_depth >= 1 ? r.Fields(field) && (consumed || r.End()) : r.TooDeep();
  if (!ok) {
    *error = std::move(r.error);
    error_offset_ = r.error_at;
    error_kind_ = r.too_long ? ParseError::kStringTooLong : ParseError::kInvalid;
    return false;
  }
  // A counter's values and a sort_index must be numbers (Perfetto fails the
  // event otherwise): numeric strings lose their quotes.
  const bool counter = !f->ph.empty() && f->ph[0] == 'C';
  const bool sort = f->ph == "M" && (f->name == "process_sort_index" || f->name == "thread_sort_index");
  if (!number_strings_.empty() && (counter || sort)) {
    std::string tail(out->view().substr(number_strings_[0].first));
    const size_t base = number_strings_[0].first;
    std::string fixed;
    size_t from = 0;
    for (auto [at, is_sort] : number_strings_) {
      if (!counter && !is_sort) continue;
      const size_t rel = at - base;
      const size_t close = tail.find('"', rel + 1);
      fixed.append(tail, from, rel - from);
      fixed.append(tail, rel + 1, close - rel - 1);
      from = close + 1;
      f->converted |= kNumberString;
    }
    fixed.append(tail, from, std::string::npos);
    out->truncate(base);
    out->append(fixed);
  }
  // Every output event has a pid and a tid, before its closing brace (and an X a dur).
  out->truncate(out->size() - 1);
  bool empty = out->view().back() == '{';
  if (f->dur.empty() && !f->ph.empty() && f->ph[0] == 'X') {
    out->append(empty ? "\"dur\":0" : ",\"dur\":0");
    f->converted |= kNoDur;
    empty = false;
  }
  // Legacy async (S, T, p, F) as nestable async, the same pairs by (cat, id);
  // a T with a dur is Perfetto's own (a thread state) and stays.
  if (ph_at) {
    char& c = out->data()[ph_at];
    const char as = c == 'S' ? 'b' : c == 'F' ? 'e' : c == 'p' || (c == 'T' && f->dur.empty()) ? 'n' : c;
    if (as != c) {
      c = as;
      f->converted |= kLegacyAsync;
    }
  }
  if (!had_pid) {
    out->append(empty ? "\"pid\":" : ",\"pid\":");
    out->push_back(kPidMark);
  }
  if (!had_tid) {  // after the fields or the pid just written
    out->append(",\"tid\":");
    out->push_back(kTidMark);
  }
  out->push_back('}');
  if (r.surrogate) {
    FixSurrogates(out, start);
    f->converted |= kSurrogate;
  }
  if (r.bad_utf8) {  // (rare: the event's template rewritten whole)
    bool changed = false;
    const std::string valid = WithValidUtf8(out->view().substr(start), &changed);
    out->truncate(start);
    out->append(valid);
    f->converted |= kBadUtf8;
  }
  if (consumed) *consumed = static_cast<size_t>(r.p - data);
  return true;
}

bool EventParser::ParseRecord(const char* data, size_t len, const std::string_view* keys, size_t n,
                              std::string_view* tokens, std::string* error) {
  std::fill(tokens, tokens + n, std::string_view());
  scratch_.clear();
  Reader r{data, data, data + len, &scratch_, max_string_, std::min(max_depth_, kMaxNesting), {}, 0};
  std::string_view tok;
  const bool ok = r.Fields([&](std::string_view, std::string_view key) {
                    if (!r.Skip(&tok)) return false;
                    for (size_t k = 0; k < n; k++)
                      if (key == keys[k]) {
                        tokens[k] = tok;
                        break;
                      }
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
