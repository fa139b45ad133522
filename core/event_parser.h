// One trace event ↔ its fields, with simdjson On-Demand. Parse() validates the
// whole object (so the output stays strictly valid JSON) and pulls out the few
// fields the merge needs in one pass over the keys; Rewrite() walks the same
// bytes again and writes them with new pid/tid/ts/ids, copying the rest verbatim.
//
//   {"ph":"X","name":"a","ts":"12.5","pid":"Spans","args":{"step_num":"3"}}
//   Parse → ph="X" name="a" ts="\"12.5\"" pid="\"Spans\"" step_num="\"3\""
//   Rewrite(pid=4, tid=1, ts=1000012500 ns) →
//   {"ph":"X","name":"a","ts":1000012.5,"pid":4,"args":{"step_num":"3"},"tid":1}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "simdjson.h"

namespace tracemerge {

// Raw tokens (trimmed; strings keep their quotes unless noted). Empty = absent.
struct EventFields {
  std::string_view ph, name, cat, scope;  // string contents, quotes stripped
  std::string_view ts, dur, pid, tid;
  std::string_view id, bind_id, id2_global;
  std::string_view arg_name;        // args.name (process_name/thread_name), unquoted
  std::string_view arg_start_time;  // args.start_time_since_epoch_in_micros (smdebug)
  std::string_view arg_step_num;    // args.step_num (smdebug pythontimeline)
};

// One line of smdebug system metrics:
// {"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":4.76,"NodeId":"algo-1","Timestamp":1591160699.45}
struct MetricFields {
  std::string_view name, dimension, node;  // string contents, quotes stripped
  std::string_view value, timestamp;       // raw tokens
};

// How Rewrite() changes an event; everything else is copied.
struct EventRewrite {
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::optional<int64_t> ts_ns;   // written when the event had a ts
  std::optional<int64_t> dur_ns;  // written when the event had a dur
  const std::unordered_map<std::string, uint64_t>* ids = nullptr;  // raw id → new id
};

// "\"0x1a\"" → "0x1a", "12" → "12": the key under which ids are renumbered.
std::string_view IdKey(std::string_view token);
// Strips one pair of quotes, if present.
std::string_view Unquote(std::string_view token);

class EventParser {
 public:
  // `data` must stay readable for simdjson::SIMDJSON_PADDING bytes past
  // data+len (the source buffers are padded). Returns false with *error set
  // when the event is not valid JSON or not an object.
  bool Parse(const char* data, size_t len, EventFields* out, std::string* error);
  bool Rewrite(const char* data, size_t len, const EventRewrite& rw, std::string* out,
               std::string* error);
  bool ParseMetric(const char* data, size_t len, MetricFields* out, std::string* error);

 private:
  simdjson::ondemand::parser parser_;
};

}  // namespace tracemerge
