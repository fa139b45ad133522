// What a file is, decided by its name and its first bytes (never the name alone).
//
//   framework/pevents/2020071317/1594662624718694_905-b88ab1bb8259_pythontimeline.json
//       → kPythonTimeline, node "905-b88ab1bb8259"
//   system/incremental/2020/1591160699.algo-1.json   ({"Dimension":…} lines) → kSystem, "algo-1"
//   …/000000000/80807-host_1596659864545103_1596659864854168.metadata → kSidecar
//   …/plugins/profile/x.kernel_stats.pb → kSkipped ("protobuf, not a trace")
// The formats (formats/format.h) recognise their own files, asked in a fixed
// order; what none takes is skipped with the reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/registry.h"

namespace tracemerge {

#define TRACEMERGE_KIND_ID(id, ...) id,
enum class Kind : uint8_t { TRACEMERGE_EVENT_KINDS(TRACEMERGE_KIND_ID) TRACEMERGE_OTHER_KINDS(TRACEMERGE_KIND_ID) };
// The module that reads a kind of file (formats/format.h): smdebug's three
// kinds are one format; any other trace is Kineto's when it says so, else
// generic Chrome JSON. kNone: none (a skipped file).
enum class FormatId : uint8_t { kNone, TRACEMERGE_FORMATS(TRACEMERGE_KIND_ID) };
const char* FormatName(FormatId id);  // "smdebug", "tf_profiler", "system_metrics", "kineto", "chrome", "xplane", ""

constexpr unsigned kEventKinds = 0 TRACEMERGE_EVENT_KINDS(TRACEMERGE_ONE);
constexpr unsigned kFormats = 0 TRACEMERGE_FORMATS(TRACEMERGE_ONE);
constexpr unsigned kAllKinds = (1u << kEventKinds) - 1;  // every kind with events
constexpr Kind kLastKind = Kind(kEventKinds + (0 TRACEMERGE_OTHER_KINDS(TRACEMERGE_ONE)) - 1);
inline unsigned KindBit(Kind k) { return 1u << static_cast<unsigned>(k); }

const char* KindName(Kind kind);  // "pythontimeline", "model_timeline", "horovod", "tf_trace", …
// Suffix-filter names as the reference spells them ("pythontimeline.json", …,
// "system", "other"); also accepts KindName() spellings and the registry's aliases.
std::optional<Kind> KindFromFilterName(std::string_view name);
// The kinds with events, in the registry's order: name, filter name, label.
struct KindRow {
  Kind kind;
  const char* name;
  const char* only;
  const char* label;
};
extern const KindRow kKindRows[kEventKinds];

struct Classification {
  Kind kind = Kind::kSkipped;
  FormatId format = FormatId::kNone;
  std::string node;    // node / host / file label used in track names
  std::string reason;  // why it was skipped; what a file of no events is for (a TF sidecar's time base)
  bool quiet = false;  // skipped as expected (.pb, python_stats): a note, not a warning
  bool earlier_output = false;  // named as the reference writes its merged output (*_merged_timeline.json)
};

// `head` is the first bytes of the (inflated) content.
Classification Classify(std::string_view path, std::string_view head);
// The same from the first raw bytes of a file, gzipped or not (the page
// classifies a dropped file from a 64 KB slice before reading it all).
Classification ClassifyRaw(std::string_view path, std::string_view raw_head);

std::string_view BaseName(std::string_view path);
// "rank-0.json.gz" ends with ".gz" (and with "rank-0.json.gz").
bool EndsWith(std::string_view s, std::string_view suffix);

}  // namespace tracemerge
