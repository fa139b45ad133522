// Any other Chrome/Perfetto trace-event JSON ({"traceEvents":[…]} or a bare
// array): catapult, Perfetto's JSON, VizTracer, raw Horovod timelines, and
// PyTorch traces that do not say so in their first bytes. Its times are
// relative unless they already are Unix µs; nothing says its host, so it is a
// clock of its own.
//
//   "job/viz.json" (times ~6.5e9 µs) → no clock (NO_CLOCK), run "job", label "viz · trace"
//   "x.json" with every ts ≥ 1e15 µs (after 2001) → Unix µs in the file
#include <algorithm>

#include "formats/format.h"
#include "source.h"
#include "tokenizer.h"

namespace tracemerge {
namespace {

class Chrome final : public Format {
 public:
  FormatId id() const override { return FormatId::kChrome; }

  bool Recognise(std::string_view path, std::string_view head, Classification* c) const override {
    if (!LooksLikeJson(head)) return false;
    const std::string_view base = BaseName(path);
    c->kind = Kind::kOther;
    c->node = FileLabel(base);
    // As tracemerge and smdebug name their merged outputs.
    c->earlier_output = EndsWith(base, "_merged_timeline.json") || EndsWith(base, "_merged_timeline.json.gz");
    return true;
  }

  // A PyTorch trace cut or rewritten by another tool may not say what it is in
  // its first bytes: its events and keys are read as Kineto's, and it is
  // Kineto's once they say so (a step, a collective, its clock, rank or host).
  void ReadEvent(ParsedSource& s, uint32_t index, char ph, const EventFields& f) const override {
    KinetoFormat().ReadEvent(s, index, ph, f);
  }
  void ReadTop(ParsedSource& s, const TopLevel& top) const override {
    KinetoFormat().ReadTop(s, top);
    if (s.step_kind == StepKind::kProfilerStep || !s.anchors.empty() || !s.said.base_time.empty() ||
        s.said.rank >= 0 || !s.said.host.empty() ||
        std::any_of(s.procs.begin(), s.procs.end(), [](const Proc& p) { return p.rank >= 0; }))
      s.cls.format = FormatId::kKineto;
  }

  // Unix µs when its events as a whole say so: all but at most 1 in 100 after 2001 —
  // one event at ts 0 does not make a file clockless (ApplyClocks notes the strays).
  TimeBase Clock(const ParsedSource& s, const JobFacts&) const override {
    uint64_t timed = s.thin.timed, dated = s.thin.dated;  // (not "unix": a macro in some toolchains)
    for (const Event& e : s.events) {
      if (s.thin.thinned) break;  // (a scan's source: counted before it was thinned, summary.h)
      if (!e.has_ts) continue;
      timed++;
      dated += e.ts >= kEpoch2001Ns;
    }
    if (!dated || 100 * (timed - dated) > timed) return {};
    return {BaseKind::kUnixMicros, 0, "", "", ""};
  }

  Identity Identify(const ParsedSource& s, const JobFacts&) const override {
    Identity id;
    id.run = DroppedFolder(s.path, s.in_folder);
    id.node = s.cls.node;
    id.stream = "file " + s.path + '#' + std::to_string(s.arrival) + (s.report.pieces > 1 ? "." + std::to_string(s.report.piece) : "");
    id.label = s.cls.node + " · " + KindName(s.cls.kind);
    return id;
  }
};

}  // namespace

const Format& ChromeFormat() {
  static const Chrome format;
  return format;
}

}  // namespace tracemerge
