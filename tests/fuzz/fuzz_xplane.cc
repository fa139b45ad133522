// libFuzzer target: one XSpace (.xplane.pb) merged alone — the protobuf wire
// reader (core/formats/protobuf.cc) and the XPlane module (xplane.cc) on
// hostile bytes: truncated varints, lengths past the end, wrong wire types,
// absurd counts, deep nesting.
//
// Input: [flags] XSpace bytes
//   flags & 0x1f   AppendChunk size (0: in one piece)
//   flags & 0x20   named after a host ("10.0.0.7_6003.xplane.pb"), else "profile.xplane.pb"
//   flags & 0x40   gzipped first (as a .xplane.pb.gz would come)
//   flags & 0x80   parsed by another Merger and imported (ExportSource/ImportSource)
//
// Checks: no crash; a fatal report writes nothing; a damaged file is a warning
// naming a byte inside the file; the output is strictly valid JSON with a
// traceEvents array and the source keeps the books (read = kept + dropped +
// outside + merged + unused); read in chunks, or imported, it is the same
// output and report as read in one piece here, and read a plane at a time as the
// bytes come (as a file too large to hold whole is).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gzip.h"
#include "merger.h"
#include "simdjson.h"

namespace {

using namespace tracemerge;

[[noreturn]] void Fail(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "fuzz_xplane: %s %s\n", what, detail.c_str());
  std::abort();
}

struct Merged {
  std::string out;
  Report report;
};

// pieces: read as the bytes come, a plane at a time (past 16 bytes held: parse.h ReadInPieces).
Merged Merge(std::string_view name, std::string_view bytes, size_t chunk, bool helped, bool pieces = false) {
  Options o;
  o.max_inflated_bytes = uint64_t{1} << 24;
  if (pieces) o.big_input_bytes = 16;
  Merged r;
  Merger m(o);
  if (helped) {
    Merger h(o);
    h.BeginSource(std::string(name));
    for (size_t k = 0; k < bytes.size(); k += chunk) h.AppendChunk(bytes.substr(k, chunk));
    h.EndSource();
    ByteBuffer exported = h.ExportSource();
    if (exported.empty()) Fail("nothing exported");
    if (!m.ImportSource(std::move(exported), m.ReserveArrival())) Fail("an export was refused");
  } else {
    m.BeginSource(std::string(name));
    for (size_t k = 0; k < bytes.size(); k += chunk) m.AppendChunk(bytes.substr(k, chunk));
    m.EndSource();
  }
  r.report = m.Merge([&](std::string_view b) { r.out.append(b); });
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (flags & 0x40) {
    std::string packed;
    GzipWriter gz([&](std::string_view b) { packed.append(b); });
    gz.Write(bytes);
    gz.Finish();
    bytes = packed;
  }
  const std::string name = std::string("job/plugins/profile/s/") +
                           ((flags & 0x20) ? "10.0.0.7_6003.xplane.pb" : "profile.xplane.pb") + ((flags & 0x40) ? ".gz" : "");
  const size_t chunk = (flags & 0x1f) ? (flags & 0x1f) : std::max<size_t>(bytes.size(), 1);

  const Merged whole = Merge(name, bytes, std::max<size_t>(bytes.size(), 1), false);
  const Merged again = Merge(name, bytes, chunk, flags & 0x80);
  if (again.out != whole.out) Fail("the output differs read in chunks or imported");
  if (again.report.ToJson() != whole.report.ToJson()) Fail("the report differs read in chunks or imported");
  const Merged pieces = Merge(name, bytes, chunk, false, true);
  if (pieces.out != whole.out) Fail("the output differs read a plane at a time");
  if (pieces.report.ToJson() != whole.report.ToJson()) Fail("the report differs read a plane at a time");

  const Report& r = whole.report;
  if (r.fatal) {
    if (!whole.out.empty()) Fail("fatal report but output was written:", r.fatal->ToString());
    return 0;
  }
  for (const SourceReport& s : r.sources) {
    if (s.included && s.events_read != s.events_kept + s.events_dropped + s.events_outside + s.metadata_merged +
                                           s.metadata_unused)
      Fail("events unaccounted for in", s.path);
    for (const Diagnostic& d : r.warnings)
      if (d.file == s.path && d.AtByte() && d.offset > s.inflated_bytes)
        Fail("a warning names a byte past the file's end:", d.ToString());
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array events;
  if (auto e = parser.parse(whole.out).get(doc)) Fail("output is not valid JSON:", simdjson::error_message(e));
  if (doc["traceEvents"].get_array().get(events)) Fail("output has no traceEvents array");
  return 0;
}
