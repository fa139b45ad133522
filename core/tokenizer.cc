#include "tokenizer.h"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string>

#include "numbers.h"

namespace tracemerge {
namespace {

constexpr uint64_t kNpos = ~uint64_t{0};

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

uint64_t SkipSpace(std::string_view d, uint64_t i) {
  while (i < d.size() && IsSpace(d[i])) i++;
  return i;
}

// From the opening quote at i, returns the index just past the closing quote,
// or kNpos when the data ends first.
uint64_t SkipString(std::string_view d, uint64_t i) {
  for (i++; i < d.size(); i++) {
    const void* q = std::memchr(d.data() + i, '"', d.size() - i);
    if (!q) return kNpos;
    uint64_t j = static_cast<const char*>(q) - d.data();
    uint64_t slashes = 0;
    while (j - slashes > i && d[j - slashes - 1] == '\\') slashes++;
    if (slashes % 2 == 0) return j + 1;
    i = j;
  }
  return kNpos;
}

enum class Skip { kOk, kTruncated, kTooDeep };

// 64 bytes classified as simdjson's stage 1 does: bit k of `strings` is set
// inside strings (opening quote included), `opens`/`brackets` mark '{' '[' /
// all brackets outside them. The carries continue into the next block.
struct Block {
  const char* at = nullptr;
  uint64_t strings = 0, opens = 0, brackets = 0, string_carry = 0, escape_carry = 0;
};

#if defined(__SSE2__)
// Bits of escaped bytes (those after an odd run of backslashes), across blocks
// through *carry — simdjson's stage-1 method.
uint64_t Escaped(uint64_t backslash, uint64_t* carry) {
  backslash &= ~*carry;
  const uint64_t follows = backslash << 1 | *carry;
  const uint64_t even = 0x5555555555555555ull;
  const uint64_t odd_starts = backslash & ~even & ~follows;
  uint64_t even_starts;
  *carry = __builtin_add_overflow(odd_starts, backslash, &even_starts);
  return (even ^ (even_starts << 1)) & follows;
}

uint64_t PrefixXor(uint64_t b) {
  for (int s = 1; s < 64; s <<= 1) b ^= b << s;
  return b;
}

Block Classify(const char* p, uint64_t string_carry, uint64_t escape_carry) {
  const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
  const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'), lower = _mm_set1_epi8(0x20);
  uint64_t quotes = 0, slashes = 0, opens = 0, closes = 0;
  for (int k = 0; k < 4; k++) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i y = _mm_or_si128(x, lower);  // '[' → '{', ']' → '}'
    auto bits = [&](__m128i eq) { return static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(eq))) << (16 * k); };
    quotes |= bits(_mm_cmpeq_epi8(x, quote));
    slashes |= bits(_mm_cmpeq_epi8(x, slash));
    opens |= bits(_mm_cmpeq_epi8(y, open));
    closes |= bits(_mm_cmpeq_epi8(y, close));
  }
  Block b;
  b.at = p;
  b.escape_carry = escape_carry;
  if (slashes || escape_carry) quotes &= ~Escaped(slashes, &b.escape_carry);
  b.strings = PrefixXor(quotes) ^ string_carry;
  b.string_carry = static_cast<uint64_t>(static_cast<int64_t>(b.strings) >> 63);
  b.opens = opens & ~b.strings;
  b.brackets = (opens | closes) & ~b.strings;
  return b;
}
#endif

// Skips the object or array whose opening bracket is at i (the usual event):
// 64 bytes at a time where SSE2 is, then byte by byte to the end of the data.
// `last` keeps the block the previous event ended in: the next event mostly
// starts in it, outside any string, where its classification still holds.
Skip SkipContainer(std::string_view d, uint64_t i, int max_depth, uint64_t* end, Block* last) {
  const char* p = d.data() + i;
  const char* const e = d.data() + d.size();
  int depth = 0;
  bool too_deep = false, in_string = false, escaped = false;
#if defined(__SSE2__)
  Block b;
  uint64_t skip = 0;  // bits of the first block before p
  if (last && last->at && p >= last->at && p < last->at + 64 && !(last->strings >> (p - last->at) & 1)) {
    b = *last;
    skip = (uint64_t{1} << (p - b.at)) - 1;
  } else if (p + 64 <= e) {
    b = Classify(p, 0, 0);
  }
  for (; b.at; b = b.at + 128 <= e ? Classify(b.at + 64, b.string_carry, b.escape_carry) : Block()) {
    for (uint64_t brackets = b.brackets & ~skip; brackets; brackets &= brackets - 1) {
      const int k = __builtin_ctzll(brackets);
      if (b.opens >> k & 1) {
        if (++depth > max_depth) too_deep = true;
      } else if (--depth == 0) {
        *end = static_cast<uint64_t>(b.at + k + 1 - d.data());
        if (last) *last = b;
        return too_deep ? Skip::kTooDeep : Skip::kOk;
      }
    }
    skip = 0;
    p = b.at + 64;
    in_string = b.string_carry != 0;
    escaped = in_string && b.escape_carry != 0;
  }
#endif
  for (; p < e; p++) {
    const char c = *p;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) too_deep = true;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      *end = static_cast<uint64_t>(p + 1 - d.data());
      return too_deep ? Skip::kTooDeep : Skip::kOk;
    }
  }
  return Skip::kTruncated;
}

