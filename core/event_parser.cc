#include "event_parser.h"

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

// Checks a raw string token (with quotes) and appends it verbatim.
bool CopyString(std::string_view tok, std::string* out, std::string* error) {
  if (tok.size() < 2 || tok.front() != '"' || tok.back() != '"') return Fail(error, "bad string");
  if (out) out->push_back('"');
  for (size_t i = 1; i + 1 < tok.size(); i++) {
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
      if (out) out->append(tok.substr(i, 2));
      i++;
    } else if (c < 0x20) {
      return Fail(error, "raw control character in string");
    } else if (out) {
      out->push_back(static_cast<char>(c));
    }
  }
  if (out) out->push_back('"');
  return true;
}

// Validates one value and, when out is set, appends it in compact form.
bool Walk(od::value v, std::string* out, std::string* error) {
  od::json_type type;
  if (auto e = v.type().get(type)) return Fail(error, "invalid value", e);
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
        if (!Walk(f.value(), out, error)) return false;
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
        if (!Walk(el, out, error)) return false;
      }
      if (out) out->push_back(']');
      return true;
    }
    case od::json_type::string:
      return CopyString(Trim(v.raw_json_token()), out, error);
    case od::json_type::number: {
      std::string_view tok = Trim(v.raw_json_token());
      if (!IsJsonNumber(tok)) return Fail(error, "invalid number");
      if (out) out->append(tok);
      return true;
    }
    case od::json_type::boolean:
    case od::json_type::null: {
      std::string_view tok = Trim(v.raw_json_token());
      if (tok != "true" && tok != "false" && tok != "null") return Fail(error, "invalid literal");
      if (out) out->append(tok);
      return true;
    }
  }
  return Fail(error, "invalid value");
}

// A scalar's token after validating it; objects/arrays are walked and give "".
bool Token(od::value v, std::string_view* tok, std::string* error) {
  od::json_type type;
  if (auto e = v.type().get(type)) return Fail(error, "invalid value", e);
  if (type == od::json_type::object || type == od::json_type::array) {
    *tok = {};
    return Walk(v, nullptr, error);
  }
  *tok = Trim(v.raw_json_token());
  return Walk(v, nullptr, error);
}

bool Open(od::parser& parser, const char* data, size_t len, od::document* doc, od::object* obj,
          std::string* error) {
  auto e = parser.iterate(data, len, len + simdjson::SIMDJSON_PADDING).get(*doc);
  if (e) return Fail(error, "invalid JSON", e);
  if ((e = doc->get_object().get(*obj))) return Fail(error, "event is not a JSON object", e);
  return true;
}

}  // namespace

std::string_view Unquote(std::string_view t) {
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') return t.substr(1, t.size() - 2);
  return t;
}

std::string_view IdKey(std::string_view token) { return Unquote(token); }

bool EventParser::Parse(const char* data, size_t len, EventFields* out, std::string* error) {
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
    od::value v = f.value();
    std::string_view tok;
    if (key == "args") {
      od::object args;
      if (v.get_object().get(args) != simdjson::SUCCESS) {
        if (!Token(f.value(), &tok, error)) return false;
        continue;
      }
      for (auto ar : args) {
        od::field a;
        if (auto e = std::move(ar).get(a)) return Fail(error, "invalid JSON in args", e);
        std::string_view akey = Trim(a.key_raw_json_token());
        if (!CopyString(akey, nullptr, error)) return false;
        akey = Unquote(akey);
        if (!Token(a.value(), &tok, error)) return false;
        if (akey == "name") out->arg_name = Unquote(tok);
        else if (akey == "start_time_since_epoch_in_micros") out->arg_start_time = tok;
        else if (akey == "step_num") out->arg_step_num = tok;
      }
      continue;
    }
    if (key == "id2") {  // {"global": x} ids are renumbered, {"local": x} stay per process
      od::object id2;
      if (v.get_object().get(id2) == simdjson::SUCCESS) {
        for (auto ir : id2) {
          od::field g;
          if (auto e = std::move(ir).get(g)) return Fail(error, "invalid JSON in id2", e);
          std::string_view gkey = Trim(g.key_raw_json_token());
          if (!CopyString(gkey, nullptr, error)) return false;
          if (!Token(g.value(), &tok, error)) return false;
          if (Unquote(gkey) == "global") {
            if (tok.empty()) return Fail(error, "id2.global is not a scalar");
            out->id2_global = tok;
          }
        }
        continue;
      }
    }
    if (!Token(v, &tok, error)) return false;
    if (tok.empty() && (key == "id" || key == "bind_id")) return Fail(error, "id is not a scalar");
    switch (key.size()) {
      case 1:
        if (key == "s") out->scope = Unquote(tok);
        break;
      case 2:
        if (key == "ph") out->ph = Unquote(tok);
        else if (key == "ts") out->ts = tok;
        else if (key == "id") out->id = tok;
        break;
      case 3:
        if (key == "pid") out->pid = tok;
        else if (key == "tid") out->tid = tok;
        else if (key == "dur") out->dur = tok;
        else if (key == "cat") out->cat = Unquote(tok);
        break;
      case 4:
        if (key == "name") out->name = Unquote(tok);
        break;
      case 7:
        if (key == "bind_id") out->bind_id = tok;
        break;
    }
  }
  return true;
}

