#include "perfetto_check.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <tuple>
#include <vector>

#include "simdjson.h"
#include "viewer_check.h"

namespace tracemerge::test {
namespace od = simdjson::ondemand;
namespace {

std::string Trimmed(std::string_view raw) {
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
    raw.remove_suffix(1);
  return std::string(raw);
}

bool IsNumberText(const std::string& t) {
  if (t.empty()) return false;
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-');
}

// CoerceToTs: a number, or a string that is one JSON number whole; else nothing.
bool Coerce(const std::string& token, int64_t* ns) {
  if (token.empty()) return false;
  std::string t = token;
  if (t[0] == '"') {
    if (t.size() < 2 || t.find('\\') != std::string::npos) return false;
    t = t.substr(1, t.size() - 2);
  }
  if (!IsNumberText(t)) return false;
  *ns = PerfettoTokenNs(t);
  return true;
}

// The contents of a JSON string token (unescaped simply: enough for names).
std::string Text(const std::string& token) {
  if (token.size() >= 2 && token.front() == '"') return token.substr(1, token.size() - 2);
  return {};
}

bool HasSurrogateEscape(std::string_view raw) {
  for (size_t i = 0; i + 5 < raw.size(); i++) {
    if (raw[i] != '\\') continue;
    if (raw[i + 1] == 'u' && (raw[i + 2] | 0x20) == 'd' && std::string_view("89abAB").find(raw[i + 3]) != std::string::npos)
      return true;
    i++;  // (an escaped character: skip it)
  }
  return false;
}

struct Ev {
  char ph = 0;
  std::string name, cat, pid, tid, id, bind_id, scope, bp, flow_in, flow_out, args;
  bool has_pid = false, has_tid = false, has_dur = false, id2 = false;
  int64_t ts = 0, dur = 0;
  size_t order = 0;
};

struct Slice {
  int64_t start, dur;  // dur -1: pending (a B)
  std::string name, cat;
};
constexpr int64_t kPending = -1;

class Importer {
 public:
  explicit Importer(PerfettoImport* r) : r_(*r) {}

  void Fail(const char* stat, const std::string& reason, bool forced) {
    r_.stats[stat]++;
    r_.reasons[reason]++;
    if (forced) r_.forced[reason]++;
  }

