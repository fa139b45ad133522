// Clocks: each source's time base found and applied, with its manual offset.
#include <algorithm>
#include <string>

#include "numbers.h"
#include "worker_pool.h"
#include "stages.h"

namespace tracemerge {
namespace {

constexpr int64_t kEpoch2001Ns = int64_t{1000000000} * 1000000000;  // 1e18 ns ≈ 2001-09-09

// The time base of source s in ns (set in its report), or 0 when it has none.
int64_t TimeBase(ParsedSource& s, const Job& job) {
  SourceReport& r = s.report;
  if (s.cls.kind == Kind::kSystem) {
    r.absolute = true;
    r.time_base = "Unix seconds in each line";
    return 0;
  }
  if (s.have_header) {
    r.absolute = true;
    r.time_base = "smdebug header start_time_since_epoch_in_micros=" + FormatMicros(s.header_base);
    return s.header_base;  // for any event before the first header
  }
  if (s.cls.kind == Kind::kTfTrace) {
    int64_t base = 0;
    const std::string dir = TfStepDir(s.path);
    for (const ParsedSource& o : job.sources) {
      if (o.cls.kind != Kind::kSidecar) continue;
      auto sc = ParseSidecar(o.path);
      if (sc && sc->step_dir == dir) {
        base = MicrosToNs(sc->start_us);
        r.absolute = true;
        r.time_base = "TF sidecar " + std::string(BaseName(o.path));
      }
    }
    return base;
  }
  if (!s.base_time_ns.empty()) {
    if (auto b = ParseScaled(s.base_time_ns, 1)) {
      r.absolute = true;
      r.time_base = "baseTimeNanoseconds=" + s.base_time_ns;
      return *b;
    }
    s.Warn(Code::kBadEvent, 0, "baseTimeNanoseconds is not a number; ignored");
    return 0;
  }
  if (s.cls.kind == Kind::kOther) {
    bool all_epoch = !s.events.empty();
    for (size_t i = 0; i < s.events.size() && all_epoch; i++)
      if (s.events[i].has_ts && s.events[i].ts < kEpoch2001Ns) all_epoch = false;
    if (all_epoch) {
      r.absolute = true;
      r.time_base = "Unix µs in the file";
    }
  }
  return 0;
}

}  // namespace

bool PathMatches(std::string_view path, std::string_view pattern) {
  if (pattern.empty()) return false;
  if (path == pattern) return true;
  if (path.size() > pattern.size() && path.substr(0, pattern.size()) == pattern &&
      (pattern.back() == '/' || path[pattern.size()] == '/'))
    return true;
  return path.size() > pattern.size() && path.substr(path.size() - pattern.size()) == pattern &&
         path[path.size() - pattern.size() - 1] == '/';
}

void ApplyClocks(Job& job, const std::vector<std::pair<std::string, int64_t>>& offsets_us) {
  ForEach(job.sources.size(), job.threads, [&](size_t i) {
    ParsedSource& s = job.sources[i];
    if (!s.report.included) return;
    SourceReport& r = s.report;
    const int64_t base = TimeBase(s, job);
    if (!r.absolute) r.time_base = "none: times stay relative";  // (align.cc places it, and says so)
    for (auto& [pattern, us] : offsets_us)
      if (PathMatches(s.path, pattern)) r.offset_us = us;
    for (Event& e : s.events) {
      if (!e.has_ts) continue;
      if (!e.based) e.ts = AddNs(e.ts, base);
      if (e.ts > 0 && !IsPairPhase(e.ph)) e.dur = std::min(e.dur, INT64_MAX - e.ts);  // ts + dur never overflows
    }
    ShiftSource(s, MicrosToNs(r.offset_us));
  });
}

void ShiftSource(ParsedSource& s, int64_t ns) {
  if (ns == 0) return;
  for (Event& e : s.events) {
    if (!e.has_ts) continue;
    e.ts = AddNs(e.ts, ns);
    // A metadata event's ts places nothing, but Perfetto drops one before 0 — and the name with it.
    if (e.ph == 'M' && e.ts < 0 && ns < 0) e.ts = 0;
    if (e.ts > 0 && !IsPairPhase(e.ph)) e.dur = std::min(e.dur, INT64_MAX - e.ts);
  }
}

}  // namespace tracemerge
