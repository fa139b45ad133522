// The overview: what the page draws of a job before merging it — per source,
// its events over the job's span in bins, its steps, its system metrics.
#include <algorithm>
#include <cstdio>
#include <map>

#include "formats/format.h"
#include "numbers.h"
#include "worker_pool.h"
#include "stages.h"

namespace tracemerge {
namespace {

// The bin of ts among `bins` over [start, end].
size_t BinOf(int64_t ts, int64_t start, int64_t end, size_t bins) {
  if (ts <= start || end <= start) return 0;
  if (ts >= end) return bins - 1;
  return std::min(bins - 1, static_cast<size_t>(static_cast<double>(ts - start) / static_cast<double>(end - start) *
                                                 static_cast<double>(bins)));
}

}  // namespace

std::string OverviewJson(const Job& job, const JobShape& shape, size_t bins) {
  const int64_t start = shape.start_ns, end = std::max(shape.end_ns, shape.start_ns + 1);
  std::vector<std::string> parts(job.sources.size());
  ForEach(job.sources.size(), job.threads, [&](size_t k) {
    const ParsedSource& s = job.sources[k];
    if (!s.report.included || s.events.empty()) return;
    const Format& format = FormatOf(s.cls.format);
    std::vector<uint64_t> density(bins, 0);
    std::map<std::string, std::pair<std::vector<double>, std::vector<uint32_t>>> metrics;  // dimension → (sum, n) per bin
    auto sampled = [&](const std::string& dimension, size_t b, double sum, uint32_t n) {
      auto& [sums, ns] = metrics[dimension];
      if (sums.empty()) sums.assign(bins, 0), ns.assign(bins, 0);
      sums[b] += sum;
      ns[b] += n;
    };
    // A scan's source (summary.h): each kept event stands for its fine stretch of the source.
    for (const Thinned::Weight& w : s.thin.weights) density[BinOf(s.events[w.event].ts, start, end, bins)] += w.count;
    for (const Thinned::Samples& x : s.thin.samples)
      sampled(s.thin.dimensions[x.dimension], BinOf(s.events[x.event].ts, start, end, bins), x.sum, x.n);
    for (const Event& e : s.events) {
      if (s.thin.thinned) break;
      if (e.ph == 'M' || !e.has_ts) continue;
      const size_t b = BinOf(e.ts, start, end, bins);
      density[b]++;
      std::string dimension;
      double value = 0;
      if (format.Sample(s, e, &dimension, &value)) sampled(dimension, b, value, 1);
    }
    // Each step of this source: its first and its last moment (marked events).
    std::map<int64_t, std::pair<int64_t, int64_t>> steps;
    for (auto [step, index] : s.steps) {  // (its own, whatever kind: the page draws each source's steps)
      const Event& e = s.events[index];
      auto [it, added] = steps.try_emplace(step, e.ts, e.ts + Duration(e));
      it->second.first = std::min(it->second.first, e.ts);
      it->second.second = std::max(it->second.second, e.ts + Duration(e));
    }
    std::string& j = parts[k];
    j = "{\"source\":" + std::to_string(k) + ",\"density\":[";
    for (size_t b = 0; b < bins; b++) j += (b ? "," : "") + std::to_string(density[b]);
    j += "],\"steps\":[";
    bool first = true;
    for (auto& [step, range] : steps) {
      j += std::string(first ? "" : ",") + "[" + std::to_string(step) + "," + FormatMicros(range.first) + "," +
           FormatMicros(range.second) + "]";
      first = false;
    }
    j += "],\"counters\":[";
    first = true;
    for (auto& [dimension, sn] : metrics) {
      j += std::string(first ? "" : ",") + "{\"name\":\"" + JsonEscape(dimension) + "\",\"values\":[";
      for (size_t b = 0; b < bins; b++) {
        if (b) j += ',';
        char value[32];
        std::snprintf(value, sizeof value, "%.2f", sn.first[b] / sn.second[b]);
        j += sn.second[b] ? value : "null";
      }
      j += "]}";
      first = false;
    }
    j += "]}";
  });
  std::string out = "{\"bins\":" + std::to_string(bins) + ",\"start_us\":" + FormatMicros(start) +
                    ",\"end_us\":" + FormatMicros(end) + ",\"lanes\":[";
  bool first = true;
  for (const std::string& p : parts) {
    if (p.empty()) continue;
    out += (first ? "" : ",") + p;
    first = false;
  }
  return out + "]}";
}

}  // namespace tracemerge
