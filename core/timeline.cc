// Time: sources joined in path order, clocks made absolute, the job described
// (span, steps), the window resolved (time or steps) and applied, pairs together.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "merger_internal.h"
#include "numbers.h"

namespace tracemerge {

constexpr int64_t kEpoch2001Ns = int64_t{1000000000} * 1000000000;  // 1e18 ns ≈ 2001-09-09

bool PathMatches(std::string_view path, std::string_view pattern) {
  if (pattern.empty()) return false;
  if (path == pattern) return true;
  if (path.size() > pattern.size() && path.substr(0, pattern.size()) == pattern &&
      (pattern.back() == '/' || path[pattern.size()] == '/'))
    return true;
  return path.size() > pattern.size() && path.substr(path.size() - pattern.size()) == pattern &&
         path[path.size() - pattern.size() - 1] == '/';
}

std::string StepList(const std::vector<std::pair<int64_t, int64_t>>& steps) {
  std::set<int64_t> s;
  for (auto& p : steps) s.insert(p.first);
  std::string out;
  for (auto it = s.begin(); it != s.end();) {
    int64_t a = *it, b = a;
    for (++it; it != s.end() && *it == b + 1; ++it) b = *it;
    if (!out.empty()) out += ", ";
    out += std::to_string(a);
    if (b != a) out += "-" + std::to_string(b);
  }
  return out.empty() ? "none" : out;
}

void Merger::Impl::Join() {
  // Sources in path order; their events stay where they are (in arrival order),
  // renumbered to the new source indices. Canon() orders ties by path.
  std::vector<uint32_t> by_path(sources.size()), new_index(sources.size());
  for (uint32_t i = 0; i < sources.size(); i++) by_path[i] = i;
  std::stable_sort(by_path.begin(), by_path.end(),
                   [&](uint32_t a, uint32_t b) {
                     return sources[a].path != sources[b].path ? sources[a].path < sources[b].path
                                                               : sources[a].arrival < sources[b].arrival;
                   });
  Sources sorted;
  for (uint32_t r = 0; r < by_path.size(); r++) {
    new_index[by_path[r]] = r;
    sorted.push_back(std::move(sources[by_path[r]]));
  }
  sources.swap(sorted);
  if (!std::is_sorted(by_path.begin(), by_path.end()))  // (the CLI and the page add them in path order)
    for (Event& e : events) e.source = new_index[e.source];
  for (Source& s : sources) {
    for (auto [step, local] : s.step_marks) step_marks.push_back({step, static_cast<uint32_t>(s.first_event + local)});
    for (auto [step, local] : s.profiler_steps)
      profiler_steps.push_back({step, static_cast<uint32_t>(s.first_event + local)});
  }
  ForEach(sources.size(), Two(), [&](size_t i) {
    if (sources[i].report.included) ApplyClock(static_cast<uint32_t>(i));
  });
  for (Source& s : sources) {  // warnings too, in path order
    for (Diagnostic& d : s.warnings) warnings.push_back(std::move(d));
    s.warnings.clear();
  }
}

void Merger::Impl::ApplyClock(uint32_t index) {
  Source& s = sources[index];
  SourceReport& r = s.report;
  const uint64_t first = s.first_event, end = s.first_event + s.event_count;
  int64_t base = 0;
  if (s.cls.kind == Kind::kSystem) {
    r.absolute = true;
    r.time_base = "Unix seconds in each line";
  } else if (s.have_header) {
    r.absolute = true;
    r.time_base = "smdebug header start_time_since_epoch_in_micros=" + FormatMicros(s.header_base);
    base = s.header_base;  // for any event before the first header
  } else if (s.cls.kind == Kind::kTfTrace) {
    std::string dir = TfStepDir(s.path);
    for (const Source& o : sources) {
      if (o.cls.kind != Kind::kSidecar) continue;
      auto sc = ParseSidecar(o.path);
      if (sc && sc->step_dir == dir) {
        base = MicrosToNs(sc->start_us);
        r.absolute = true;
        r.time_base = "TF sidecar " + std::string(BaseName(o.path));
      }
    }
  } else if (!s.base_time_ns.empty()) {
    if (auto b = ParseScaled(s.base_time_ns, 1)) {
      base = *b;
      r.absolute = true;
      r.time_base = "baseTimeNanoseconds=" + s.base_time_ns;
    } else {
      Warn(s, Code::kBadEvent, 0, "baseTimeNanoseconds is not a number; ignored");
    }
  } else if (s.cls.kind == Kind::kOther) {
    bool all_epoch = end > first;
    for (uint64_t i = first; i < end && all_epoch; i++)
      if (events[i].has_ts && events[i].ts < kEpoch2001Ns) all_epoch = false;
    if (all_epoch) {
      r.absolute = true;
      r.time_base = "Unix µs in the file";
    }
  }
  if (!r.absolute) {
    r.time_base = "none: times stay relative";
    if (end > first)
      Warn(s, Code::kNoClock, 0,
           "no absolute time base (no smdebug header, TF .metadata sidecar or baseTimeNanoseconds); "
           "times stay relative — give an offset to align it");
  }
  for (auto& [pattern, us] : opt.offsets_us)
    if (PathMatches(s.path, pattern)) r.offset_us = us;
  const int64_t shift = MicrosToNs(r.offset_us);
  for (uint64_t i = first; i < end; i++) {
    Event& e = events[i];
    if (!e.has_ts) continue;
    if (!e.based) e.ts = AddNs(e.ts, base);
    e.ts = AddNs(e.ts, shift);
    if (e.ts > 0 && !IsPairPhase(e.ph)) e.dur = std::min(e.dur, INT64_MAX - e.ts);  // ts + dur never overflows
  }
}

// ---- window ----------------------------------------------------------------

// The job as found: its time span and its steps (first ts of each, in time order).
void Merger::Impl::Describe(Report* r) {
  std::vector<std::pair<int64_t, int64_t>> spans(sources.size(), {INT64_MAX, INT64_MIN});  // by source
  ForEach(sources.size(), Two(), [&](size_t i) {
    const Source& s = sources[i];
    auto& [start, end] = spans[i];
    for (uint64_t k = s.first_event; k < s.first_event + s.event_count; k++) {
      const Event& e = events[k];
      if (e.ph == 'M' || !e.has_ts) continue;
      start = std::min(start, e.ts);
      end = std::max(end, e.ts + Duration(e));
    }
  });
  r->job_start_ns = INT64_MAX;
  r->job_end_ns = INT64_MIN;
  for (auto [start, end] : spans) {
    r->job_start_ns = std::min(r->job_start_ns, start);
    r->job_end_ns = std::max(r->job_end_ns, end);
  }
  auto& marks = step_marks.empty() ? profiler_steps : step_marks;
  r->steps_from = step_marks.empty() ? "PyTorch ProfilerStep#N slices" : "pythontimeline step_num";
  // Each step at its first mark (by time, then canonical place), steps in that order.
  std::unordered_map<int64_t, std::pair<int64_t, uint64_t>> first;
  for (auto [step, idx] : marks) {
    const std::pair<int64_t, uint64_t> at{events[idx].ts, Canon(idx)};
    auto [it, added] = first.try_emplace(step, at);
    if (!added && at < it->second) it->second = at;
  }
  std::vector<std::tuple<int64_t, uint64_t, int64_t>> order;  // (ts, canonical place, step)
  for (auto& [step, at] : first) order.push_back({at.first, at.second, step});
  std::sort(order.begin(), order.end());
  for (auto& [ts, place, step] : order) r->steps.push_back({step, ts});
}

bool Merger::Impl::ResolveWindow(Report* r) {
  const int64_t kMaxUs = INT64_MAX / 1000;
  if (opt.unit == Unit::kTime) {
    r->window_start_ns = INT64_MIN;
    r->window_end_ns = INT64_MAX;
    for (auto [bound, out] : {std::pair{opt.start, &r->window_start_ns}, std::pair{opt.end, &r->window_end_ns}}) {
      if (!bound) continue;
      if (*bound > kMaxUs || *bound < -kMaxUs) {
        r->fatal = Diagnostic{Code::kUsage, "", 0, "window bound out of range: " + std::to_string(*bound)};
        return false;
      }
      *out = *bound * 1000;
    }
    r->window_bounded = opt.start || opt.end;
    return true;
  }
  const std::vector<std::pair<int64_t, int64_t>>& steps = r->steps;
  auto first_of = [&](int64_t step) -> std::optional<int64_t> {
    for (auto& p : steps)
      if (p.first == step) return p.second;
    return std::nullopt;
  };
  const std::string& from = r->steps_from;
  r->window_start_ns = INT64_MIN;
  r->window_end_ns = INT64_MAX;
  r->start_step = opt.start;
  r->end_step = opt.end;
  r->window_bounded = true;
  for (auto [bound, is_start] : {std::pair{opt.start, true}, std::pair{opt.end, false}}) {
    if (!bound) continue;
    auto ts = first_of(*bound);
    if (!ts) {
      r->fatal = Diagnostic{Code::kUnknownStep, "", 0,
                            "step " + std::to_string(*bound) + " not found; steps in this job (" + from +
                                "): " + StepList(steps)};
      return false;
    }
    // As the reference: the end step is excluded, the window ends 1 µs before it.
    if (is_start) r->window_start_ns = *ts;
    else r->window_end_ns = AddNs(*ts, -1000);
  }
  return true;
}

void Merger::Impl::Filter(const Report& r) {
  if (!r.window_bounded) return;
  const int64_t lo = r.window_start_ns, hi = r.window_end_ns;
  auto inside = [&](int64_t ts) { return ts >= lo && ts <= hi; };
  // Begin/end pairs are kept or dropped together: B/E per thread, async
  // b/e and S/F per (category, id).
  std::map<std::tuple<uint32_t, char, uint32_t>, std::vector<uint32_t>> open;
  for (uint32_t i = 0; i < events.size(); i++) {
    Event& e = events[i];
    switch (e.ph) {
      case 'M': break;
      case 'X': e.keep = e.ts <= hi && e.ts + e.dur >= lo; break;
      case 'B': case 'b': case 'S': case 'E': case 'e': case 'F': {
        const char kind = (e.ph == 'B' || e.ph == 'E') ? 'B' : (e.ph == 'b' || e.ph == 'e') ? 'b' : 'S';
        auto& stack = open[{e.source, kind, kind == 'B' ? e.thread : e.pair_key}];
        e.keep = inside(e.ts);
        if (e.ph == 'B' || e.ph == 'b' || e.ph == 'S') {
          stack.push_back(i);
        } else if (!stack.empty()) {
          Event& b = events[stack.back()];
          stack.pop_back();
          bool keep = b.ts <= hi && e.ts >= lo;
          b.keep = e.keep = keep;
        }
        break;
      }
      default: e.keep = inside(e.ts);
    }
  }
}


}  // namespace tracemerge
