// The parse-only ceiling for the benchmark: inflate (zlib, streaming) and scan
// every event with simdjson On-Demand — the same sources and flags as the merge,
// and nothing else. Prints "bytes events seconds".
//   ceiling FILE...
#include <zlib.h>

#include <chrono>
#include <cstdio>
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

// Visits every field of an event (keys and raw values), as a merge must.
static void ScanFields(od::object obj) {
  for (auto fr : obj) {
    od::field field;
    if (std::move(fr).get(field)) break;
    std::string_view key = field.escaped_key();
    std::string_view raw;
    if (!field.value().raw_json().get(raw)) sink += key.size() + raw.size();
  }
}

static uint64_t ScanEvents(od::array events) {
  uint64_t n = 0;
  for (auto ev : events) {
    od::object obj;
    if (ev.get_object().get(obj)) continue;
    ScanFields(obj);
    n++;
  }
  return n;
}

int main(int argc, char** argv) {
  uint64_t bytes = 0, events = 0;
  double seconds = 0;
  od::parser parser;
  for (int i = 1; i < argc; i++) {
    std::string raw = ReadAll(argv[i]);  // file reading is not timed
    auto t0 = std::chrono::steady_clock::now();
    std::string text = raw.size() > 1 && static_cast<unsigned char>(raw[0]) == 0x1f ? Inflate(raw) : raw;
    simdjson::padded_string padded(text);
    bytes += text.size();
    od::document doc;
    if (!parser.iterate(padded).get(doc)) {
      od::array arr;
      od::object top;
      if (!doc.get_array().get(arr)) {
        events += ScanEvents(arr);
      } else if (!parser.iterate(padded).get(doc) && !doc.get_object().get(top)) {
        od::array ev;
        if (!top["traceEvents"].get_array().get(ev)) events += ScanEvents(ev);
      } else {  // JSON lines (system metrics)
        od::document_stream lines;
        if (!parser.iterate_many(padded).get(lines))
          for (auto line : lines) {  // each line's fields too, as for trace events
            od::object o;
            if (line.get_object().get(o)) continue;
            ScanFields(o);
            events++;
          }
      }
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::printf("%llu %llu %.4f\n", static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(events), seconds);
  return 0;
}
