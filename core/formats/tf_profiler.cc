// TensorFlow's profiler traces as smdebug stores them:
// "<job>/framework/tensorflow/detailed_profiling/<hour>/<step:09d>/plugins/profile/<date>/<host>.trace.json.gz",
// with relative float µs. The absolute start comes only from the empty
// sidecar "<step folder>/<node id>_<start_us>_<end_us>.metadata", named by the
// node (smdebug's "<rank or pid>-<host>") that wrote it — where several nodes
// profiled a step, one per node, and on SageMaker the node's host ("algo-2")
// is not the machine's hostname TF names its trace after: which sidecar is a
// trace's is decided by ChooseTfClocks (tf_profiler_clock.cc).
//
//   …/000000000/80807-8c859046be41_1596659864545103_1596659864854168.metadata  → kind tf_metadata
//   …/000000000/plugins/profile/2020_08_05_13_37_44/8c859046be41.trace.json.gz
//     → kind tf_trace, node "8c859046be41"; clock +1596659864545103 µs, host "8c859046be41" (TF sidecar)
#include "formats/tf_profiler.h"

#include "event_parser.h"
#include "formats/collectives.h"
#include "formats/format.h"
#include "numbers.h"
#include "source.h"
#include "tokenizer.h"

namespace tracemerge {
namespace {

constexpr std::string_view kTraceSuffix = ".trace.json.gz";

class TfProfiler final : public Format {
 public:
  FormatId id() const override { return FormatId::kTfProfiler; }

  bool Recognise(std::string_view path, std::string_view head, Classification* c) const override {
    if (auto sidecar = ParseSidecar(path)) {
      c->kind = Kind::kSidecar;
      c->node = sidecar->node;
      c->reason = "TF time base (start " + sidecar->node + ")";
      return true;
    }
    const std::string_view base = BaseName(path);
    if (base.size() <= kTraceSuffix.size() || !EndsWith(base, kTraceSuffix) || TfStepDir(path).empty() ||
        !LooksLikeJson(head))
      return false;
    c->kind = Kind::kTfTrace;
    c->node = std::string(base.substr(0, base.size() - kTraceSuffix.size()));
    return true;
  }

  // "<tensor>:HorovodAllreduce" — the op Horovod's timeline names its pid after — is kept to tie the
  // trace to its host (ChooseTfClocks), under the key that timeline's anchors have (match.h TensorKey).
  void ReadEvent(ParsedSource& s, uint32_t index, char ph, const EventFields& f) const override {
    if (ph != 'X') return;
    const size_t colon = f.name.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return;
    const std::string_view type = f.name.substr(colon + 1);
    for (std::string_view op : {"ALLREDUCE", "ALLGATHER", "REDUCESCATTER"}) {
      constexpr std::string_view kHorovod = "Horovod";
      if (type.size() != kHorovod.size() + op.size() || type.substr(0, kHorovod.size()) != kHorovod ||
          SymmetricOp(type.substr(kHorovod.size())) != SymmetricOp(op))
        continue;
      s.anchors.push_back({index, AnchorTier::kTfOp, false, false,
                           std::string(SymmetricOp(op)) + '\x1f' + std::string(op) + '\x1f' + std::string(f.name.substr(0, colon))});
      return;
    }
  }

  // Its clock and host among its step folder's sidecars (and an XSpace's there),
  // once the other sources' hosts are known: a guess or an unknown host said.
  bool IdentifiedSecond(const ParsedSource& s) const override { return SidecarPlaced(s); }
  void LearnJob(std::vector<ParsedSource>& sources, JobFacts* job) const override {
    for (const ParsedSource& s : sources)
      if (s.cls.kind == Kind::kSidecar)
        if (auto sc = ParseSidecar(s.path)) job->sidecars.emplace(sc->step_dir, s.path);
    ChooseTfClocks(sources, job);
    for (ParsedSource& s : sources) {
      auto it = job->tf_clocks.find(s.path);
      if (!s.report.included || it == job->tf_clocks.end() || it->second.code == Code::kOk) continue;
      if (FormatOf(s.cls.format).Clock(s, *job).kind == BaseKind::kTfSidecar)
        s.Warn(it->second.code, 0, "placed by TF sidecar " + it->second.sidecar + ": " + it->second.detail);
    }
  }

  TimeBase Clock(const ParsedSource& s, const JobFacts& job) const override {
    auto it = job.tf_clocks.find(s.path);
    if (it == job.tf_clocks.end()) return {};
    return {BaseKind::kTfSidecar, MicrosToNs(it->second.start_us), it->second.sidecar, it->second.why, it->second.detail};
  }

  Identity Identify(const ParsedSource& s, const JobFacts& job) const override {
    Identity id;
    id.run = SmdebugRun(s.path, s.in_folder);
    id.node = s.cls.node;
    auto it = job.tf_clocks.find(s.path);
    if (it != job.tf_clocks.end() && !it->second.host.empty()) {
      id.host = it->second.host;
      id.host_from = it->second.host_from;
    }
    id.stream = "tf_trace " + s.cls.node;  // a node's profiled steps, one after another
    id.label = s.cls.node + " · tf_trace";
    return id;
  }
};

}  // namespace

std::optional<Sidecar> ParseSidecar(std::string_view path) {
  std::string_view base = BaseName(path);
  constexpr std::string_view kExt = ".metadata";
  if (base.size() <= kExt.size() || !EndsWith(base, kExt)) return std::nullopt;
  std::string_view s = base.substr(0, base.size() - kExt.size());
  const size_t b = s.find_last_of('_');
  if (b == std::string_view::npos || b == 0) return std::nullopt;
  const size_t a = s.find_last_of('_', b - 1);
  if (a == std::string_view::npos) return std::nullopt;
  std::string_view start = s.substr(a + 1, b - a - 1), end = s.substr(b + 1);
  if (!AllDigits(start) || !AllDigits(end) || start.size() > 18 || end.size() > 18) return std::nullopt;
  Sidecar sc;
  sc.step_dir = std::string(path.substr(0, path.size() - base.size()));
  if (!sc.step_dir.empty()) sc.step_dir.pop_back();
  sc.node = std::string(s.substr(0, a));
  sc.start_us = std::stoll(std::string(start));
  sc.end_us = std::stoll(std::string(end));
  return sc;
}

std::string TfStepDir(std::string_view path) {
  const size_t p = path.rfind("/plugins/profile/");
  if (p == std::string_view::npos) return {};
  return std::string(path.substr(0, p));
}

const Format& TfProfilerFormat() {
  static const TfProfiler format;
  return format;
}

}  // namespace tracemerge
