#include "kinds.h"

#include <cctype>

#include "gzip.h"
#include "tokenizer.h"

namespace tracemerge {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "1594662624718694_905-b88ab1bb8259_pythontimeline.json" → "905-b88ab1bb8259"
std::string SmdebugNode(std::string_view base, std::string_view suffix) {
  std::string_view s = base.substr(0, base.size() - suffix.size());
  if (!s.empty() && s.back() == '_') s.remove_suffix(1);
  size_t us = s.find('_');
  if (us != std::string_view::npos && AllDigits(s.substr(0, us))) s.remove_prefix(us + 1);
  return std::string(s.empty() ? base : s);
}

// "rank-0.json.gz" → "rank-0"
std::string FileLabel(std::string_view base) {
  for (std::string_view ext : {".gz", ".json", ".trace", ".pt"})
    if (EndsWith(base, ext) && base.size() > ext.size()) base.remove_suffix(ext.size());
  return std::string(base);
}

// The first line of JSON-lines system metrics names these fields.
bool LooksLikeSystemMetrics(std::string_view head) {
  size_t nl = head.find('\n');
  std::string_view line = head.substr(0, nl);
  return !line.empty() && line.front() == '{' &&
         line.find("\"Dimension\"") != std::string_view::npos &&
         line.find("\"Timestamp\"") != std::string_view::npos;
}

}  // namespace

std::string_view BaseName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kPythonTimeline: return "pythontimeline";
    case Kind::kModelTimeline: return "model_timeline";
    case Kind::kHorovod: return "horovod";
    case Kind::kTfTrace: return "tf_trace";
    case Kind::kSystem: return "system";
    case Kind::kOther: return "trace";
    case Kind::kSidecar: return "tf_metadata";
    case Kind::kSkipped: return "skipped";
  }
  return "?";
}

std::optional<Kind> KindFromFilterName(std::string_view n) {
  if (n == "pythontimeline.json" || n == "pythontimeline") return Kind::kPythonTimeline;
  if (n == "model_timeline.json" || n == "model_timeline") return Kind::kModelTimeline;
  if (n == "horovod_timeline.json" || n == "horovod") return Kind::kHorovod;
  if (n == "trace.json.gz" || n == "tf_trace") return Kind::kTfTrace;
  if (n == "system" || n == "system metrics") return Kind::kSystem;
  if (n == "other" || n == "other traces" || n == "trace") return Kind::kOther;
  return std::nullopt;
}

bool IsSmdebugKind(Kind k) {
  return k == Kind::kPythonTimeline || k == Kind::kModelTimeline || k == Kind::kHorovod;
}

std::optional<Sidecar> ParseSidecar(std::string_view path) {
  std::string_view base = BaseName(path);
  if (!EndsWith(base, ".metadata")) return std::nullopt;
  std::string_view s = base.substr(0, base.size() - 9);
  size_t b = s.find_last_of('_');
  if (b == std::string_view::npos) return std::nullopt;
  size_t a = s.find_last_of('_', b - 1);
  if (a == std::string_view::npos || b == 0) return std::nullopt;
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
  size_t p = path.rfind("/plugins/profile/");
  if (p == std::string_view::npos) return {};
  return std::string(path.substr(0, p));
}

Classification Classify(std::string_view path, std::string_view head) {
  std::string_view base = BaseName(path);
  Classification c;
  if (auto sidecar = ParseSidecar(path)) {
    c.kind = Kind::kSidecar;
    c.node = sidecar->node;
    return c;
  }
  auto skip = [&](std::string reason, bool quiet) {
    c.kind = Kind::kSkipped;
    c.reason = std::move(reason);
    c.quiet = quiet;
    return c;
  };
  if (EndsWith(base, ".pb")) return skip("protobuf file, not a trace", true);
  if (base == "python_stats") return skip("cProfile statistics, not a trace", true);
  if (EndsWith(base, ".tmp")) return skip("temporary file of a writer still running", true);
  if (base.find(".tfevents.") != std::string_view::npos) return skip("TensorBoard event file", true);
  if (head.empty()) return skip("empty file", false);
  if (!LooksLikeJson(head)) return skip("not JSON (does not start with '[' or '{')", false);

  if (LooksLikeSystemMetrics(head)) {
    c.kind = Kind::kSystem;
    size_t dot = base.find('.');
    size_t json = base.find(".json");
    c.node = (dot != std::string_view::npos && json != std::string_view::npos && json > dot)
                 ? std::string(base.substr(dot + 1, json - dot - 1))
                 : FileLabel(base);
    return c;
  }
  struct Suffix {
    std::string_view text;
    Kind kind;
  };
  for (const Suffix& s : {Suffix{"pythontimeline.json", Kind::kPythonTimeline},
                          Suffix{"model_timeline.json", Kind::kModelTimeline},
                          Suffix{"horovod_timeline.json", Kind::kHorovod}}) {
    if (EndsWith(base, s.text)) {
      c.kind = s.kind;
      c.node = SmdebugNode(base, s.text);
      return c;
    }
  }
  if (EndsWith(base, ".trace.json.gz") && !TfStepDir(path).empty()) {
    c.kind = Kind::kTfTrace;
    c.node = std::string(base.substr(0, base.size() - 14));
    return c;
  }
  c.kind = Kind::kOther;
  c.node = FileLabel(base);
  c.earlier_output = EndsWith(base, "_merged_timeline.json") || EndsWith(base, "_merged_timeline.json.gz");
  return c;
}

Classification ClassifyRaw(std::string_view path, std::string_view raw_head) {
  if (!LooksGzipped(raw_head)) return Classify(path, raw_head.substr(0, 4096));
  Inflater inflater(4096);
  ByteBuffer head;
  inflater.Feed(raw_head, head);
  return Classify(path, head.view());
}

}  // namespace tracemerge
