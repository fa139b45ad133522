// Clocks: each source's time base found and applied, with its manual offset.
#include <algorithm>
#include <string>

#include "formats/format.h"
#include "numbers.h"
#include "worker_pool.h"
#include "stages.h"

namespace tracemerge {

bool PathMatches(std::string_view path, std::string_view pattern) {
  if (pattern.empty()) return false;
  if (path == pattern) return true;
  if (path.size() > pattern.size() && path.substr(0, pattern.size()) == pattern &&
      (pattern.back() == '/' || path[pattern.size()] == '/'))
    return true;
  return path.size() > pattern.size() && path.substr(path.size() - pattern.size()) == pattern &&
         path[path.size() - pattern.size() - 1] == '/';
}

Status ApplyClocks(Job& job, const std::vector<std::pair<std::string, int64_t>>& offsets_us) {
  Status unnamed;  // (the clocks are applied all the same: the report describes the job)
  for (auto& [pattern, us] : offsets_us) {  // (any source, included or not: a file filtered out is no typo)
    const bool named = std::any_of(job.sources.begin(), job.sources.end(),
                                   [&, &pattern = pattern](const ParsedSource& s) { return PathMatches(s.path, pattern); });
    if (!named && unnamed.ok())
      unnamed = Diagnostic{Code::kUsage, pattern, 0, "--offset " + pattern + "=" + std::to_string(us) +
                                                         ": it names no input file (give a file's name, its path or a folder)"};
  }
  ForEach(job.sources.size(), job.threads, [&](size_t i) {
    ParsedSource& s = job.sources[i];
    if (!s.report.included) return;
    SourceReport& r = s.report;
    const TimeBase tb = FormatOf(s.cls.format).Clock(s, job.facts);
    const int64_t base = tb.base_ns;
    r.time_base_kind = tb.kind;
    r.time_base_value = tb.value;
    r.time_base_why = tb.why;
    r.absolute = tb.kind != BaseKind::kNone;
    r.time_base = TimeBaseText(tb);
    for (auto& [pattern, us] : offsets_us)
      if (PathMatches(s.path, pattern)) r.offset_us = us;
    uint64_t strays = 0;
    int64_t stray_ts = INT64_MAX;
    for (Event& e : s.events) {
      if (!e.has_ts) continue;
      if (tb.kind == BaseKind::kUnixMicros && e.ts < kEpoch2001Ns) strays++, stray_ts = std::min(stray_ts, e.ts);
      if (!e.based) e.ts = AddNs(e.ts, base);
      if (e.ts > 0 && !IsPairPhase(e.ph)) e.dur = std::min(e.dur, INT64_MAX - e.ts);  // ts + dur never overflows
    }
    if (s.thin.thinned)  // (a scan's source: counted before it was thinned, summary.h)
      strays = tb.kind == BaseKind::kUnixMicros ? s.thin.early : 0, stray_ts = s.thin.early_ts;
    // Events far from the file's Unix times (ts 0 among 2024's) stay where they are, said.
    if (strays)
      s.Warn(Code::kNote, 0, std::to_string(strays) + " event" + (strays == 1 ? "" : "s") + " of " +
                                 std::to_string(s.thin.thinned ? s.thin.events : s.events.size()) + " at times before 2001 (the earliest at ts " + FormatMicros(stray_ts) + " µs) among its Unix µs times: kept where they are; they did not decide the file's clock");
    ShiftSource(s, MicrosToNs(r.offset_us));
  });
  return unnamed;
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
