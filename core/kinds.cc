#include "kinds.h"

#include "formats/format.h"
#include "gzip.h"
#include "tokenizer.h"

namespace tracemerge {
namespace {

// The formats in the order they are asked: the first that recognises a file
// reads it. Chrome JSON last: it takes any trace the others do not.
constexpr FormatId kOrder[] = {FormatId::kXPlane, FormatId::kTfProfiler, FormatId::kSystemMetrics, FormatId::kSmdebug, FormatId::kKineto,
                               FormatId::kChrome};

}  // namespace

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

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
    case Kind::kXPlane: return "xplane";
    case Kind::kSidecar: return "tf_metadata";
    case Kind::kSkipped: return "skipped";
  }
  return "?";
}

const char* FormatName(FormatId id) {
  switch (id) {
    case FormatId::kNone: return "";
    case FormatId::kSmdebug: return "smdebug";
    case FormatId::kTfProfiler: return "tf_profiler";
    case FormatId::kSystemMetrics: return "system_metrics";
    case FormatId::kKineto: return "kineto";
    case FormatId::kChrome: return "chrome";
    case FormatId::kXPlane: return "xplane";
  }
  return "";
}

std::optional<Kind> KindFromFilterName(std::string_view n) {
  if (n == "pythontimeline.json" || n == "pythontimeline") return Kind::kPythonTimeline;
  if (n == "model_timeline.json" || n == "model_timeline") return Kind::kModelTimeline;
  if (n == "horovod_timeline.json" || n == "horovod") return Kind::kHorovod;
  if (n == "trace.json.gz" || n == "tf_trace") return Kind::kTfTrace;
  if (n == "system" || n == "system metrics") return Kind::kSystem;
  if (n == "other" || n == "other traces" || n == "trace") return Kind::kOther;
  if (n == "xplane.pb" || n == "xplane") return Kind::kXPlane;
  return std::nullopt;
}

Classification Classify(std::string_view path, std::string_view head) {
  std::string_view base = BaseName(path);
  Classification c;
  auto skip = [&](std::string reason, bool quiet) {
    c.kind = Kind::kSkipped;
    c.reason = std::move(reason);
    c.quiet = quiet;
    return c;
  };
  // What profilers write beside their traces (an XSpace, .xplane.pb, is a trace: xplane.cc).
  if (EndsWith(base, ".pb") && !EndsWith(base, ".xplane.pb")) return skip("protobuf file, not a trace", true);
  if (base == "python_stats") return skip("cProfile statistics, not a trace", true);
  if (EndsWith(base, ".tmp")) return skip("temporary file of a writer still running", true);
  if (base.find(".tfevents.") != std::string_view::npos) return skip("TensorBoard event file", true);
  for (FormatId id : kOrder)  // (xplane first: a binary file no JSON format should be asked about)
    if (FormatOf(id).Recognise(path, head, &c)) {
      c.format = id;
      return c;
    }
  if (head.empty()) return skip("empty file", false);
  return skip("not JSON (does not start with '[' or '{')", false);
}

Classification ClassifyRaw(std::string_view path, std::string_view raw_head) {
  if (!LooksGzipped(raw_head)) return Classify(path, raw_head.substr(0, 4096));
  Inflater inflater(4096);
  ByteBuffer head;
  inflater.Feed(raw_head, head);
  return Classify(path, head.view());
}

}  // namespace tracemerge
