#include "viewer_check.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>
#include <vector>

#include "simdjson.h"

namespace tracemerge::test {
namespace od = simdjson::ondemand;

int64_t PerfettoTokenNs(const std::string& token) {
  std::string t = token;
  if (t.size() >= 2 && t.front() == '"') t = t.substr(1, t.size() - 2);  // a number in a string: its contents
  if (t.find_first_of(".eE") == std::string::npos) {
    const long long us = std::strtoll(t.c_str(), nullptr, 10);
    return us > INT64_MAX / 1000 || us < INT64_MIN / 1000 ? (us < 0 ? INT64_MIN : INT64_MAX) : us * 1000;  // (Perfetto overflows)
  }
  size_t i = 0;
  const bool negative = !t.empty() && t[0] == '-';
  i += negative;
  int64_t int_part = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; i++) int_part = int_part * 10 + (t[i] - '0');
  double fraction = 0;
  if (i < t.size() && t[i] == '.') {
    int64_t fract_int = 0;
    uint64_t divisor = 1;
    for (i++; i < t.size() && t[i] >= '0' && t[i] <= '9'; i++) {
      fract_int = (t[i] - '0') + fract_int * 10;
      divisor *= 10;
    }
    fraction = static_cast<double>(fract_int) / static_cast<double>(divisor);
  }
  int64_t exponent = 0;
  bool exp_neg = false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    i++;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) exp_neg = t[i++] == '-';
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; i++) exponent = exponent * 10 + (t[i] - '0');
  }
  double x = static_cast<double>(int_part) + fraction;
  if (exp_neg) x /= std::pow(10, static_cast<double>(exponent));
  else if (exponent > 0) x *= std::pow(10, static_cast<double>(exponent));
  x = negative ? -x : x;
  if (!(x > -9.2e15 && x < 9.2e15)) return x < 0 ? INT64_MIN : INT64_MAX;  // (Perfetto overflows)
  return x == std::trunc(x) ? static_cast<int64_t>(x) * 1000 : static_cast<int64_t>(std::llround(x * 1000.0));
}

namespace {

// Exact ns of a decimal token (at most 3 fraction digits is what we write;
// more are cut, as the exact reading of such a file is not ours to define).
int64_t ExactNs(const std::string& token) {
  std::string t = token;
  if (t.size() >= 2 && t.front() == '"') t = t.substr(1, t.size() - 2);
  const bool negative = !t.empty() && t[0] == '-';
  size_t i = negative;
  int64_t whole = 0, frac = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; i++) whole = whole * 10 + (t[i] - '0');
  int digits = 0;
  if (i < t.size() && t[i] == '.')
    for (i++; i < t.size() && t[i] >= '0' && t[i] <= '9'; i++)
      if (digits < 3) frac = frac * 10 + (t[i] - '0'), digits++;
  for (; digits < 3; digits++) frac *= 10;
  const int64_t ns = whole * 1000 + frac;
  return negative ? -ns : ns;
}

struct Slice {
  std::string ts, dur, name;
  size_t order;  // place in the file
};

template <class T>
uint64_t Overlaps(std::vector<std::tuple<T, T, size_t>> v, const std::vector<Slice>& slices, const char* reading,
                  std::string* first) {
  // (start, end, file place): by start, longest first, then file order.
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) {
    auto [as, ae, ai] = a;
    auto [bs, be, bi] = b;
    if (as != bs) return as < bs;
    if (ae - as != be - bs) return ae - as > be - bs;
    return ai < bi;
  });
  std::vector<std::pair<T, size_t>> open;  // (end, file place)
  uint64_t n = 0;
  for (auto& [s, e, i] : v) {
    while (!open.empty() && open.back().first <= s) open.pop_back();
    if (!open.empty() && e > open.back().first) {
      if (n++ == 0 && first->empty()) {
        const Slice& a = slices[open.back().second];
        const Slice& b = slices[i];
        *first = std::string(reading) + ": \"" + b.name + "\" ts " + b.ts + " dur " + b.dur + " overlaps \"" + a.name +
                 "\" ts " + a.ts + " dur " + a.dur;
      }
      continue;  // (Perfetto moves it to another track)
    }
    open.push_back({e, i});
  }
  return n;
}

std::string Token(od::value v) {
  std::string_view raw = v.raw_json_token();
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
    raw.remove_suffix(1);
  return std::string(raw);
}

}  // namespace

Readings CheckReadings(const std::string& json) {
  Readings r;
  od::parser parser;
  simdjson::padded_string padded(json);
  od::document doc;
  if (parser.iterate(padded).get(doc)) return r.error = "not JSON", r;
  od::array events;
  if (doc["traceEvents"].get_array().get(events)) return r.error = "no traceEvents array", r;
  std::map<std::pair<std::string, std::string>, std::vector<Slice>> tracks;
  size_t place = 0;
  for (auto item : events) {
    od::object ev;
    if (item.get_object().get(ev)) return r.error = "an event is not an object", r;
    std::string ph, ts, dur, pid, tid, name;
    for (auto field : ev) {
      std::string_view key;
      if (field.unescaped_key().get(key)) return r.error = "bad key", r;
      od::value v;
      if (field.value().get(v)) return r.error = "bad value", r;
      if (key == "ph") ph = Token(v);
      else if (key == "ts") ts = Token(v);
      else if (key == "dur") dur = Token(v);
      else if (key == "pid") pid = Token(v);
      else if (key == "tid") tid = Token(v);
      else if (key == "name") name = Token(v);
    }
    if (ph != "\"X\"" || ts.empty()) continue;
    if (dur.empty()) dur = "0";
    tracks[{pid, tid}].push_back({ts, dur, name, place++});
  }
  for (auto& [track, slices] : tracks) {
    r.slices += slices.size();
    std::vector<std::tuple<int64_t, int64_t, size_t>> exact, perfetto;
    std::vector<std::tuple<double, double, size_t>> js;
    for (size_t i = 0; i < slices.size(); i++) {
      const Slice& s = slices[i];
      const int64_t e0 = ExactNs(s.ts), p0 = PerfettoTokenNs(s.ts);
      const double j0 = std::strtod(s.ts.c_str() + (s.ts[0] == '"'), nullptr);
      exact.push_back({e0, e0 + ExactNs(s.dur), i});
      perfetto.push_back({p0, p0 + PerfettoTokenNs(s.dur), i});
      js.push_back({j0, j0 + std::strtod(s.dur.c_str() + (s.dur[0] == '"'), nullptr), i});
    }
    r.overlaps[0] += Overlaps(exact, slices, "exact", &r.first);
    r.overlaps[1] += Overlaps(perfetto, slices, "perfetto", &r.first);
    r.overlaps[2] += Overlaps(js, slices, "js", &r.first);
  }
  return r;
}

}  // namespace tracemerge::test
