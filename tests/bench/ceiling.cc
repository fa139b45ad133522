// The parse-only ceiling for the benchmark: inflate (zlib, streaming) and scan
// every event with simdjson On-Demand — the same sources and flags as the merge,
// and nothing else. Prints "bytes events seconds".
//   ceiling FILE...
// With --keep, a second reference: the least a merge does before it can sort
// and write — every value visited and validated (strings unescaped, numbers
// parsed, objects and arrays entered) and a compact copy of every event kept
// in memory (the output wants them in another order).
//   ceiling --keep FILE...
// With --dom, the reference scripts/bench.sh measures the merge against:
// inflate and simdjson's DOM parser (dom::parser::parse: structure, strings,
// numbers and UTF-8 all validated, one thread) on each file — JSON lines
// (system metrics) with parse_many.
//   ceiling --dom FILE...
// With --dom-all, the same, each file's document kept until the end (a parser
// per file): reading the whole job and holding it, as a merge that orders
// every event across files must.
//   ceiling --dom-all FILE...
// With --touch, what writing MB of memory fresh from the system costs (the
// page faults a merge pays for what it holds; a second write costs ~nothing):
//   ceiling --touch MB
#include <zlib.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "simdjson.h"

namespace od = simdjson::ondemand;

static volatile uint64_t sink;  // what the scan read, so that it is not optimized away

static std::string ReadAll(const char* path) {
  std::string raw;
  FILE* f = std::fopen(path, "rb");
  if (!f) return raw;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) raw.append(buf, n);
  std::fclose(f);
  return raw;
}

static std::string Inflate(const std::string& gz) {
  z_stream z{};
  inflateInit2(&z, 15 + 32);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[1 << 16];
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  } while (rc == Z_OK);
  inflateEnd(&z);
  return out;
}

static bool keep = false;  // --keep
static std::string kept;   // --keep: the events' compact copies (cleared per file)

static bool KeepValue(od::value v);

// --keep: an object's fields, each value validated, copied compactly to `kept`.
static bool KeepObject(od::object obj) {
  kept.push_back('{');
  bool first = true;
  for (auto fr : obj) {
    od::field field;
    if (std::move(fr).get(field)) return false;
    if (!first) kept.push_back(',');
    first = false;
    kept.push_back('"');
    kept.append(field.escaped_key());
    kept.append("\":");
    if (!KeepValue(field.value())) return false;
  }
  kept.push_back('}');
  return true;
}

static bool KeepValue(od::value v) {
  od::json_type type;
  if (v.type().get(type)) return false;
  switch (type) {
    case od::json_type::object: {
      od::object o;
      return !v.get_object().get(o) && KeepObject(o);
    }
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a)) return false;
      kept.push_back('[');
      bool first = true;
      for (auto element : a) {
        od::value e;
        if (element.get(e)) return false;
        if (!first) kept.push_back(',');
        first = false;
        if (!KeepValue(e)) return false;
      }
      kept.push_back(']');
      return true;
    }
    case od::json_type::string: {
      std::string_view raw = v.raw_json_token(), text;
      if (v.get_string().get(text)) return false;  // escapes checked
      while (!raw.empty() && raw.back() != '"') raw.remove_suffix(1);
      kept.append(raw);
      return true;
    }
    case od::json_type::number: {
      std::string_view raw = v.raw_json_token();
      double d;
      if (v.get_double().get(d)) return false;
      sink += d > 0;
      while (!raw.empty() && static_cast<unsigned char>(raw.back()) <= ' ') raw.remove_suffix(1);
      kept.append(raw);
      return true;
    }
    case od::json_type::boolean: {
      bool b;
      if (v.get_bool().get(b)) return false;
      kept.append(b ? "true" : "false");
      return true;
    }
    default:
      bool null = false;
      if (v.is_null().get(null) || !null) return false;
      kept.append("null");
      return true;
  }
}

