// The window: the job's span and steps, the window resolved from the options
// (time or steps), and applied — B/E and async pairs together.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "identity.h"
#include "numbers.h"
#include "worker_pool.h"
#include "stages.h"

namespace tracemerge {

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

JobShape DescribeJob(const Job& job) {
  JobShape shape;
  std::vector<std::pair<int64_t, int64_t>> spans(job.sources.size(), {INT64_MAX, INT64_MIN});  // by source
  ForEach(job.sources.size(), job.threads, [&](size_t i) {
    auto& [start, end] = spans[i];
    for (const Event& e : job.sources[i].events) {
      if (e.ph == 'M' || !e.has_ts) continue;
      start = std::min(start, e.ts);
      end = std::max(end, e.ts + Duration(e));
    }
  });
  for (auto [start, end] : spans) {
    shape.start_ns = std::min(shape.start_ns, start);
    shape.end_ns = std::max(shape.end_ns, end);
  }
  // pythontimeline step_num marks where there are any, else ProfilerStep#N slices (identity.h).
  const StepKind kind = JobStepKind(job);
  shape.steps_from = StepKindText(kind);
  // Each step at its first mark (by time, then canonical place), steps in that order.
  std::unordered_map<int64_t, std::tuple<int64_t, uint32_t, uint32_t>> first;  // step → (ts, source, index)
  for (uint32_t k = 0; k < job.sources.size(); k++) {
    const ParsedSource& s = job.sources[k];
    for (auto [step, index] : StepsOf(s, kind)) {
      const std::tuple<int64_t, uint32_t, uint32_t> at{s.events[index].ts, k, index};
      auto [it, added] = first.try_emplace(step, at);
      if (!added && at < it->second) it->second = at;
    }
  }
  std::vector<std::tuple<int64_t, uint32_t, uint32_t, int64_t>> order;  // (ts, source, index, step)
  for (auto& [step, at] : first) order.push_back({std::get<0>(at), std::get<1>(at), std::get<2>(at), step});
  std::sort(order.begin(), order.end());
  for (auto& [ts, source, index, step] : order) shape.steps.push_back({step, ts});
  return shape;
}

Result<Window> ResolveWindow(const Options& opt, const JobShape& shape) {
  Window win;
  Window* w = &win;
  if (opt.unit == Unit::kTime) {
    const int64_t kMaxUs = INT64_MAX / 1000;
    for (auto [bound, out] : {std::pair{opt.start, &w->start_ns}, std::pair{opt.end, &w->end_ns}}) {
      if (!bound) continue;
      if (*bound > kMaxUs || *bound < -kMaxUs)
        return {win, Diagnostic{Code::kUsage, "", 0, "window bound out of range: " + std::to_string(*bound)}};
      *out = *bound * 1000;
    }
    w->bounded = opt.start || opt.end;
    return win;
  }
  w->start_step = opt.start;
  w->end_step = opt.end;
  w->bounded = true;
  for (auto [bound, is_start] : {std::pair{opt.start, true}, std::pair{opt.end, false}}) {
    if (!bound) continue;
    const int64_t step = *bound;
    auto it = std::find_if(shape.steps.begin(), shape.steps.end(), [&](auto& p) { return p.first == step; });
    if (it == shape.steps.end())
      return {win, Diagnostic{Code::kUnknownStep, "", 0,
                              "step " + std::to_string(*bound) + " not found; steps in this job (" + shape.steps_from +
                                  "): " + StepList(shape.steps)}};
    // As the reference: the end step is excluded, the window ends 1 µs before it.
    if (is_start) w->start_ns = it->second;
    else w->end_ns = AddNs(it->second, -1000);
  }
  return win;
}

void ApplyWindow(const Window& w, Job& job) {
  if (!w.bounded) return;
  const int64_t lo = w.start_ns, hi = w.end_ns;
  auto inside = [&](int64_t ts) { return ts >= lo && ts <= hi; };
  ForEach(job.sources.size(), job.threads, [&](size_t k) {
    BlockVector<Event>& events = job.sources[k].events;
    // Begin/end pairs are kept or dropped together: B/E per thread, async
    // b/e and S/F per (category, id), matched in file order.
    std::map<std::pair<char, uint32_t>, std::vector<uint32_t>> open;
    for (uint32_t i = 0; i < events.size(); i++) {
      Event& e = events[i];
      switch (e.ph) {
        case 'M': break;
        case 'X': e.keep = e.ts <= hi && e.ts + e.dur >= lo; break;
        case 'B': case 'b': case 'S': case 'E': case 'e': case 'F': {
          const char kind = (e.ph == 'B' || e.ph == 'E') ? 'B' : (e.ph == 'b' || e.ph == 'e') ? 'b' : 'S';
          auto& stack = open[{kind, kind == 'B' ? e.thread : e.pair_key}];
          e.keep = inside(e.ts);
          if (e.ph == 'B' || e.ph == 'b' || e.ph == 'S') {
            stack.push_back(i);
          } else if (!stack.empty()) {
            Event& b = events[stack.back()];
            stack.pop_back();
            const bool keep = b.ts <= hi && e.ts >= lo;
            b.keep = e.keep = keep;
          }
          break;
        }
        default: e.keep = inside(e.ts);
      }
    }
  });
}

}  // namespace tracemerge
