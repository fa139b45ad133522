#include "tokenizer.h"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string>

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

// Inside an object or array only these bytes matter.
struct StructuralTable {
  bool is[256] = {};
  constexpr StructuralTable() {
    for (char c : {'"', '{', '}', '[', ']'}) is[static_cast<unsigned char>(c)] = true;
  }
};
constexpr StructuralTable kStructural;

// The next byte in [p, e) that is '"', '{', '}', '[' or ']' (or e); with
// `in_string`, the next '"' or '\\' instead. 16 bytes at a time where SSE2 is.
const char* Next(const char* p, const char* e, bool in_string) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
  const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'), lower = _mm_set1_epi8(0x20);
  for (; p + 16 <= e; p += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit;
    if (in_string) {
      hit = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, slash));
    } else {
      const __m128i y = _mm_or_si128(x, lower);  // '[' → '{', ']' → '}'
      hit = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_or_si128(_mm_cmpeq_epi8(y, open), _mm_cmpeq_epi8(y, close)));
    }
    if (int m = _mm_movemask_epi8(hit)) return p + __builtin_ctz(static_cast<unsigned>(m));
  }
#endif
  if (in_string) {
    while (p < e && *p != '"' && *p != '\\') p++;
  } else {
    while (p < e && !kStructural.is[static_cast<unsigned char>(*p)]) p++;
  }
  return p;
}

// Skips the object or array whose opening bracket is at i (the usual event):
// a tight loop over the bytes that matter.
Skip SkipContainer(std::string_view d, uint64_t i, int max_depth, uint64_t* end) {
  const char* p = d.data() + i;
  const char* const e = d.data() + d.size();
  int depth = 0;
  bool too_deep = false;
  for (;;) {
    p = Next(p, e, false);
    if (p >= e) return Skip::kTruncated;
    const char c = *p++;
    if (c == '"') {
      for (;;) {
        p = Next(p, e, true);
        if (p >= e) return Skip::kTruncated;
        if (*p++ == '"') break;
        p++;  // the escaped byte
      }
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) too_deep = true;
    } else if (--depth == 0) {
      break;
    }
  }
  *end = static_cast<uint64_t>(p - d.data());
  return too_deep ? Skip::kTooDeep : Skip::kOk;
}

// Skips one JSON value starting at i (no validation beyond bracket balance;
// the parser validates each event). Sets *end just past it.
Skip SkipValue(std::string_view d, uint64_t i, int max_depth, uint64_t* end) {
  int depth = 0;
  bool too_deep = false;
  if (i < d.size() && (d[i] == '{' || d[i] == '[')) return SkipContainer(d, i, max_depth, end);
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
                   const SpanCallback& on_event, std::vector<Diagnostic>* diags) {
  i++;
  uint64_t events = 0;
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
    uint64_t end = 0;
    Skip r = SkipValue(d, i, limits.max_depth, &end);
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
               const SpanCallback& on_event, std::vector<Diagnostic>* diags) {
  uint64_t i = 0;
  if (d.size() >= 3 && d.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  i = SkipSpace(d, i);
  if (i >= d.size()) {
    diags->push_back({Code::kNotATrace, "", 0, "file is empty"});
    return false;
  }
  if (d[i] == '[') {
    top->has_events = true;
    ScanArray(d, i, limits, on_event, diags);
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
      i = ScanArray(d, i, limits, on_event, diags);
      continue;
    }
    uint64_t end = 0;
    Skip r = SkipValue(d, i, limits.max_depth, &end);
    if (r == Skip::kTruncated) {
      diags->push_back({Code::kTruncated, "", i,
                        "file ends inside top-level field \"" + std::string(key) + "\""});
      break;
    }
    if (key == "baseTimeNanoseconds") top->base_time_ns = d.substr(i, end - i);
    if (end == i && i < d.size()) end++;  // a stray byte: step over it (not past the end)
    i = end;
  }
  if (!top->has_events) {
    diags->push_back({Code::kNotATrace, "", 0, "JSON object without a \"traceEvents\" array"});
    return false;
  }
  return true;
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
