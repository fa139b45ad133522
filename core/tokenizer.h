// Finds event boundaries; understands no event fields (that is event_parser's job,
// which also finds where each well-formed event ends: ScanTrace's read_event).
// Handles both trace forms and JSON lines, and the idioms real writers produce:
// a missing closing ']', trailing commas, '{}' records, a truncated last event.
//
//   [{"ph":"X",...},{"ph":"B",...},            → two events, note "array not closed"
//   {"traceEvents":[{...}],"baseTimeNanoseconds":17}  → one event, top.base_time_ns = "17"
//   {"Name":"cpu0",...}\n{"Name":"cp             → one line, broken last line noted
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "status.h"

namespace tracemerge {

struct Span {
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct TopLevel {
  bool is_object = false;          // {"traceEvents": …} rather than a bare array
  bool has_events = false;         // an event array was found
  std::string_view base_time_ns;   // raw token of "baseTimeNanoseconds", if any
  std::string_view distributed_info;  // raw value of Kineto's "distributedInfo" (its rank)
  std::string_view host_name;         // raw token of Kineto's "host_name"
  bool tracemerge_output = false;     // "metadata" holds "tracemerge": an earlier merge's output
};

// The value of `key` among the top-level keys of the JSON object `object`
// (raw text), or "" when it has none: FieldOf(R"({"rank": 3, "x": 1})", "rank") → "3".
std::string_view FieldOf(std::string_view object, std::string_view key);

struct ScanLimits {
  int max_depth = 256;
};

using SpanCallback = std::function<void(Span)>;
// Reads the event object that opens at `offset`, its end not yet known, and
// returns the offset just past it — or 0 when it cannot (not valid JSON, too
// deep), and then the scanner finds the end itself and hands on the span.
using EventReader = std::function<uint64_t(uint64_t offset)>;

// Scans a Chrome trace (array or object form). Problems go to diags (file
// left empty for the caller to fill). Returns false when the data is not a
// trace at all (NOT_A_TRACE diagnostic added). With read_event, well-formed
// events go to it and only the others to on_event: no separate pass over the
// bytes to find where each event ends.
bool ScanTrace(std::string_view data, const ScanLimits& limits, TopLevel* top,
               const SpanCallback& on_event, std::vector<Diagnostic>* diags,
               const EventReader& read_event = nullptr);

// Splits JSON lines; each non-blank line is one span. A broken last line is a
// note (writers are often still appending), a broken middle line a warning —
// both decided by the caller when the line fails to parse; here we only cut.
void ScanLines(std::string_view data, const SpanCallback& on_line);

// True when the first non-blank byte of data opens JSON ('{' or '[').
bool LooksLikeJson(std::string_view data);

}  // namespace tracemerge
