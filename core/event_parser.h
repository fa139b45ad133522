// One trace event ↔ its fields and its output template, in one pass over the
// event's bytes. Parse() validates the whole object as strict JSON (grammar,
// escapes, UTF-8 through simdjson's validator — so the output stays valid),
// pulls out the few fields the merge needs, and writes the event's output form:
// the same JSON, compact, with placeholders for what is known only once every
// source is read. (One pass, not simdjson On-Demand per event: that would be a
// stage 1 per event plus a second walk to validate strings and render.)
//
//   {"ph":"X","name":"a","ts":"12.5","pid":"Spans","id":"0x1a","args":{"step_num":"3"}}
//   fields:   ph="X" name="a" ts="\"12.5\"" pid="\"Spans\"" id="\"0x1a\"" step_num="\"3\""
//   template: {"ph":"X","name":"a","ts":<TS>,"pid":<PID>,"id":<ID 1>,"args":{"step_num":"3"},"tid":<TID>}
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "buffer.h"
#include "formats/registry.h"
#include "simdjson.h"

namespace tracemerge {

#define TRACEMERGE_ARG_ID(id, key, unquoted) id,
enum class ArgKey : uint8_t { TRACEMERGE_ARG_KEYS(TRACEMERGE_ARG_ID) };
constexpr size_t kArgKeys = 0 TRACEMERGE_ARG_KEYS(TRACEMERGE_ONE);

// Raw tokens (trimmed; strings keep their quotes unless noted). Empty = absent.
struct EventFields {
  std::string_view ph, name, cat;  // string contents, quotes stripped
  std::string_view ts, dur, pid, tid;
  std::string_view id, bind_id, id2_global;
  std::string_view args[kArgKeys];  // the arguments the formats read (registry.h TRACEMERGE_ARG_KEYS)
  int64_t dur_ns = -1;              // dur parsed; -1 when absent, negative or not a number
  unsigned converted = 0;           // Conversion bits: what the template writes otherwise than read
  bool ph_not_string = false;       // ph was there but not a string (then ph is empty)
  std::string_view arg(ArgKey key) const { return args[static_cast<size_t>(key)]; }
};

// What the template writes in another form than the input, so that Perfetto's
// importer takes it (it refuses, drops or mis-reads these forms), the meaning
// kept. The parse counts them per source as NOTEs.
enum Conversion : unsigned {
  kLegacyAsync = 1,   // ph S/T/p/F (Perfetto drops or refuses them) → nestable async b/n/n/e
  kNoDur = 2,         // an X without dur (refused) → "dur":0
  kThreadTime = 4,    // tts/tdur not a finite number (they stall Perfetto's reader): a numeric string → number, else left out
  kNameType = 8,      // name/cat a number or boolean (read as no name) → a string
  kArgsType = 16,     // args not an object (ignored) → {"value": …}
  kFlowFlag = 32,     // flow_in/flow_out not a boolean (ignored) → true/false, or left out
  kSurrogate = 64,    // \uD800–\uDFFF escapes (Perfetto refuses the whole trace) → UTF-8 (U+FFFD when lone)
  kNumberString = 128,  // a counter's value or a sort_index as a numeric string (the event fails) → the number
  kBadUtf8 = 256,     // bytes that are not UTF-8 in a string (the reader fails the whole trace) → U+FFFD
  kConversions = 9,   // (how many there are)
};
// "legacy async events (S/T/p/F) written as b/n/n/e", … — for a bit of Conversion.
const char* ConversionText(unsigned bit);

// A string's JSON text (no quotes) as the output writes it: \uD800–\uDFFF escapes
// made UTF-8, a lone half U+FFFD (as event text: kSurrogate); *changed when any was.
//   R"(a\ud800b)" → R"(a\ufffdb)"
std::string WithoutSurrogateEscapes(std::string_view text, bool* changed);

// Placeholders in output templates. Control bytes never occur in valid JSON
// text, so the writer finds them without ambiguity.
constexpr char kPidMark = '\x01';
constexpr char kTidMark = '\x02';
constexpr char kTsMark = '\x03';
constexpr char kIdMark = '\x04';  // followed by the local id in decimal and kIdEnd
constexpr char kIdEnd = '\x05';
// A bind_id's placeholder, like kIdMark's: its output id is beyond 2^32, for
// Perfetto keeps v2 flows (bind_id) and v1 flows (s/t/f, numbered 0, 1, … as
// it meets them) in one id space — small bind_ids would join other flows.
constexpr char kBindMark = '\x06';
constexpr char kLastMark = kBindMark;  // (the placeholders are the bytes 1 to this)
constexpr uint64_t kBindIdBase = uint64_t{1} << 32;

// Why an event failed to parse (the message says it in words).
enum class ParseError {
  kNone,
  kInvalid,        // not valid JSON, or not an object
  kStringTooLong,  // a string longer than set_max_string()
};

// Flow/async ids of one source → local numbers 1, 2, … (made global later).
using IdTable = std::unordered_map<std::string, uint32_t>;

// "\"0x1a\"" → "0x1a", "12" → "12": the key under which ids are renumbered.
std::string_view IdKey(std::string_view token);
// Strips one pair of quotes, if present.
std::string_view Unquote(std::string_view token);

class EventParser {
 public:
  // `data` must stay readable for 16 bytes past data+len (the source buffers
  // are padded by kPad). Returns false with *error set, and error_offset()
  // where in the event, when the event is not valid JSON or not an object.
  // With `tpl` set, appends the output template to *tpl, numbering ids in
  // *ids; on failure *tpl may hold a partial template that the caller cuts off.
  // Sets the fields of *out the event has: pass a fresh EventFields (resetting
  // it here would cost a second ~300-byte zeroing per event).
  // With `consumed` set, the object may be followed by anything (the next
  // events): *consumed receives its length, and its end need not be known.
  // (Not a Result, status.h: this runs once per event, and a failed event is no failure of
  // the file — its caller makes the Diagnostic, with the file's offset, from error_offset().)
  bool Parse(const char* data, size_t len, EventFields* out, std::string* error,
             ByteBuffer* tpl = nullptr, IdTable* ids = nullptr, size_t* consumed = nullptr);
  // A flat record (a line of JSON lines): validates the object as Parse does, and sets
  // tokens[k] to the raw token of keys[k] (the last one, when a key repeats; "" when absent,
  // or when its value is an object or an array). The keys are the caller's (a format's):
  //   keys {"Name", "Value"}, {"Name":"cpu0","x":1,"Value":4.7} → tokens {"\"cpu0\"", "4.7"}
  bool ParseRecord(const char* data, size_t len, const std::string_view* keys, size_t n, std::string_view* tokens,
                   std::string* error);
  // Strings longer than this make the event invalid (ParseError::kStringTooLong).
  void set_max_string(size_t bytes) { max_string_ = bytes; }
  // Objects and arrays nested deeper than this (the event itself is level 1)
  // make the event invalid, as the tokenizer's ScanLimits.max_depth does.
  void set_max_depth(int levels) { max_depth_ = levels; }
  // Where the last failed parse stopped, from the start of its text, and why.
  size_t error_offset() const { return error_offset_; }
  ParseError error_kind() const { return error_kind_; }

 private:
  ByteBuffer scratch_;  // the output when the caller wants none
  std::vector<std::pair<size_t, bool>> number_strings_;  // this event's args that are numeric strings: (where, is sort_index)
  IdTable scratch_ids_;
  size_t max_string_ = SIZE_MAX;
  int max_depth_ = 1024;
  size_t error_offset_ = 0;
  ParseError error_kind_ = ParseError::kNone;
};

}  // namespace tracemerge
