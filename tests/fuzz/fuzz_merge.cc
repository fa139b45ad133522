// libFuzzer target: a whole Merge of 1–3 sources with options from the input.
//
// Input: [flags][chunk][start: 8 bytes LE, if flags & 1][end: 8 bytes LE, if flags & 2]
//        source 1 [kSep source 2 [kSep source 3]]
//   flags & 1, 2   window start, end (Unix µs, or steps with flags & 4)
//   flags & 4      unit=step            flags & 8    group=phase
//   flags & 16     gzip the output      flags & 32   tight limits (4 KiB per file, depth 4)
//   flags >> 6     which set of file names the sources get (kNames)
//   chunk          AppendChunk size, low 5 bits (0: each source in one piece);
//                  bits 5–6: --align (0 none, 1 clocks, 2 steps, 3 clocks);
//                  bit 7: merge again on 2–4 threads (flags byte mod 3), source 2 parsed
//                  by another Merger and imported (ExportSource/ImportSource)
//                  in the middle of source 3, and compare
// Source i is named kNames[set][i]; the name and the content decide its kind.
//
// Checks: a fatal report writes nothing; that second merge's output and report
// equal the first's; otherwise the output (inflated when
// gzipped) is strictly valid JSON with a traceEvents array, and every included
// source keeps the books (read = kept + dropped + outside + merged + unused).
// FUZZ_MERGE_DUMP=out.json fuzz_merge crash-… writes the output for a look.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "gzip.h"
#include "merger.h"
#include "simdjson.h"
#include "perfetto_check.h"
#include "viewer_check.h"

namespace {

using namespace tracemerge;

constexpr std::string_view kSep = "\n#~#\n";

constexpr const char* kNames[4][3] = {
    {"j/framework/pevents/1/1_n_pythontimeline.json", "j/system/incremental/1/1.algo-1.json", "x.json.gz"},
    {"j/framework/pevents/1/2_n_model_timeline.json", "j/framework/pevents/1/3_n_horovod_timeline.json",
     "j/framework/pevents/1/4_n_pythontimeline.json"},
    {"j/framework/tensorflow/detailed_profiling/1/000000000/plugins/profile/d/h.trace.json.gz",
     "j/framework/tensorflow/detailed_profiling/1/000000000/h_1596659864545103_1596659864854168.metadata",
     "rank-0.pt.trace.json"},
    {"a.json", "h/plugins/profile/s/host-c.xplane.pb", "h2/rank1.pt.trace.json"},
};

[[noreturn]] void Fail(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "fuzz_merge: %s %s\n", what, detail.c_str());
  std::abort();
}

int64_t ReadI64(std::string_view* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8 && !in->empty(); i++) {
    v |= uint64_t{static_cast<uint8_t>(in->front())} << (8 * i);
    in->remove_prefix(1);
  }
  return static_cast<int64_t>(v);
}

