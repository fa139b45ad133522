// What the formats share: the registry, the names of time bases and step
// kinds, and the parts of identities more than one format uses.
#include "formats/format.h"

#include <cctype>

namespace tracemerge {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

const Format& FormatOf(FormatId id) {
  switch (id) {
#define TRACEMERGE_FORMAT_OF(id, name, factory) \
  case FormatId::id: return factory();
    TRACEMERGE_FORMATS(TRACEMERGE_FORMAT_OF)
    case FormatId::kNone: break;
  }
  return ChromeFormat();
}

const char* BaseKindName(BaseKind kind) {
  switch (kind) {
#define TRACEMERGE_BASE_NAME(id, name, ...) \
  case BaseKind::id: return name;
    TRACEMERGE_BASE_KINDS(TRACEMERGE_BASE_NAME)
  }
  return "none";
}

const char* BaseKindLabel(BaseKind kind) {
  switch (kind) {
#define TRACEMERGE_BASE_LABEL(id, name, label, ...) \
  case BaseKind::id: return label;
    TRACEMERGE_BASE_KINDS(TRACEMERGE_BASE_LABEL)
  }
  return "none";
}

std::string Format::SplitNote(size_t pieces, const std::string& ranks, bool rankless) const {
  return "holds " + std::to_string(pieces) + " ranks (its events' args.rank: " + ranks +
         "), as a merge of ranks' traces does: read as one source per rank" +
         (rankless ? ", and one for the processes whose events say no rank" : "");
}

std::string TimeBaseText(const TimeBase& tb) {
  const char* said = "";
  switch (tb.kind) {
#define TRACEMERGE_BASE_SAID(id, name, label, text) \
  case BaseKind::id: said = text; break;
    TRACEMERGE_BASE_KINDS(TRACEMERGE_BASE_SAID)
  }
  std::string out = said;
  auto put = [&](std::string_view mark, const std::string& with) {
    if (const size_t at = out.find(mark); at != std::string::npos) out.replace(at, mark.size(), with);
  };
  put("{value}", tb.value);
  put("{detail}", tb.detail.empty() ? "" : " (" + tb.detail + ")");
  return out;
}

const char* StepKindText(StepKind kind) {
  switch (kind) {
#define TRACEMERGE_STEP_TEXT(id, text) \
  case StepKind::id: return text;
    TRACEMERGE_STEP_KINDS(TRACEMERGE_STEP_TEXT)
  }
  return "";
}

std::string SmdebugRoot(std::string_view path) {
  for (std::string_view part : {"framework/", "system/incremental/"}) {
    if (path.rfind(part, 0) == 0) return "";
    const size_t at = path.find("/" + std::string(part));
    if (at != std::string_view::npos) return std::string(path.substr(0, at));
  }
  return "";
}

std::string DroppedFolder(std::string_view path, bool in_folder) {
  const size_t slash = path.find('/');
  if (!in_folder || slash == std::string_view::npos) return "";
  return std::string(path.substr(0, slash));
}

std::string SmdebugRun(std::string_view path, bool in_folder) {
  std::string root = SmdebugRoot(path);
  return root.empty() ? DroppedFolder(path, in_folder) : root;
}

std::string HostOfNodeId(std::string_view node) {
  const size_t dash = node.find('-');
  if (dash != std::string_view::npos && dash + 1 < node.size() && AllDigits(node.substr(0, dash)))
    return std::string(node.substr(dash + 1));
  return std::string(node);
}

std::string FileLabel(std::string_view base) {
  for (std::string_view ext : {".gz", ".json", ".trace", ".pt"})
    if (base.size() > ext.size() && EndsWith(base, ext)) base.remove_suffix(ext.size());
  return std::string(base);
}

}  // namespace tracemerge