  // One event as the tokenizer and parser see it; kept ones go on to the tracks.
  void Event(od::object obj) {
    Ev e;
    e.order = r_.events++;
    bool any = false, ph_ok = false;
    std::string ts_tok, dur_tok, tts_tok, tdur_tok;
    for (auto field : obj) {
      any = true;
      std::string_view key;
      od::value v;
      if (field.unescaped_key().get(key) || field.value().get(v)) return void(r_.fatal = "unreadable event");
      std::string_view vraw;
      if (v.raw_json().get(vraw)) return void(r_.fatal = "unreadable value");
      const std::string tok = Trimmed(vraw);
      if (key == "ph") {
        ph_ok = tok.size() >= 3 && tok[0] == '"';
        e.ph = ph_ok ? tok[1] : 0;
      } else if (key == "ts") ts_tok = tok;
      else if (key == "dur") dur_tok = tok, e.has_dur = true;
      else if (key == "tts") tts_tok = tok;
      else if (key == "tdur") tdur_tok = tok;
      else if (key == "pid") e.pid = tok, e.has_pid = true;
      else if (key == "tid") e.tid = tok, e.has_tid = true;
      else if (key == "name") e.name = tok[0] == '"' ? Text(tok) : "";
      else if (key == "cat") e.cat = tok[0] == '"' ? Text(tok) : "";
      else if (key == "id") e.id = tok;
      else if (key == "bind_id") e.bind_id = tok;
      else if (key == "id2") e.id2 = tok.size() > 2 && tok[0] == '{';
      else if (key == "s") e.scope = Text(tok);
      else if (key == "bp") e.bp = Text(tok);
      else if (key == "flow_in") e.flow_in = tok;
      else if (key == "flow_out") e.flow_out = tok;
      else if (key == "args") e.args = tok;
    }
    if (!any) return;  // {}: skipped quietly
    // A dur, tts or tdur that is not a number stalls the tokenizer for good.
    int64_t scratch;
    for (const std::string* t : {&dur_tok, &tts_tok, &tdur_tok})
      if (!t->empty() && !Coerce(*t, &scratch)) r_.fatal = "a dur/tts/tdur that is not a number (Perfetto's reader stalls)";
    if (!ph_ok) return Fail("json_tokenizer_failure", "no ph", false);
    if (!Coerce(ts_tok, &e.ts)) {
      if (e.ph != 'M') return Fail("json_tokenizer_failure", ts_tok.empty() ? "no ts" : "ts not a number", false);
      e.ts = 0;
    }
    if (e.has_dur) Coerce(dur_tok, &e.dur);
    if (e.ts < 0) return void(r_.stats["trace_sorter_negative_timestamp_dropped"]++);
    if (!e.bind_id.empty() && e.flow_in != "true" && e.flow_out != "true")
      // (the input's own: no direction to write that it did not give — Perfetto keeps the slice)
      Fail("flow_without_direction", "bind_id without flow_in/flow_out", true);
    const bool args_object = e.args.size() >= 2 && e.args[0] == '{';
    switch (e.ph) {
      case 'X':
        if (!e.has_dur) return Fail("json_parser_failure", "X without dur", false);
        if (e.dur < 0) return void(r_.stats["slice_negative_duration"]++);
        has_x_ = true;
        break;
      case 'b': case 'e': case 'n':
        if (!e.has_pid) return Fail("json_parser_failure", "async without pid", false);
        if (e.id.empty() && !e.id2) return Fail("json_parser_failure", "async without id", true);
        return;
      case 'i': case 'I': case 'R':
        if (e.scope == "g") return;
        if (e.scope == "p") return e.has_pid ? void() : Fail("json_parser_failure", "process instant without pid", false);
        if (!e.has_tid) return Fail("json_parser_failure", "thread instant without tid", false);
        break;
      case 'C': Counter(e, args_object); return;
      case 'M': Metadata(e, args_object); return;
      case 'T':
        if (!e.has_dur) Fail("json_parser_failure", "T without dur", false);
        return;
      case 'B': case 'E': case 's': case 't': case 'f': break;
      default: return;  // S, F, p, N, O, D, …: ignored
    }
    // (a flow without an id is the input's; an id Perfetto cannot read would be ours: we renumber them)
    if ((e.ph == 's' || e.ph == 't' || e.ph == 'f') && !FlowIdOk(e.id))
      return e.id.empty() ? Fail("flow_invalid_id", "flow without id", true) : Fail("flow_invalid_id", "flow id", false);
    tracks_[Track(e)].push_back(std::move(e));
  }

  // The thread tracks, each in the order the sorter gives.
  void Tracks() {
    for (auto& [track, events] : tracks_) {
      std::sort(events.begin(), events.end(), [&](const Ev& a, const Ev& b) {
        return std::make_tuple(a.ts, TieKey(a), a.order) < std::make_tuple(b.ts, TieKey(b), b.order);
      });
      std::vector<Slice> stack;
      for (const Ev& e : events) Process(e, stack);
    }
  }

 private:
  static std::pair<std::string, std::string> Track(const Ev& e) {
    std::string tid = e.tid.empty() || e.tid == "0" ? e.pid : e.tid;
    return {e.pid, tid};
  }
  int64_t TieKey(const Ev& e) const {
    if (!has_x_) return 0;
    if (e.ph == 'E') return INT64_MIN;
    if (e.ph == 'X') return INT64_MAX - e.dur;
    return INT64_MAX;
  }
  static bool FlowIdOk(const std::string& id) {
    if (id.empty()) return false;
    if (id[0] != '"') return id.find_first_of(".eE") == std::string::npos;
    const std::string t = Text(id);
    char* end = nullptr;
    std::strtoull(t.c_str(), &end, 16);
    return !t.empty() && end == t.c_str() + t.size();
  }

  void Counter(const Ev& e, bool args_object) {
    if (!args_object) return Fail("json_parser_failure", "counter without args", true);
    simdjson::dom::parser p;
    simdjson::dom::object args;
    if (p.parse(e.args).get_object().get(args)) return Fail("json_parser_failure", "counter args", true);
    // A value must be a number: a numeric string fails the event too (trace_processor on a
    // Bazel profile's "cpu":"5.47…": json_parser_failure), and tracemerge writes it as one.
    for (auto [key, value] : args) {
      std::string_view s;
      if (value.is_number()) continue;
      const bool numeric_string = !value.get_string().get(s) && IsNumberText(std::string(s));
      Fail("json_parser_failure", numeric_string ? "counter value a numeric string" : "counter value not a number",
           !numeric_string);
    }
  }