// Whether every ts and dur is one a viewer holds in int64 ns (|µs| < 9.2e15).
bool AllTimesReadable(simdjson::dom::element doc) {
  simdjson::dom::array events;
  if (doc["traceEvents"].get_array().get(events)) return false;
  for (simdjson::dom::element e : events) {
    for (const char* key : {"ts", "dur"}) {
      double v = 0;
      if (!e[key].get_double().get(v) && !(v > -9e15 && v < 9e15)) return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const uint8_t flags = data[0], chunk = data[1] & 0x1f;
  const bool two_threads = data[1] & 0x80;
  in.remove_prefix(2);

  Options opt;
  if (flags & 1) opt.start = ReadI64(&in);
  if (flags & 2) opt.end = ReadI64(&in);
  if (flags & 4) opt.unit = Unit::kStep;
  if (flags & 8) opt.group = Group::kPhase;
  opt.align = (data[1] >> 5 & 3) == 2 ? Align::kSteps : (data[1] >> 5 & 3) ? Align::kClocks : Align::kNone;
  opt.gzip = flags & 16;
  opt.max_inflated_bytes = (flags & 32) ? 4096 : uint64_t{1} << 24;
  if (flags & 32) opt.max_depth = 4;
  const auto& names = kNames[flags >> 6];

  // helped: source 2 comes from a helper merger, imported once source 3 has begun.
  auto merge = [&](const Options& o, bool helped, std::string* out) {
    Merger m(o);
    std::string_view rest = in;
    ByteBuffer imported;
    uint32_t arrival = 0;
    auto import = [&] {
      if (!imported.empty() && !m.ImportSource(std::move(imported), arrival)) Fail("an export was refused");
      imported = ByteBuffer();
    };
    for (int i = 0; i < 3; i++) {
      size_t cut = i == 2 ? std::string_view::npos : rest.find(kSep);
      std::string_view src = rest.substr(0, cut);
      const size_t step = chunk ? chunk : std::max<size_t>(src.size(), 1);
      if (helped && i == 1) {
        Options ho = o;
        ho.threads = 1;
        Merger h(ho);
        h.BeginSource(names[i]);
        for (size_t k = 0; k < src.size(); k += step) h.AppendChunk(src.substr(k, step));
        h.EndSource();
        imported = h.ExportSource();
        arrival = m.ReserveArrival();
        if (imported.empty()) Fail("nothing exported");
      } else {
        m.BeginSource(names[i]);
        for (size_t k = 0; k < src.size(); k += step) {
          m.AppendChunk(src.substr(k, step));
          if (i == 2) import();
        }
        m.EndSource();
      }
      if (cut == std::string_view::npos) break;
      rest.remove_prefix(cut + kSep.size());
    }
    import();
    return m.Merge([&](std::string_view b) { out->append(b); });
  };
  std::string out;
  Report r = merge(opt, false, &out);
  if (two_threads) {
    Options o = opt;
    o.threads = 2 + data[0] % 3;  // 2, 3 or 4
    std::string out2;
    Report r2 = merge(o, true, &out2);
    if (out2 != out) Fail("the output differs written on two threads, with an imported source");
    if (r2.ToJson() != r.ToJson()) Fail("the report differs written on two threads, with an imported source");
  }

  if (r.fatal) {
    if (!out.empty()) Fail("fatal report but output was written:", r.fatal->ToString());
    return 0;
  }
  if (opt.gzip) {
    Inflater inf(uint64_t{1} << 32);
    ByteBuffer text;
    inf.Feed(out, text);
    const Status finished = inf.Finish();
    const Diagnostic& d = finished.error();
    if (!finished.ok()) Fail("gzipped output does not inflate:", d.ToString());
    out.assign(text.view());
  }
  if (const char* dump = std::getenv("FUZZ_MERGE_DUMP")) {  // to look at a finding's output
    if (FILE* f = std::fopen(dump, "wb")) {
      std::fwrite(out.data(), 1, out.size(), f);
      std::fclose(f);
    }
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array events;
  if (auto e = parser.parse(out).get(doc)) Fail("output is not valid JSON:", simdjson::error_message(e));
  if (doc["traceEvents"].get_array().get(events)) Fail("output has no traceEvents array");
  for (const SourceReport& s : r.sources) {
    if (s.included && s.events_read != s.events_kept + s.events_dropped + s.events_outside + s.metadata_merged +
                                           s.metadata_unused)
      Fail("events unaccounted for in", s.path);
  }
  // Slices nest or follow each other on their tracks, however a viewer reads
  // the times — unless a thread ran out of lanes (a note says so), or a time
  // is beyond what a viewer computes with (its ns overflow 64 bits).
  if (!AllTimesReadable(doc)) return 0;
  const tracemerge::test::Readings readings = tracemerge::test::CheckReadings(out);
  if (r.threads_out_of_lanes == 0 && !readings.ok() && readings.error.empty())
    Fail("slices overlap as a viewer reads them:", readings.first);
  // Perfetto imports it without an error our writing could have avoided
  // (times before 1970 from a source's own clock are the data's).
  {
    bool absolute = false;
    for (const SourceReport& s : r.sources) absolute |= s.included && s.absolute;
    auto avoidable = tracemerge::test::Avoidable(tracemerge::test::CheckPerfettoImport(out));
    if (absolute) avoidable.erase("trace_sorter_negative_timestamp_dropped");
    if (!avoidable.empty()) Fail("Perfetto would refuse:", avoidable.begin()->first);
  }
  return 0;
}
