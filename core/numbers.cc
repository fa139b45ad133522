#include "numbers.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace tracemerge {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// When the 8 bytes at p are all digits, their value, in a few multiplies
// instead of a chain of eight (simdjson's method; little-endian, as x86 and
// wasm are). Timestamps have 13–16 integer digits.
bool EightDigits(const char* p, uint64_t* value) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  if (((x & 0xF0F0F0F0F0F0F0F0) | (((x + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) != 0x3333333333333333)
    return false;
  x = (x & 0x0F0F0F0F0F0F0F0F) * 2561 >> 8;
  x = (x & 0x00FF00FF00FF00FF) * 6553601 >> 16;
  *value = (x & 0x0000FFFF0000FFFF) * 42949672960001 >> 32;
  return true;
}

}  // namespace

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsJsonNumber(std::string_view t) {
  size_t i = 0, n = t.size();
  if (i < n && t[i] == '-') i++;
  if (i >= n) return false;
  if (t[i] == '0') {
    i++;
  } else if (IsDigit(t[i])) {
    while (i < n && IsDigit(t[i])) i++;
  } else {
    return false;
  }
  if (i < n && t[i] == '.') {
    i++;
    if (i >= n || !IsDigit(t[i])) return false;
    while (i < n && IsDigit(t[i])) i++;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    i++;
    if (i < n && (t[i] == '+' || t[i] == '-')) i++;
    if (i >= n || !IsDigit(t[i])) return false;
    while (i < n && IsDigit(t[i])) i++;
  }
  return i == n;
}

bool IsPortableNumber(std::string_view t) {
  if (!IsJsonNumber(t)) return false;
  const bool neg = t.front() == '-';
  std::string_view digits = neg ? t.substr(1) : t;
  bool fraction = false, exponent = false;  // (find_first_of calls memchr per byte)
  for (char c : digits) {
    fraction |= c == '.';
    exponent |= c == 'e' || c == 'E';
  }
  if (!fraction && !exponent) {  // an integer: int64 or uint64
    if (digits.size() != 19 && digits.size() != 20) return digits.size() < 19;
    if (neg) return digits.size() == 19 && digits <= "9223372036854775808";
    return digits.size() == 19 || digits <= "18446744073709551615";
  }
  // Under 300 digits without an exponent stays far below DBL_MAX (1.8e308).
  if (!exponent && digits.size() < 300) return true;
  std::string copy(t);
  return std::isfinite(std::strtod(copy.c_str(), nullptr));  // underflow to 0 is fine
}

std::optional<int64_t> ParseScaled(std::string_view token, int64_t scale) {
  // Fast path, most timestamps: digits, optionally '.' and digits, up to 18
  // integer digits; the same rounding (by the first dropped digit) as below.
  if (!token.empty() && IsDigit(token[0])) {
    const char* p = token.data();
    const char* const e = p + token.size();
    int64_t whole = 0;
    int n = 0;
    for (uint64_t eight; n <= 10 && e - p >= 8 && EightDigits(p, &eight); p += 8, n += 8)
      whole = whole * 100000000 + static_cast<int64_t>(eight);
    for (; p < e && IsDigit(*p) && n < 18; p++, n++) whole = whole * 10 + (*p - '0');
    // (µs, the usual scale, spelled out: a 64-bit division per timestamp otherwise)
    const int64_t limit = scale == 1000 ? INT64_MAX / 1000 : INT64_MAX / scale;
    if (!(token[0] == '0' && n > 1) && (p == e || *p == '.') && whole < limit) {
      int64_t v = whole * scale;
      bool ok = true;
      if (p < e) {
        const char* frac = ++p;
        for (int64_t place = scale / 10; p < e && IsDigit(*p); p++) {
          if (place >= 1) v += (*p - '0') * place;
          else if (place == 0 && *p >= '5') v += 1;
          place = place >= 1 ? place / 10 : -1;
        }
        ok = p > frac && p == e;
      }
      if (ok) return v;
    }
  }
  std::string_view t = Trim(token);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = Trim(t.substr(1, t.size() - 2));
  if (!IsJsonNumber(t)) return std::nullopt;
  const bool has_exp = t.find_first_of("eE") != std::string_view::npos;
  if (has_exp) {  // rare: go through long double, range-checked
    std::string copy(t);
    long double v = std::strtold(copy.c_str(), nullptr) * scale;
    if (!std::isfinite(v) || std::fabs(v) > 9.2e18L) return std::nullopt;
    return static_cast<int64_t>(std::llroundl(v));
  }
  bool neg = t.front() == '-';
  if (neg) t.remove_prefix(1);
  // Integer part, then as many fraction digits as `scale` has zeros.
  __int128 v = 0;
  size_t i = 0;
  for (; i < t.size() && t[i] != '.'; i++) {
    v = v * 10 + (t[i] - '0');
    if (v > static_cast<__int128>(INT64_MAX)) return std::nullopt;
  }
  v *= scale;
  if (i < t.size()) i++;  // '.'
  for (int64_t place = scale / 10; place >= 1 && i < t.size(); place /= 10, i++) {
    v += static_cast<__int128>(t[i] - '0') * place;
  }
  if (i < t.size() && t[i] >= '5') v += 1;  // round the first dropped digit
  if (v > static_cast<__int128>(INT64_MAX)) return std::nullopt;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

int64_t AddNs(int64_t a, int64_t b) {
  int64_t sum;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

int64_t SubNs(int64_t a, int64_t b) {
  int64_t diff;
  if (!__builtin_sub_overflow(a, b, &diff)) return diff;
  return b < 0 ? INT64_MAX : INT64_MIN;
}

int64_t MicrosToNs(int64_t us) {
  int64_t ns;
  if (!__builtin_mul_overflow(us, int64_t{1000}, &ns)) return ns;
  return us > 0 ? INT64_MAX : INT64_MIN;
}

size_t WriteMicros(char* out, int64_t ns) {
  uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  char* w = out;
  if (ns < 0) *w++ = '-';
  w = WriteUint(w, mag / 1000);
  if (unsigned frac = static_cast<unsigned>(mag % 1000)) {
    *w++ = '.';
    *w++ = static_cast<char>('0' + frac / 100);
    if (frac % 100) *w++ = static_cast<char>('0' + frac / 10 % 10);
    if (frac % 10) *w++ = static_cast<char>('0' + frac % 10);
  }
  return static_cast<size_t>(w - out);
}

void AppendMicros(std::string& out, int64_t ns) {
  char buf[kMaxMicrosChars];
  out.append(buf, WriteMicros(buf, ns));
}

namespace {

// Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

std::optional<int64_t> ParseTimeText(std::string_view t) {
  t = Trim(t);
  if (t.empty()) return std::nullopt;
  auto digits = [&](size_t at, size_t n, int64_t* out) {
    if (at + n > t.size()) return false;
    int64_t v = 0;
    for (size_t i = at; i < at + n; i++) {
      if (t[i] < '0' || t[i] > '9') return false;
      v = v * 10 + (t[i] - '0');
    }
    *out = v;
    return true;
  };
  // Whole µs.
  const size_t sign = t[0] == '-';
  if (t.size() > sign && t.find_first_not_of("0123456789", sign) == std::string_view::npos) {
    if (t.size() - sign > 18) return std::nullopt;
    int64_t v = 0;
    digits(sign, t.size() - sign, &v);
    return sign ? -v : v;
  }
  int64_t y, mo, d, h = 0, mi = 0, s = 0, frac = 0;
  if (!digits(0, 4, &y) || t.size() < 10 || t[4] != '-' || !digits(5, 2, &mo) || t[7] != '-' || !digits(8, 2, &d))
    return std::nullopt;
  size_t i = 10;
  if (i < t.size() && (t[i] == 'T' || t[i] == ' ') && i + 1 < t.size() && t[i + 1] >= '0' && t[i + 1] <= '9') {
    if (!digits(i + 1, 2, &h) || i + 3 >= t.size() || t[i + 3] != ':' || !digits(i + 4, 2, &mi)) return std::nullopt;
    i += 6;
    if (i < t.size() && t[i] == ':') {
      if (!digits(i + 1, 2, &s)) return std::nullopt;
      i += 3;
      if (i < t.size() && t[i] == '.') {
        size_t n = 0;
        for (i++; i < t.size() && t[i] >= '0' && t[i] <= '9'; i++, n++)
          if (n < 6) frac = frac * 10 + (t[i] - '0');
        if (n == 0 || n > 9) return std::nullopt;
        for (; n < 6; n++) frac *= 10;
      }
    }
  }
  std::string_view zone = Trim(t.substr(i));
  if (!(zone.empty() || zone == "Z" || zone == "z" || zone == "UTC")) return std::nullopt;
  static const int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] || (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || s > 59)
    return std::nullopt;
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return ((days * 24 + h) * 60 + mi) * 60 * 1000000 + s * 1000000 + frac;
}

std::string FormatMicros(int64_t ns) {
  std::string s;
  AppendMicros(s, ns);
  return s;
}

std::string SignedMicros(int64_t ns) { return (ns > 0 ? "+" : "") + FormatMicros(ns) + " µs"; }

bool NaturalLess(std::string_view a, std::string_view b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t i1 = i, j1 = j;
      while (i1 < a.size() && a[i1] == '0') i1++;  // (leading zeros: the same value)
      while (j1 < b.size() && b[j1] == '0') j1++;
      size_t i2 = i1, j2 = j1;
      while (i2 < a.size() && digit(a[i2])) i2++;
      while (j2 < b.size() && digit(b[j2])) j2++;
      if (i2 - i1 != j2 - j1) return i2 - i1 < j2 - j1;
      if (int c = a.substr(i1, i2 - i1).compare(b.substr(j1, j2 - j1))) return c < 0;
      i = i2, j = j2;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    i++, j++;
  }
  return a.size() - i < b.size() - j;
}

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = at(0);
  if (c < 0x80) return 1;
  const size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; k++)
    if ((at(k) & 0xC0) != 0x80) return 0;
  if (n == 3 && ((c == 0xE0 && at(1) < 0xA0) || (c == 0xED && at(1) >= 0xA0))) return 0;  // overlong, surrogate
  if (n == 4 && ((c == 0xF0 && at(1) < 0x90) || (c == 0xF4 && at(1) >= 0x90))) return 0;  // overlong, > U+10FFFF
  return n;
}

std::string WithValidUtf8(std::string_view s, bool* changed) {
  *changed = false;
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      *changed = true;
      i++;
    }
  }
  return out;
}

}  // namespace tracemerge