  void Metadata(const Ev& e, bool args_object) {
    if (!args_object || e.args == "{}") return;
    simdjson::dom::parser p;
    simdjson::dom::element args;
    if (p.parse(e.args).get(args)) return;
    if (e.name == "process_name" || e.name == "thread_name") {
      std::string_view name;
      if (args["name"].get_string().get(name) || name.empty())
        Fail("json_parser_failure", "metadata name not a string", true);
    } else if (e.name == "process_sort_index" || e.name == "thread_sort_index") {
      std::string_view s;
      const bool numeric_string = !args["sort_index"].get_string().get(s) && IsNumberText(std::string(s));
      if (!args["sort_index"].is_number())
        Fail("json_parser_failure", numeric_string ? "sort_index a numeric string" : "sort_index not a number", !numeric_string);
    }
  }

  // SliceTracker::MaybeCloseStack; false when the new slice overlaps (spilled).
  bool CloseStack(std::vector<Slice>& stack, int64_t ts, int64_t dur) {
    bool incomplete = false;
    for (int i = static_cast<int>(stack.size()) - 1; i >= 0; i--) {
      const Slice& s = stack[i];
      if (s.dur == kPending) {
        incomplete = true;
        continue;
      }
      const int64_t end = s.start + s.dur;
      if (incomplete) {
        if (ts <= end) continue;
        r_.stats["misplaced_end_event"]++;
        stack.resize(static_cast<size_t>(i));  // the pending children and this slice
        incomplete = false;
        continue;
      }
      if (end < ts || (end == ts && !(s.dur == 0 && dur == 0))) {
        stack.pop_back();
        continue;
      }
      if (dur == kPending) continue;
      if (ts < end && ts + dur > end) return false;
    }
    return true;
  }

  void Process(const Ev& e, std::vector<Slice>& stack) {
    switch (e.ph) {
      case 'B':
        CloseStack(stack, e.ts, kPending);
        stack.push_back({e.ts, kPending, e.name.empty() ? "[No name]" : e.name, e.cat});
        return Flow2(e);
      case 'X': case 'i': case 'I': case 'R': {
        const int64_t dur = e.ph == 'X' ? e.dur : 0;
        if (!CloseStack(stack, e.ts, dur)) return void(r_.stats["slice_spill_overlapping_complete_event"]++);
        stack.push_back({e.ts, dur, e.name, e.cat});
        return Flow2(e);
      }
      case 'E': {
        CloseStack(stack, e.ts, kPending);
        for (int i = static_cast<int>(stack.size()) - 1; i >= 0; i--) {
          Slice& s = stack[static_cast<size_t>(i)];
          if (s.dur != kPending || (!e.cat.empty() && s.cat != e.cat) || (!e.name.empty() && s.name != e.name)) continue;
          s.dur = e.ts - s.start;
          if (i == static_cast<int>(stack.size()) - 1) stack.pop_back();
          break;
        }
        return;
      }
      case 's': {
        if (stack.empty()) return Fail("flow_no_enclosing_slice", "flow start outside a slice", true);
        if (!active_.insert(V1(e)).second) Fail("flow_duplicate_id", "flow id reused", true);
        return;
      }
      case 'f':
        if (e.bp == "e" && stack.empty()) Fail("flow_no_enclosing_slice", "flow end outside a slice", true);
        // Bound to the next slice instead, an f with no s before it leaves its
        // id in use (FlowTracker's flow_to_slice_map_ entry): a later s with it is a duplicate.
        if (e.bp != "e") active_.insert(V1(e));
        return;
    }
  }

  // A v1 flow's id: Perfetto numbers (id, cat, name) 0, 1, … as it meets them,
  // in the id space of the v2 flows' bind_ids.
  uint64_t V1(const Ev& e) {
    auto [it, added] = v1_.try_emplace({e.id, e.cat, e.name}, v1_.size());
    return it->second;
  }