bool EventParser::Rewrite(const char* data, size_t len, const EventRewrite& rw, std::string* out,
                          std::string* error) {
  od::document doc;
  od::object obj;
  if (!Open(parser_, data, len, &doc, &obj, error)) return false;
  auto mapped_id = [&](std::string_view tok) {
    auto it = rw.ids->find(std::string(IdKey(tok)));
    out->append(it != rw.ids->end() ? std::to_string(it->second) : std::string(tok));
  };
  out->push_back('{');
  bool first = true, had_pid = false, had_tid = false;
  for (auto fr : obj) {
    od::field f;
    if (auto e = std::move(fr).get(f)) return Fail(error, "invalid JSON", e);
    std::string_view raw_key = Trim(f.key_raw_json_token());
    std::string_view key = Unquote(raw_key);
    if (!first) out->push_back(',');
    first = false;
    out->append(raw_key);
    out->push_back(':');
    od::value v = f.value();
    std::string_view tok;
    if (key == "pid") {
      had_pid = true;
      if (!Token(v, &tok, error)) return false;
      out->append(std::to_string(rw.pid));
    } else if (key == "tid") {
      had_tid = true;
      if (!Token(v, &tok, error)) return false;
      out->append(std::to_string(rw.tid));
    } else if (key == "ts" && rw.ts_ns) {
      if (!Token(v, &tok, error)) return false;
      AppendMicros(*out, *rw.ts_ns);
    } else if (key == "dur" && rw.dur_ns) {
      if (!Token(v, &tok, error)) return false;
      AppendMicros(*out, *rw.dur_ns);
    } else if ((key == "id" || key == "bind_id") && rw.ids) {
      if (!Token(v, &tok, error)) return false;
      mapped_id(tok);
    } else if (key == "id2" && rw.ids) {
      od::object id2;
      if (v.get_object().get(id2) != simdjson::SUCCESS) {
        if (!Walk(f.value(), out, error)) return false;
        continue;
      }
      out->push_back('{');
      bool ifirst = true;
      for (auto ir : id2) {
        od::field g;
        if (auto e = std::move(ir).get(g)) return Fail(error, "invalid JSON in id2", e);
        std::string_view gkey = Trim(g.key_raw_json_token());
        if (!ifirst) out->push_back(',');
        ifirst = false;
        out->append(gkey);
        out->push_back(':');
        if (Unquote(gkey) != "global") {
          if (!Walk(g.value(), out, error)) return false;
          continue;
        }
        if (!Token(g.value(), &tok, error)) return false;
        mapped_id(tok);
      }
      out->push_back('}');
    } else {
      if (!Walk(v, out, error)) return false;
    }
  }
  if (!had_pid) out->append(first ? "\"pid\":" : ",\"pid\":").append(std::to_string(rw.pid));
  if (!had_tid) out->append(",\"tid\":").append(std::to_string(rw.tid));
  out->push_back('}');
  return true;
}

bool EventParser::ParseMetric(const char* data, size_t len, MetricFields* out,
                              std::string* error) {
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
    if (!Token(f.value(), &tok, error)) return false;
    if (key == "Name") out->name = Unquote(tok);
    else if (key == "Dimension") out->dimension = Unquote(tok);
    else if (key == "NodeId") out->node = Unquote(tok);
    else if (key == "Value") out->value = tok;
    else if (key == "Timestamp") out->timestamp = tok;
  }
  return true;
}

}  // namespace tracemerge
