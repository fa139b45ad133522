// Errors and warnings as values: a stable code, a message a user understands,
// and where it happened (file + byte offset). No exceptions anywhere in core/.
//
//   Diagnostic{Code::kTruncated, "a/b.json", 1234, "event cut off; kept 41 events before it"}
//   → printed as  "a/b.json @1234: TRUNCATED: event cut off; kept 41 events before it"
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace tracemerge {

enum class Code {
  kOk,
  kTruncated,      // input ends inside an event or array; what came before is kept
  kBadJson,        // one event is not valid JSON; it is dropped, the file goes on
  kBadEvent,       // valid JSON but not a usable trace event (no ph, bad ts, ...)
  kBadGzip,        // gzip stream is corrupt; what inflated before the damage is kept
  kNotATrace,      // the file is not a trace at all
  kTooLarge,       // an input exceeds a configured limit
  kTooDeep,        // nesting deeper than the limit
  kNoClock,        // a source has no absolute time base; its times stay relative
  kClockSkew,      // collectives show that two sources' clocks disagree
  kUnknownStep,    // a step window names a step no source has
  kEmptyWindow,    // nothing falls in the window
  kSkipped,        // a file that is not a trace (.pb, python_stats, ...) was skipped
  kNote,           // informational: a tolerated idiom was seen (unclosed array, ...)
  kUsage,          // bad options
  kIo,             // a file could not be read or written
  kCancelled,      // the caller cancelled the merge (progress callback returned false)
  kOutOfMemory,    // the wasm heap is exhausted (set by the JS glue after an abort)
  kAbort,          // the wasm module stopped for another reason (set by the JS glue)
  kUnsureClock,    // a time base chosen among several that disagree (a TF trace's sidecars): a guess
  kLast = kUnsureClock,  // (not a code: the last one, for lists of them)
};

// "TRUNCATED", "BAD_JSON", … — the enumerator's name in capitals, words
// separated by '_' (wasm/CMakeLists.txt writes tracemerge.d.ts's codes so).
const char* CodeName(Code code);

// What a code means to whoever shows it (the page asks the core, never a list
// of its own): how grave it is, and whether its offset is a byte of its file.
enum class Severity { kError, kWarning, kNote };
const char* SeverityName(Severity s);  // "error", "warning", "note"
// kByte: where in the (inflated) file it went wrong; kByteWhenSet: a byte when
// not 0 (a NOTE "the first at this byte", a NOT_A_TRACE inside the file);
// kNothing: about the whole file or the job (NO_CLOCK, CLOCK_SKEW, SKIPPED, …).
// (One line: wasm/CMakeLists.txt reads the codes from the lines of Code's enum.)
enum class OffsetIs { kByte, kByteWhenSet, kNothing };
Severity SeverityOf(Code code);
OffsetIs OffsetOf(Code code);

struct Diagnostic {
  Code code = Code::kOk;
  std::string file;
  uint64_t offset = 0;  // byte offset in the (inflated) file; 0 when not applicable
  std::string message;

  std::string ToString() const;  // "file @offset: CODE: message"
  // Whether offset is a byte of the file (OffsetOf its code).
  bool AtByte() const {
    const OffsetIs o = OffsetOf(code);
    return !file.empty() && (o == OffsetIs::kByte || (o == OffsetIs::kByteWhenSet && offset > 0));
  }
};

// What fails as a whole — the options, one input's stream, a window, the clocks asked for —
// gives a Result: its value, or the Diagnostic that says why (simdjson's simdjson_result<T>
// idiom; no exceptions). A Status is a Result with no value. What a run collects on the way
// (warnings, notes) stays a std::vector<Diagnostic>.
//   Result<Unit> u = ParseUnit("week");  → !u.ok(), u.error().message "unit must be 'time' or 'step', not 'week'"
//   if (Status s = ParseArgs(argv, &args); !s.ok()) print(s.error().message);
struct Done {};  // (the value of a Status)
template <class T = Done>
class Result {
 public:
  Result() = default;                                   // ok, with T's default (a Status: done)
  Result(T value) : value_(std::move(value)) {}         // NOLINT: a value is a result
  Result(Diagnostic error) : error_(std::move(error)) {}  // NOLINT: so is an error (its code not kOk)
  Result(T so_far, Diagnostic error) : value_(std::move(so_far)), error_(std::move(error)) {}  // (what was done before it)
  static Result Error(Code code, std::string message) { return Diagnostic{code, "", 0, std::move(message)}; }

  bool ok() const { return error_.code == Code::kOk; }
  const Diagnostic& error() const { return error_; }
  const T& value() const { return value_; }
  T& value() { return value_; }

 private:
  T value_{};
  Diagnostic error_;
};
using Status = Result<>;

}  // namespace tracemerge