// Visits every field of an event (keys and raw values), as a merge must.
// With --keep, false when the event is not valid: it is not counted, and the
// scan of its file stops there.
static bool ScanFields(od::object obj) {
  if (keep) return KeepObject(obj);
  for (auto fr : obj) {
    od::field field;
    if (std::move(fr).get(field)) break;
    std::string_view key = field.escaped_key();
    std::string_view raw;
    if (!field.value().raw_json().get(raw)) sink += key.size() + raw.size();
  }
  return true;
}

static uint64_t ScanEvents(od::array events) {
  uint64_t n = 0;
  for (auto ev : events) {
    od::object obj;
    if (ev.get_object().get(obj)) continue;
    if (!ScanFields(obj)) break;  // (On-Demand cannot go on after an error)
    n++;
  }
  return n;
}

// --dom: the file through simdjson's DOM parser; its events (array
// elements, traceEvents elements, or lines) counted.
static uint64_t Dom(simdjson::dom::parser& parser, const simdjson::padded_string& padded) {
  simdjson::dom::element doc;
  if (!parser.parse(padded).get(doc)) {
    simdjson::dom::array events;
    if (!doc.get_array().get(events) || !doc["traceEvents"].get_array().get(events)) return events.size();
    return 0;
  }
  uint64_t n = 0;
  simdjson::dom::document_stream lines;
  if (parser.parse_many(padded).get(lines)) return 0;
  for (auto line : lines) {
    simdjson::dom::element e;
    if (line.get(e)) break;  // (a broken last line: the writer was still appending)
    n++;
  }
  return n;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--touch") {
    const size_t n = static_cast<size_t>(std::atol(argv[2])) << 20;
    auto t0 = std::chrono::steady_clock::now();
    char* p = static_cast<char*>(std::malloc(n));
    if (!p) return 1;
    std::memset(p, 1, n);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sink = static_cast<unsigned char>(p[n / 2]);
    std::printf("%zu 0 %.6f\n", n, seconds);
    std::free(p);
    return 0;
  }
  uint64_t bytes = 0, events = 0;
  double seconds = 0;
  od::parser parser;
  simdjson::dom::parser dom;
  bool use_dom = false, dom_all = false;
  std::vector<std::unique_ptr<simdjson::dom::parser>> held;  // --dom-all: every file's document
  int first = 1;
  if (argc > 1 && std::string(argv[1]) == "--keep") keep = true, first = 2;
  if (argc > 1 && std::string(argv[1]) == "--dom") use_dom = true, first = 2;
  if (argc > 1 && std::string(argv[1]) == "--dom-all") use_dom = dom_all = true, first = 2;
  for (int i = first; i < argc; i++) {
    std::string raw = ReadAll(argv[i]);  // file reading is not timed
    std::string().swap(kept);
    auto t0 = std::chrono::steady_clock::now();
    std::string text = raw.size() > 1 && static_cast<unsigned char>(raw[0]) == 0x1f ? Inflate(raw) : raw;
    simdjson::padded_string padded(text);
    if (keep) kept.reserve(text.size());
    bytes += text.size();
    // An array of events, an object with "traceEvents", or else JSON lines
    // (system metrics: the first line is an object too, without the key).
    od::document doc;
    od::array arr;
    od::object top;
    if (dom_all) {
      held.push_back(std::make_unique<simdjson::dom::parser>());
      events += Dom(*held.back(), padded);
    } else if (use_dom) {
      events += Dom(dom, padded);
    } else if (!parser.iterate(padded).get(doc) && !doc.get_array().get(arr)) {
      events += ScanEvents(arr);
    } else if (!parser.iterate(padded).get(doc) && !doc.get_object().get(top) &&
               !top["traceEvents"].get_array().get(arr)) {
      events += ScanEvents(arr);
    } else {
      od::document_stream lines;
      if (!parser.iterate_many(padded).get(lines))
        for (auto line : lines) {  // each line's fields too, as for trace events
          od::object o;
          if (line.get_object().get(o)) continue;
          if (!ScanFields(o)) break;
          events++;
        }
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sink += kept.size();
  }
  std::printf("%llu %llu %.4f\n", static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(events), seconds);
  return 0;
}