  // v2 flows on the slice just begun: a bind_id as the flow id.
  void Flow2(const Ev& e) {
    if (e.bind_id.empty() || e.flow_out != "true" || e.flow_in == "true") return;
    const std::string t = e.bind_id[0] == '"' ? Text(e.bind_id) : e.bind_id;
    char* end = nullptr;
    const uint64_t id = std::strtoull(t.c_str(), &end, e.bind_id[0] == '"' ? 16 : 10);
    if (!active_.insert(id).second) Fail("flow_duplicate_id", "flow id reused", true);
  }

  PerfettoImport& r_;
  bool has_x_ = false;
  std::map<std::pair<std::string, std::string>, std::vector<Ev>> tracks_;
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> v1_;
  std::set<uint64_t> active_;  // flow ids in use (never released)
};

}  // namespace

PerfettoImport CheckPerfettoImport(const std::string& json) {
  PerfettoImport r;
  // Sniff: the first 128 bytes, whitespace taken out, start {" or [{".
  std::string head;
  for (char c : json.substr(0, 128))
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') head.push_back(c);
  if (head.rfind("{\"", 0) != 0 && head.rfind("[{\"", 0) != 0)
    return r.fatal = "not recognised as JSON (must start with {\" or [{\")", r;
  const size_t first = json.find_first_not_of(" \t\r\n");
  const size_t last = json.find_last_not_of(" \t\r\n");
  if (last + 1 != json.size()) r.fatal = "bytes after the last bracket (fatal when they fall in a later read)";
  od::parser parser;
  simdjson::padded_string padded(json);
  od::document doc;
  od::array events;
  if (parser.iterate(padded).get(doc)) return r.fatal = "not JSON", r;
  const bool object = json[first] == '{';
  if (object) {
    od::object top;
    if (doc.get_object().get(top)) return r.fatal = "not JSON", r;
    bool found = false;
    for (auto field : top) {
      std::string_view key, raw;
      od::value v;
      if (field.unescaped_key().get(key) || field.value().get(v)) return r.fatal = "bad top-level key", r;
      if (key == "traceEvents") {
        if (v.get_array().get(events)) return r.fatal = "traceEvents is not an array", r;
        found = true;
        break;  // (what follows is read below, as raw text)
      }
      if (v.raw_json().get(raw)) return r.fatal = "bad top-level value", r;
      if (key == "systemTraceEvents" && raw.front() != '"') return r.fatal = "systemTraceEvents is not a string", r;
    }
    if (!found) return r;
  } else if (doc.get_array().get(events)) {
    return r.fatal = "not JSON", r;
  }
  Importer imp(&r);
  for (auto item : events) {
    od::object ev;
    if (item.get_object().get(ev)) return r.fatal = "an event that is not an object", r;
    imp.Event(ev);
  }
  // Anywhere in the text (names, keys, args): Perfetto refuses surrogate escapes.
  if (HasSurrogateEscape(json)) r.fatal = "a \\uD800–\\uDFFF escape (Perfetto refuses the trace)";
  imp.Tracks();
  // After the events: raw 0x7F or control bytes in top-level keys or values fail the trace.
  const size_t tail = json.rfind("\"metadata\"");
  if (object && tail != std::string::npos)
    for (size_t i = tail; i < json.size(); i++)
      if (static_cast<unsigned char>(json[i]) == 0x7f) r.fatal = "a raw 0x7F after the events";
  return r;
}

std::map<std::string, uint64_t> Avoidable(const PerfettoImport& r) {
  std::map<std::string, uint64_t> out;
  for (auto& [reason, n] : r.reasons) {
    auto f = r.forced.find(reason);
    const uint64_t left = n - (f == r.forced.end() ? 0 : f->second);
    if (left) out["reason: " + reason] = left;
  }
  // The rest by stat (those with reasons are counted above).
  for (auto& [stat, n] : r.stats)
    if (stat != "json_parser_failure" && stat != "json_tokenizer_failure" && stat != "flow_invalid_id" &&
        stat != "flow_without_direction" && stat != "flow_duplicate_id" && stat != "flow_no_enclosing_slice" &&
        stat != "misplaced_end_event")
      out[stat] = n;
  if (!r.fatal.empty()) out["fatal: " + r.fatal] = 1;
  return out;
}

}  // namespace tracemerge::test
