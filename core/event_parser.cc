#include "event_parser.h"

#include <cstring>

#include "numbers.h"

namespace tracemerge {
namespace od = simdjson::ondemand;

namespace {

bool Fail(std::string* error, const char* what, simdjson::error_code code = simdjson::SUCCESS) {
  *error = what;
  if (code != simdjson::SUCCESS) *error += std::string(" (") + simdjson::error_message(code) + ")";
  return false;
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// True when one of the 8 bytes at p is a backslash or a control byte; most
// strings have neither, so they are checked 8 bytes at a time.
bool MaybeSpecial(const char* p) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  uint64_t x;
  std::memcpy(&x, p, 8);
  const uint64_t slash = x ^ (kOnes * '\\');
  return (((x - kOnes * 0x20) & ~x) | ((slash - kOnes) & ~slash)) & kHigh;
}

// The string length limit of the parse in progress (set by EventParser).
thread_local size_t max_string = SIZE_MAX;

// Checks a raw string token (with quotes) and appends it verbatim.
bool CopyString(std::string_view tok, ByteBuffer* out, std::string* error) {
  if (tok.size() < 2 || tok.front() != '"' || tok.back() != '"') return Fail(error, "bad string");
  if (tok.size() - 2 > max_string) {
    *error = std::string(kStringTooLong) + " (" + std::to_string(max_string) + " bytes)";
    return false;
  }
  size_t i = 1;
  while (i + 9 <= tok.size() && !MaybeSpecial(tok.data() + i)) i += 8;
  for (; i + 1 < tok.size(); i++) {
    unsigned char c = tok[i];
    if (c == '\\') {
      if (i + 2 >= tok.size()) return Fail(error, "bad escape in string");
      char e = tok[i + 1];
      if (e == 'u') {
        if (i + 6 >= tok.size() || !IsHex(tok[i + 2]) || !IsHex(tok[i + 3]) || !IsHex(tok[i + 4]) ||
            !IsHex(tok[i + 5]))
          return Fail(error, "bad \\u escape in string");
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return Fail(error, "bad escape in string");
      }
      i++;
    } else if (c < 0x20) {
      return Fail(error, "raw control character in string");
    }
  }
  if (out) out->append(tok);
  return true;
}

// Validates one value and, when out is set, appends it in compact form.
// On-Demand does not limit nesting and Walk recurses: the tokenizer's max_depth
// bounds trace events, but a metrics line reaches here unchecked, so this guard
// keeps a line of a million '[' from overflowing the stack.
constexpr int kMaxNesting = 1024;

// *scalar, when given, receives the token of a string, number or literal.
bool Walk(od::value v, ByteBuffer* out, std::string* error, int depth = 0, std::string_view* scalar = nullptr) {
  if (depth >= kMaxNesting) return Fail(error, "nested deeper than 1024 levels");
  od::json_type type;
  if (auto e = v.type().get(type)) return Fail(error, "invalid value", e);
  std::string_view tok;
  if (type != od::json_type::object && type != od::json_type::array) {
    tok = Trim(v.raw_json_token());
    if (scalar) *scalar = tok;
  }
  switch (type) {
    case od::json_type::object: {
      od::object obj;
      if (auto e = v.get_object().get(obj)) return Fail(error, "invalid object", e);
      if (out) out->push_back('{');
      bool first = true;
      for (auto fr : obj) {
        od::field f;
        if (auto e = std::move(fr).get(f)) return Fail(error, "invalid object", e);
        std::string_view key = Trim(f.key_raw_json_token());
        if (out && !first) out->push_back(',');
        first = false;
        if (!CopyString(key, out, error)) return false;
        if (out) out->push_back(':');
        if (!Walk(f.value(), out, error, depth + 1)) return false;
      }
      if (out) out->push_back('}');
      return true;
    }
    case od::json_type::array: {
      od::array arr;
      if (auto e = v.get_array().get(arr)) return Fail(error, "invalid array", e);
      if (out) out->push_back('[');
      bool first = true;
      for (auto er : arr) {
        od::value el;
        if (auto e = std::move(er).get(el)) return Fail(error, "invalid array", e);
        if (out && !first) out->push_back(',');
        first = false;
        if (!Walk(el, out, error, depth + 1)) return false;
      }
      if (out) out->push_back(']');
      return true;
    }
    case od::json_type::string:
      return CopyString(tok, out, error);
    case od::json_type::number: {
      if (!IsJsonNumber(tok)) return Fail(error, "invalid number");
      // Out of a double's or 64-bit range (1e400, 2^64): kept, as a string,
      // so that strict readers accept the output too.
      if (out && !IsPortableNumber(tok)) {
        out->push_back('"');
        out->append(tok);
        out->push_back('"');
      } else if (out) {
        out->append(tok);
      }
      return true;
    }
    case od::json_type::boolean:
    case od::json_type::null: {
      if (tok != "true" && tok != "false" && tok != "null") return Fail(error, "invalid literal");
      if (out) out->append(tok);
      return true;
    }
  }
  return Fail(error, "invalid value");
}

// Validates one value (appending it when out is set) and returns the token of
// a scalar in *tok ("" for objects and arrays).
bool CopyCapture(od::value v, ByteBuffer* out, std::string_view* tok, std::string* error) {
  *tok = {};
  return Walk(v, out, error, 0, tok);
}

bool Open(od::parser& parser, const char* data, size_t len, od::document* doc, od::object* obj,
          std::string* error) {
  auto e = parser.iterate(data, len, len + simdjson::SIMDJSON_PADDING).get(*doc);
  if (e) return Fail(error, "invalid JSON", e);
  if ((e = doc->get_object().get(*obj))) return Fail(error, "event is not a JSON object", e);
  return true;
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
                        IdTable* ids) {
  *f = {};
  max_string = max_string_;
  od::document doc;
  od::object obj;
  if (!Open(parser_, data, len, &doc, &obj, error)) return false;
  auto put = [&](std::string_view text) {
    if (out) out->append(text);
  };
  auto put_mark = [&](char mark) {
    if (out) out->push_back(mark);
  };
  put("{");
  bool first = true, had_pid = false, had_tid = false;
  for (auto fr : obj) {
    od::field field;
    if (auto e = std::move(fr).get(field)) return Fail(error, "invalid JSON", e);
    std::string_view raw_key = Trim(field.key_raw_json_token());
    if (!CopyString(raw_key, nullptr, error)) return false;
    std::string_view key = Unquote(raw_key);
    if (!first) put(",");
    first = false;
    put(raw_key);
    put(":");
    od::value v = field.value();
    std::string_view tok;
    if (key == "args") {
      od::object args;
      if (v.get_object().get(args) != simdjson::SUCCESS) {
        if (!Walk(field.value(), out, error)) return false;
        continue;
      }
      put("{");
      bool afirst = true;
      for (auto ar : args) {
        od::field a;
        if (auto e = std::move(ar).get(a)) return Fail(error, "invalid JSON in args", e);
        std::string_view akey = Trim(a.key_raw_json_token());
        if (!CopyString(akey, nullptr, error)) return false;
        if (!afirst) put(",");
        afirst = false;
        put(akey);
        put(":");
        if (!CopyCapture(a.value(), out, &tok, error)) return false;
        akey = Unquote(akey);
        if (akey == "name") f->arg_name = Unquote(tok);
        else if (akey == "start_time_since_epoch_in_micros") f->arg_start_time = tok;
        else if (akey == "step_num") f->arg_step_num = tok;
      }
      put("}");
      continue;
    }
    if (key == "id2") {  // {"global": x} ids are renumbered, {"local": x} stay per process
      od::object id2;
      if (v.get_object().get(id2) != simdjson::SUCCESS) {
        if (!Walk(field.value(), out, error)) return false;
        continue;
      }
      put("{");
      bool ifirst = true;
      for (auto ir : id2) {
        od::field g;
        if (auto e = std::move(ir).get(g)) return Fail(error, "invalid JSON in id2", e);
        std::string_view gkey = Trim(g.key_raw_json_token());
        if (!CopyString(gkey, nullptr, error)) return false;
        if (!ifirst) put(",");
        ifirst = false;
        put(gkey);
        put(":");
        if (Unquote(gkey) != "global") {
          if (!Walk(g.value(), out, error)) return false;
          continue;
        }
        if (!CopyCapture(g.value(), nullptr, &tok, error)) return false;
        if (tok.empty()) return Fail(error, "id2.global is not a scalar");
        f->id2_global = tok;
        if (out) PutId(tok, ids, out);
      }
      put("}");
      continue;
    }
    // Fields the merge rewrites: validated and captured, written as placeholders.
    const bool rewritten = key == "pid" || key == "tid" || key == "ts" || key == "dur" || key == "id" ||
                           key == "bind_id";
    if (!CopyCapture(v, rewritten ? nullptr : out, &tok, error)) return false;
    if (key == "pid") {
      f->pid = tok;
      had_pid = true;
      put_mark(kPidMark);
    } else if (key == "tid") {
      f->tid = tok;
      had_tid = true;
      put_mark(kTidMark);
    } else if (key == "ts") {
      f->ts = tok;
      put_mark(kTsMark);
    } else if (key == "dur") {
      f->dur = tok;
      auto dur = ParseMicros(tok);
      if (out) {
        if (dur && *dur >= 0) AppendMicros(*out, *dur);
        else out->push_back('0');  // the merge warns about it
      }
    } else if (key == "id" || key == "bind_id") {
      if (tok.empty()) return Fail(error, "id is not a scalar");
      (key == "id" ? f->id : f->bind_id) = tok;
      if (out) PutId(tok, ids, out);
    } else if (key == "ph") {
      f->ph = Unquote(tok);
    } else if (key == "name") {
      f->name = Unquote(tok);
    } else if (key == "cat") {
      f->cat = Unquote(tok);
    }
  }
  if (!had_pid) {
    put(first ? "\"pid\":" : ",\"pid\":");
    put_mark(kPidMark);
    first = false;
  }
  if (!had_tid) {
    put(first ? "\"tid\":" : ",\"tid\":");
    put_mark(kTidMark);
  }
  put("}");
  return true;
}

bool EventParser::ParseMetric(const char* data, size_t len, MetricFields* out,
                              std::string* error) {
  max_string = max_string_;
  *out = {};
  od::document doc;
  od::object obj;
  if (!Open(parser_, data, len, &doc, &obj, error)) return false;
  for (auto fr : obj) {
    od::field f;
    if (auto e = std::move(fr).get(f)) return Fail(error, "invalid JSON", e);
    std::string_view key = Trim(f.key_raw_json_token());
    if (!CopyString(key, nullptr, error)) return false;
    key = Unquote(key);
    std::string_view tok;
    if (!CopyCapture(f.value(), nullptr, &tok, error)) return false;
    if (key == "Name") out->name = Unquote(tok);
    else if (key == "Dimension") out->dimension = Unquote(tok);
    else if (key == "NodeId") out->node = Unquote(tok);
    else if (key == "Value") out->value = tok;
    else if (key == "Timestamp") out->timestamp = tok;
  }
  return true;
}

}  // namespace tracemerge
