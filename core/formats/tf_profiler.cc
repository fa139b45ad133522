// TensorFlow's profiler traces as smdebug stores them:
// "<job>/framework/tensorflow/detailed_profiling/<hour>/<step:09d>/plugins/profile/<date>/<host>.trace.json.gz",
// with relative float µs. The absolute start comes only from the empty
// sidecar "<step folder>/<node id>_<start_us>_<end_us>.metadata", which also
// names the node (smdebug's "<rank or pid>-<host>") that wrote the trace.
//
//   …/000000000/80807-8c859046be41_1596659864545103_1596659864854168.metadata  → kind tf_metadata
//   …/000000000/plugins/profile/2020_08_05_13_37_44/8c859046be41.trace.json.gz
//     → kind tf_trace, node "8c859046be41"; clock +1596659864545103 µs, host "8c859046be41" (TF sidecar)
#include "formats/tf_profiler.h"

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

  TimeBase Clock(const ParsedSource& s, const JobFacts& job) const override {
    const std::optional<Sidecar> sc = SidecarOf(s, job);
    if (!sc) return {};
    return {BaseKind::kTfSidecar, MicrosToNs(sc->start_us), sc->name};
  }

  Identity Identify(const ParsedSource& s, const JobFacts& job) const override {
    Identity id;
    id.run = SmdebugRun(s.path, s.in_folder);
    id.node = s.cls.node;
    if (const std::optional<Sidecar> sc = SidecarOf(s, job)) {
      id.host = HostOfNodeId(sc->node);
      id.host_from = "TF sidecar";
    } else {
      id.host = s.cls.node;
      id.host_from = "file name";
    }
    id.stream = "tf_trace " + s.cls.node;  // a node's profiled steps, one after another
    id.label = s.cls.node + " · tf_trace";
    return id;
  }

 private:
  // The sidecar of s's step folder — where several nodes profiled that step,
  // the one whose node is on s's host (its file's name).
  static std::optional<Sidecar> SidecarOf(const ParsedSource& s, const JobFacts& job) {
    auto [lo, hi] = job.sidecars.equal_range(TfStepDir(s.path));
    std::optional<Sidecar> only, same_host;
    size_t n = 0;
    for (auto it = lo; it != hi; ++it) {
      auto sc = ParseSidecar(it->second);
      if (!sc) continue;
      sc->name = std::string(BaseName(it->second));
      n++;
      if (!only) only = sc;
      if (!same_host && HostOfNodeId(sc->node) == s.cls.node) same_host = sc;
    }
    return same_host ? same_host : n == 1 ? only : std::nullopt;
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
