#include "kinds.h"

#include "formats/format.h"
#include "gzip.h"
#include "tokenizer.h"

namespace tracemerge {
#define TRACEMERGE_KIND_ROW(id, name, only, label, alias) {Kind::id, name, only, label},
const KindRow kKindRows[kEventKinds] = {TRACEMERGE_EVENT_KINDS(TRACEMERGE_KIND_ROW)};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

const char* KindName(Kind kind) {
  switch (kind) {
#define TRACEMERGE_KIND_NAME(id, name, ...) \
  case Kind::id: return name;
    TRACEMERGE_EVENT_KINDS(TRACEMERGE_KIND_NAME)
    TRACEMERGE_OTHER_KINDS(TRACEMERGE_KIND_NAME)
  }
  return "?";
}

const char* FormatName(FormatId id) {
  switch (id) {
    case FormatId::kNone: return "";
#define TRACEMERGE_FORMAT_NAME(id, name, factory) \
  case FormatId::id: return name;
    TRACEMERGE_FORMATS(TRACEMERGE_FORMAT_NAME)
  }
  return "";
}

std::optional<Kind> KindFromFilterName(std::string_view n) {
#define TRACEMERGE_KIND_FILTER(id, name, only, label, alias) \
  if (n == only || n == name || (*alias && n == alias)) return Kind::id;
  TRACEMERGE_EVENT_KINDS(TRACEMERGE_KIND_FILTER)
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
  for (FormatId id : kFormatOrder)
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