// Skips one JSON value starting at i (no validation beyond bracket balance;
// the parser validates each event). Sets *end just past it.
Skip SkipValue(std::string_view d, uint64_t i, int max_depth, uint64_t* end, Block* last = nullptr) {
  int depth = 0;
  bool too_deep = false;
  if (i < d.size() && (d[i] == '{' || d[i] == '[')) return SkipContainer(d, i, max_depth, end, last);
  while (i < d.size()) {
    char c = d[i];
    if (c == '"') {
      i = SkipString(d, i);
      if (i == kNpos) return Skip::kTruncated;
      if (depth == 0) break;
      continue;
    }
    if (c == '{' || c == '[') {
      if (++depth > max_depth) too_deep = true;
    } else if (c == '}' || c == ']') {
      if (depth == 0) break;  // closes the container we are in: value ended
      if (--depth == 0) {
        i++;
        break;
      }
    } else if (depth == 0 && (c == ',' || IsSpace(c))) {
      break;  // end of a scalar
    }
    i++;
  }
  if (depth > 0) return Skip::kTruncated;
  *end = i;
  return too_deep ? Skip::kTooDeep : Skip::kOk;
}

// Reads the event array whose '[' is at i. Returns the index after ']' or
// d.size() when it was never closed.
uint64_t ScanArray(std::string_view d, uint64_t i, const ScanLimits& limits,
                   const SpanCallback& on_event, const EventReader& read_event, std::vector<Diagnostic>* diags) {
  i++;
  uint64_t events = 0;
  Block last;  // where the previous event ended
  for (;;) {
    i = SkipSpace(d, i);
    if (i >= d.size()) {
      // Raw Horovod and Bluefog writers never close the array.
      diags->push_back({Code::kNote, "", i, "event array is not closed (tolerated)"});
      return i;
    }
    char c = d[i];
    if (c == ']') return i + 1;
    if (c == ',') {  // separators, and the trailing comma some writers leave
      i++;
      continue;
    }
    const uint64_t inner = read_event && c == '{' ? SkipSpace(d, i + 1) : d.size();
    if (inner < d.size() && d[inner] != '}') {  // ('{}' records go the quiet way below)
      if (const uint64_t end = read_event(i)) {
        events++;
        i = end;
        continue;
      }
    }
    uint64_t end = 0;
    Skip r = SkipValue(d, i, limits.max_depth, &end, &last);
    if (r == Skip::kTruncated) {
      diags->push_back({Code::kTruncated, "", i,
                        "file ends inside an event; kept the " + std::to_string(events) +
                            " events before it"});
      return d.size();
    }
    if (r == Skip::kTooDeep) {
      diags->push_back({Code::kTooDeep, "", i,
                        "event nests deeper than " + std::to_string(limits.max_depth) +
                            " levels; dropped"});
    } else if (c != '{') {
      diags->push_back({Code::kBadEvent, "", i, "array element is not an object; dropped"});
    } else if (SkipSpace(d, i + 1) != end - 1) {
      on_event({i, end - i});  // '{}' records (TF's end marker, placeholders) are skipped quietly
      events++;
    }
    if (end == i) end++;  // a stray byte: step over it
    i = end;
  }
}

}  // namespace

