// Exact decimal time arithmetic. Trace timestamps are microseconds written as
// integers, floats ("573720829732.261") or strings ("12"); absolute Unix µs
// need 16 digits plus a nanosecond fraction, more than a double holds, so all
// times are int64 nanoseconds parsed straight from the decimal text.
//
//   ParseMicros("12.5")      → 12500 ns        ParseMicros("\"7\"") → 7000 ns
//   ParseMicros("1e400")     → nullopt (out of range)
//   FormatMicros(1594662618873063000) → "1594662618873063"
//   FormatMicros(-1500)      → "-1.5"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "buffer.h"

namespace tracemerge {

// A JSON number token (or a JSON string holding one) in µs, scaled by `scale`
// (1000 for µs→ns, 1e9 for seconds→ns). nullopt when malformed or when the
// value does not fit in ±2^63 ns (±292 years).
std::optional<int64_t> ParseScaled(std::string_view token, int64_t scale);
inline std::optional<int64_t> ParseMicros(std::string_view token) {
  return ParseScaled(token, 1000);
}

// Time arithmetic that saturates at the int64 ends instead of overflowing:
// input times can be anything, and an absurd one must stay defined behaviour.
//   AddNs(INT64_MAX - 5, 10) → INT64_MAX      MicrosToNs(int64_t{1} << 62) → INT64_MAX
//   SubNs(0, INT64_MIN) → INT64_MAX
int64_t AddNs(int64_t a, int64_t b);
int64_t SubNs(int64_t a, int64_t b);
int64_t MicrosToNs(int64_t us);

// Writes ns as µs with up to three decimals, no trailing zeros, to out
// (room for kMaxMicrosChars); returns the length.
constexpr size_t kMaxMicrosChars = 25;
size_t WriteMicros(char* out, int64_t ns);
void AppendMicros(std::string& out, int64_t ns);
inline void AppendMicros(ByteBuffer& out, int64_t ns) {
  out.Write(kMaxMicrosChars, [&](char* w) { return WriteMicros(w, ns); });
}
std::string FormatMicros(int64_t ns);
// A move or an offset as the messages say it: "+1523.4 µs", "-3 µs", "0 µs".
std::string SignedMicros(int64_t ns);

// True when `token` is exactly one JSON number (RFC 8259 grammar).
bool IsJsonNumber(std::string_view token);

// True when `token` is a JSON number that strict readers accept too: a double
// holds it (not 1e400) and, written as an integer, 64 bits do (not 2^64) —
// simdjson's DOM refuses both, though the grammar allows them.
//   IsPortableNumber("1.5e300") → true    IsPortableNumber("18446744073709551616") → false
bool IsPortableNumber(std::string_view token);

// A window bound as a user types it, in Unix µs: whole µs ("1594662618874598")
// or a UTC date-time — "2020-07-13 17:50:18.874598", "2020-07-13T17:50:18Z",
// "2020-07-13 17:50", "2020-07-13" (a T or a space; seconds, their fraction
// (6 digits kept) and "Z"/"UTC" optional). nullopt when it is neither.
//   ParseTimeText("2020-07-13 17:50:18.5") → 1594662618500000
std::optional<int64_t> ParseTimeText(std::string_view text);

// Strips JSON whitespace at both ends.
std::string_view Trim(std::string_view s);

// Names in the order people count: runs of digits by their value.
//   NaturalLess("host2", "host10") → true        NaturalLess("rank 10", "rank 9") → false
bool NaturalLess(std::string_view a, std::string_view b);

// The length of the valid UTF-8 sequence that starts at s[i] (1–4), or 0 when none does there
// (a stray continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut short).
size_t Utf8SequenceLength(std::string_view s, size_t i);
// s with each byte that starts no valid UTF-8 sequence written as U+FFFD; *changed when any was.
//   "a\xffb" → "a\xef\xbf\xbdb"
std::string WithValidUtf8(std::string_view s, bool* changed);

}  // namespace tracemerge