bool LooksLikeJson(std::string_view d) {
  uint64_t i = 0;
  if (d.size() >= 3 && d.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 BOM
  i = SkipSpace(d, i);
  return i < d.size() && (d[i] == '{' || d[i] == '[');
}

bool ScanTrace(std::string_view d, const ScanLimits& limits, TopLevel* top,
               const SpanCallback& on_event, std::vector<Diagnostic>* diags, const EventReader& read_event) {
  uint64_t i = 0;
  if (d.size() >= 3 && d.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  i = SkipSpace(d, i);
  if (i >= d.size()) {
    diags->push_back({Code::kNotATrace, "", 0, "file is empty"});
    return false;
  }
  if (d[i] == '[') {
    top->has_events = true;
    ScanArray(d, i, limits, on_event, read_event, diags);
    return true;
  }
  if (d[i] != '{') {
    diags->push_back({Code::kNotATrace, "", i, "does not start with '[' or '{'"});
    return false;
  }
  top->is_object = true;
  i++;
  for (;;) {  // keys of the top-level object
    i = SkipSpace(d, i);
    while (i < d.size() && d[i] == ',') i = SkipSpace(d, i + 1);
    if (i >= d.size()) {
      diags->push_back({Code::kTruncated, "", i, "file ends inside the top-level object"});
      break;
    }
    if (d[i] == '}') break;
    if (d[i] != '"') {
      diags->push_back({Code::kBadJson, "", i, "expected a key in the top-level object"});
      break;
    }
    uint64_t key_end = SkipString(d, i);
    if (key_end == kNpos) {
      diags->push_back({Code::kTruncated, "", i, "file ends inside a key"});
      break;
    }
    std::string_view key = d.substr(i + 1, key_end - i - 2);
    i = SkipSpace(d, key_end);
    if (i >= d.size() || d[i] != ':') {
      diags->push_back({Code::kBadJson, "", i,
                        "expected ':' after key \"" + std::string(key.substr(0, 80)) +
                            (key.size() > 80 ? "…" : "") + "\""});
      break;
    }
    i = SkipSpace(d, i + 1);
    if (key == "traceEvents" && i < d.size() && d[i] == '[') {
      top->has_events = true;
      i = ScanArray(d, i, limits, on_event, read_event, diags);
      continue;
    }
    uint64_t end = 0;
    Skip r = SkipValue(d, i, limits.max_depth, &end);
    if (r == Skip::kTruncated) {
      diags->push_back({Code::kTruncated, "", i,
                        "file ends inside top-level field \"" + std::string(key) + "\""});
      break;
    }
    const std::string_view value = d.substr(i, end - i);
    if (key == "baseTimeNanoseconds") top->base_time_ns = value;
    else if (key == "distributedInfo") top->distributed_info = value;
    else if (key == "host_name") top->host_name = value;
    else if (key == "metadata") top->tracemerge_output |= !FieldOf(value, "tracemerge").empty();
    if (end == i && i < d.size()) end++;  // a stray byte: step over it (not past the end)
    i = end;
  }
  if (!top->has_events) {
    diags->push_back({Code::kNotATrace, "", 0, "JSON object without a \"traceEvents\" array"});
    return false;
  }
  return true;
}

std::string_view FieldOf(std::string_view d, std::string_view want) {
  uint64_t i = SkipSpace(d, 0);
  if (i >= d.size() || d[i] != '{') return {};
  for (i++;;) {
    i = SkipSpace(d, i);
    if (i < d.size() && d[i] == ',') i = SkipSpace(d, i + 1);
    if (i >= d.size() || d[i] != '"') return {};
    const uint64_t key_end = SkipString(d, i);
    if (key_end == kNpos) return {};
    const std::string_view key = d.substr(i + 1, key_end - i - 2);
    i = SkipSpace(d, key_end);
    if (i >= d.size() || d[i] != ':') return {};
    i = SkipSpace(d, i + 1);
    uint64_t end = 0;
    if (SkipValue(d, i, 64, &end) != Skip::kOk || end <= i) return {};
    if (key == want) return Trim(d.substr(i, end - i));
    i = end;
  }
}

void ScanLines(std::string_view d, const SpanCallback& on_line) {
  uint64_t i = 0;
  while (i < d.size()) {
    const void* nl = std::memchr(d.data() + i, '\n', d.size() - i);
    uint64_t end = nl ? static_cast<const char*>(nl) - d.data() : d.size();
    uint64_t s = SkipSpace(d.substr(0, end), i);
    if (s < end) on_line({s, end - s});
    i = end + 1;
  }
}

}  // namespace tracemerge
