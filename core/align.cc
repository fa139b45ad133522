#include "align.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <unordered_map>

#include "numbers.h"

namespace tracemerge {
namespace {

constexpr size_t kTiers = 3;
constexpr size_t kMinAnchors = 3;        // fewer say too little about a clock
constexpr int64_t kSkewFloorNs = 5000;   // below 5 µs a difference is not worth a warning

const char* TierName(size_t tier) {
  static const char* const kNames[kTiers] = {"NCCL kernels", "Horovod ops", "host-side collectives"};
  return kNames[tier];
}

// Where a run's files are: an smdebug job's root (what holds framework/ and
// system/), else the file's folder — so that two runs of one host, dropped
// together, stay apart.
std::string_view RunOf(const std::string& path) {
  for (std::string_view part : {"/framework/", "/system/incremental/"}) {
    const size_t at = path.find(part);
    if (at != std::string::npos) return std::string_view(path).substr(0, at);
    if (path.rfind(part.substr(1), 0) == 0) return {};
  }
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string_view() : std::string_view(path).substr(0, slash);
}

// The lower median of v (reordered).
int64_t Median(std::vector<int64_t>& v) {
  auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// Anchors of one stream: by tier, the ends of each collective key, in time order.
struct StreamAnchors {
  std::vector<uint32_t> sources;  // job.sources indices, in path order
  std::array<std::map<std::string, std::vector<int64_t>>, kTiers> ends;
  size_t count() const {
    size_t n = 0;
    for (auto& tier : ends)
      for (auto& [key, v] : tier) n += v.size();
    return n;
  }
};

// Each anchor's end: an X's ts + dur; a B's matching E (per thread, in file order).
void CollectAnchors(const ParsedSource& s, std::vector<std::tuple<int64_t, size_t, std::string>>* out) {
  std::unordered_map<uint32_t, int64_t> b_end;  // B event → its E's ts
  bool any_b = false;
  for (const Anchor& a : s.anchors) any_b |= s.events[a.event].ph == 'B';
  if (any_b) {
    std::unordered_map<uint32_t, std::vector<uint32_t>> open;  // thread → open B events
    for (uint32_t i = 0; i < s.events.size(); i++) {
      const Event& e = s.events[i];
      if (e.ph == 'B') {
        open[e.thread].push_back(i);
      } else if (e.ph == 'E') {
        auto& stack = open[e.thread];
        if (stack.empty()) continue;
        b_end[stack.back()] = e.ts;
        stack.pop_back();
      }
    }
  }
  for (const Anchor& a : s.anchors) {
    const Event& e = s.events[a.event];
    if (!e.has_ts) continue;
    int64_t end = e.ts + e.dur;
    std::string key = a.key;
    if (e.ph == 'B') {
      auto it = b_end.find(a.event);
      if (it == b_end.end()) continue;  // never ended
      end = it->second;
      const Proc& p = s.procs[s.threads[e.thread].proc];  // Horovod: one pid per tensor
      key += '\x1f' + (p.name.empty() ? p.pid_text : p.name);
    }
    out->push_back({end, static_cast<size_t>(a.tier), std::move(key)});
  }
}

struct PairEstimate {
  bool known = false;
  int64_t shift_ns = 0, spread_ns = 0;
  uint32_t anchors = 0;
  size_t tier = 0;
};

PairEstimate FromDiffs(std::vector<int64_t> diffs, size_t tier) {
  PairEstimate p;
  if (diffs.size() < kMinAnchors) return p;
  p.known = true;
  p.tier = tier;
  p.anchors = static_cast<uint32_t>(diffs.size());
  p.shift_ns = Median(diffs);
  for (int64_t& d : diffs) d = d > p.shift_ns ? d - p.shift_ns : p.shift_ns - d;
  p.spread_ns = Median(diffs);
  return p;
}

using Seqs = std::map<std::string, std::vector<int64_t>>;

// The k-th end of a collective matches the k-th on the other side: right when
// both saw the same ones (the same profiled steps; Seq numbers make it sure).
std::vector<int64_t> ByPlace(const Seqs& a, const Seqs& b) {
  std::vector<int64_t> diffs;
  for (auto& [key, ea] : a) {
    auto it = b.find(key);
    if (it == b.end()) continue;
    for (size_t k = 0; k < ea.size() && k < it->second.size(); k++) diffs.push_back(ea[k] - it->second[k]);
  }
  return diffs;
}

// When they did not (a sampled trace, windows a few collectives apart): the
// shift most end differences agree on (the densest kWindowNs of them, from up
// to 64 of b's ends against all of a's), then each of b's ends matched to the
// nearest of a's within kWindowNs of it.
constexpr int64_t kWindowNs = 50000;
std::vector<int64_t> ByNearest(const Seqs& a, const Seqs& b) {
  size_t total = 0;
  for (auto& [key, eb] : b) total += eb.size();
  const size_t every = std::max<size_t>(1, total / 64);
  std::vector<int64_t> candidates;
  size_t k = 0;
  for (auto& [key, eb] : b) {
    auto it = a.find(key);
    for (int64_t end : eb)
      if (k++ % every == 0 && it != a.end())
        for (int64_t ea : it->second) candidates.push_back(ea - end);
  }
  if (candidates.empty()) return {};
  std::sort(candidates.begin(), candidates.end());
  size_t best = 0, best_n = 0;
  for (size_t lo = 0, hi = 0; lo < candidates.size(); lo++) {
    while (hi < candidates.size() && candidates[hi] - candidates[lo] <= kWindowNs) hi++;
    if (hi - lo > best_n) best = lo, best_n = hi - lo;
  }
  std::vector<int64_t> dense(candidates.begin() + static_cast<std::ptrdiff_t>(best),
                             candidates.begin() + static_cast<std::ptrdiff_t>(best + best_n));
  const int64_t shift = Median(dense);
  std::vector<int64_t> diffs;
  for (auto& [key, eb] : b) {
    auto it = a.find(key);
    if (it == a.end()) continue;
    const std::vector<int64_t>& ea = it->second;
    for (int64_t end : eb) {
      const int64_t want = end + shift;
      auto at = std::lower_bound(ea.begin(), ea.end(), want);
      int64_t near = INT64_MAX;
      if (at != ea.end()) near = *at;
      if (at != ea.begin() && (near == INT64_MAX || want - at[-1] < near - want)) near = at[-1];
      if (near != INT64_MAX && (near > want ? near - want : want - near) <= kWindowNs) diffs.push_back(near - end);
    }
  }
  return diffs;
}

// The shift that lines b up with a, from the best tier both have enough of:
// by place when that agrees (a spread under kWindowNs), else by nearest ends.
PairEstimate Pair(const StreamAnchors& a, const StreamAnchors& b) {
  for (size_t t = 0; t < kTiers; t++) {
    PairEstimate place = FromDiffs(ByPlace(a.ends[t], b.ends[t]), t);
    if (place.known && place.spread_ns <= kWindowNs) return place;
    PairEstimate near = FromDiffs(ByNearest(a.ends[t], b.ends[t]), t);
    if (near.known && (!place.known || near.spread_ns < place.spread_ns)) return near;
    if (place.known) return place;
  }
  return {};
}

std::string Micros(int64_t ns) { return (ns > 0 ? "+" : "") + FormatMicros(ns) + " µs"; }

}  // namespace

std::string StreamKey(const ParsedSource& s) {
  if (IsSmdebugKind(s.cls.kind))
    return std::string(RunOf(s.path)) + '\x1f' + KindName(s.cls.kind) + '\x1f' + s.cls.node;
  return "file\x1f" + s.path + '\x1f' + std::to_string(s.arrival);
}

std::string DomainKey(const ParsedSource& s) {
  const bool node_is_host = IsSmdebugKind(s.cls.kind) || s.cls.kind == Kind::kSystem || s.cls.kind == Kind::kTfTrace;
  const std::string& host = !s.host.empty() ? s.host : node_is_host ? s.cls.node : s.host;
  if (host.empty()) return StreamKey(s);
  return std::string(RunOf(s.path)) + "\x1fhost\x1f" + host;
}

std::vector<ClockEstimate> EstimateClocks(const Job& job) {
  const size_t n = job.sources.size();
  std::vector<ClockEstimate> out(n);
  // Streams and their anchors, places counted over the whole stream.
  std::map<std::string, size_t> stream_of;
  std::vector<StreamAnchors> streams;
  std::vector<size_t> source_stream(n);
  std::vector<std::vector<std::tuple<int64_t, size_t, std::string>>> pooled;
  for (uint32_t i = 0; i < n; i++) {
    const ParsedSource& s = job.sources[i];
    auto [it, added] = stream_of.try_emplace(StreamKey(s), streams.size());
    if (added) {
      streams.emplace_back();
      pooled.emplace_back();
    }
    source_stream[i] = it->second;
    streams[it->second].sources.push_back(i);
    if (s.report.included) CollectAnchors(s, &pooled[it->second]);
  }
  for (size_t k = 0; k < streams.size(); k++) {
    auto& list = pooled[k];
    std::sort(list.begin(), list.end());
    for (auto& [end, tier, key] : list) streams[k].ends[tier][key].push_back(end);
  }
  // The reference: the stream of the lowest rank, else of the first node
  // (smdebug's files sort by their end time, not their node), else the first path.
  size_t ref = streams.size();
  std::tuple<int64_t, std::string, uint32_t> best{INT64_MAX, "", UINT32_MAX};
  for (size_t k = 0; k < streams.size(); k++) {
    if (streams[k].count() == 0) continue;
    const ParsedSource& s = job.sources[streams[k].sources[0]];
    std::tuple<int64_t, std::string, uint32_t> at{s.rank >= 0 ? s.rank : INT64_MAX, s.cls.node, streams[k].sources[0]};
    if (ref == streams.size() || at < best) best = std::move(at), ref = k;
  }
  std::vector<PairEstimate> est(streams.size());
  if (ref < streams.size()) {
    est[ref] = {true, 0, 0, static_cast<uint32_t>(streams[ref].count()), 0};
    // Outward from the reference: each time, the unplaced stream with the
    // most anchors shared with a placed one joins, through it.
    for (;;) {
      size_t pick = streams.size();
      PairEstimate through;
      for (size_t u = 0; u < streams.size(); u++) {
        if (est[u].known || streams[u].count() == 0) continue;
        for (size_t a = 0; a < streams.size(); a++) {
          if (!est[a].known) continue;
          PairEstimate p = Pair(streams[a], streams[u]);
          if (!p.known) continue;
          p.shift_ns = AddNs(p.shift_ns, est[a].shift_ns);
          if (pick == streams.size() || p.tier < through.tier || (p.tier == through.tier && p.anchors > through.anchors))
            pick = u, through = p;
        }
      }
      if (pick == streams.size()) break;
      est[pick] = through;
    }
  }
  // Per source: its stream's estimate; else its host's (the median of the
  // estimated streams on it).
  std::map<std::string, std::vector<int64_t>> host_shifts;
  for (uint32_t i = 0; i < n; i++)
    if (est[source_stream[i]].known && streams[source_stream[i]].sources[0] == i)
      host_shifts[DomainKey(job.sources[i])].push_back(est[source_stream[i]].shift_ns);
  const uint32_t ref_source = ref < streams.size() ? streams[ref].sources[0] : 0;
  for (uint32_t i = 0; i < n; i++) {
    const PairEstimate& e = est[source_stream[i]];
    ClockEstimate& c = out[i];
    c.reference = ref_source;
    if (e.known && e.anchors > 0) {
      c = {true, e.shift_ns, e.spread_ns, e.anchors, ref_source, TierName(e.tier)};
    } else if (auto it = host_shifts.find(DomainKey(job.sources[i])); it != host_shifts.end()) {
      std::vector<int64_t> shifts = it->second;
      c = {true, Median(shifts), 0, 0, ref_source, "its host"};
    }
  }
  for (uint32_t i = 0; i < n; i++)
    if (source_stream[i] == ref) out[i].from = "the reference";
  return out;
}

void ShiftSource(ParsedSource& s, int64_t ns) {
  if (ns == 0) return;
  for (Event& e : s.events) {
    if (!e.has_ts) continue;
    e.ts = AddNs(e.ts, ns);
    if (e.ts > 0 && !IsPairPhase(e.ph)) e.dur = std::min(e.dur, INT64_MAX - e.ts);
  }
}

namespace {

// Per source, in path order, the first ts of each step (the job's step marks).
std::vector<std::map<int64_t, int64_t>> StepStarts(const Job& job) {
  bool python = false;
  for (const ParsedSource& s : job.sources) python |= !s.step_marks.empty();
  std::vector<std::map<int64_t, int64_t>> starts(job.sources.size());
  for (size_t i = 0; i < job.sources.size(); i++) {
    const ParsedSource& s = job.sources[i];
    for (auto [step, event] : python ? s.step_marks : s.profiler_steps) {
      auto [it, added] = starts[i].try_emplace(step, s.events[event].ts);
      if (!added) it->second = std::min(it->second, s.events[event].ts);
    }
  }
  return starts;
}

// --align steps: per host, the shift that starts `step` (or the first step
// every host with steps has) where the reference host starts it.
std::vector<int64_t> StepShifts(const Job& job, std::optional<int64_t> step, Report* report,
                                std::vector<Diagnostic>* warnings) {
  const auto starts = StepStarts(job);
  std::map<std::string, std::map<int64_t, int64_t>> host_starts;  // host → step → first ts
  std::vector<std::string> host_order;                            // (path order of their first source)
  for (size_t i = 0; i < job.sources.size(); i++) {
    if (!job.sources[i].report.included) continue;
    const std::string host = DomainKey(job.sources[i]);
    if (!host_starts.count(host)) host_order.push_back(host);
    auto& m = host_starts[host];
    for (auto [st, ts] : starts[i]) {
      auto [it, added] = m.try_emplace(st, ts);
      if (!added) it->second = std::min(it->second, ts);
    }
  }
  std::vector<int64_t> shifts(job.sources.size(), 0);
  if (!step) {  // the first step every host with steps has
    const std::map<int64_t, int64_t>* first = nullptr;
    for (const std::string& h : host_order)
      if (!host_starts[h].empty() && !first) first = &host_starts[h];
    if (first)
      for (auto [st, ts] : *first) {
        bool all = true;
        for (auto& [h, m] : host_starts) all &= m.empty() || m.count(st);
        if (all) {
          step = st;
          break;
        }
      }
  }
  if (!step) {
    warnings->push_back({Code::kNote, "", 0, "--align steps: no step is in every source with steps; nothing moved"});
    return shifts;
  }
  report->align_step = step;
  std::optional<int64_t> at;  // where the reference host starts it
  std::map<std::string, int64_t> host_shift;
  for (const std::string& h : host_order) {
    auto it = host_starts[h].find(*step);
    if (it == host_starts[h].end()) continue;
    if (!at) at = it->second;
    host_shift[h] = *at - it->second;
  }
  for (size_t i = 0; i < job.sources.size(); i++) {
    const ParsedSource& s = job.sources[i];
    auto it = host_shift.find(DomainKey(s));
    if (it != host_shift.end()) shifts[i] = it->second;
    else if (s.report.included && !s.events.empty())
      warnings->push_back({Code::kNote, s.path, 0,
                           "--align steps: neither this file nor another of its host has step " +
                               std::to_string(*step) + "; not moved"});
  }
  return shifts;
}

// A clockless source that nothing placed starts where the sources with a
// clock start; a job of relative times only that would start before 0 is
// moved to start at 0 (viewers drop times before 0).
void PlaceClockless(Job& job) {
  auto first_ts = [](const ParsedSource& s) {
    int64_t t = INT64_MAX;
    for (const Event& e : s.events)
      if (e.has_ts && e.ph != 'M') t = std::min(t, e.ts);
    return t;
  };
  int64_t job_start = INT64_MAX, relative_start = INT64_MAX;
  for (const ParsedSource& s : job.sources) {
    if (!s.report.included) continue;
    int64_t& start = s.report.absolute ? job_start : relative_start;
    start = std::min(start, first_ts(s));
  }
  for (ParsedSource& s : job.sources) {
    SourceReport& r = s.report;
    if (!r.included || r.absolute || s.events.empty()) continue;
    std::string how;
    if (r.aligned_ns) {
      how = "placed by --align";
    } else if (r.offset_us) {
      how = "placed by its --offset";
    } else if (job_start != INT64_MAX) {
      r.placed_ns = job_start - first_ts(s);
      how = "placed at the start of the sources with a clock (moved " + Micros(r.placed_ns) +
            ") so that it does not stretch the job; give --offset or --align steps to place it";
    } else {
      how = "times stay relative — give an offset to align it";
    }
    if (job_start == INT64_MAX && relative_start < 0) {
      r.placed_ns = -relative_start;
      how += "; moved " + Micros(r.placed_ns) + " with the job's other files so that no time is before 0";
    }
    ShiftSource(s, r.placed_ns);
    s.Warn(Code::kNoClock, 0,
           "no absolute time base (no smdebug header, TF .metadata sidecar or baseTimeNanoseconds); " + how);
  }
}

// One CLOCK_SKEW warning per host whose clock is off by more than its
// spread says is noise (and more than kSkewFloorNs), on its first file.
void WarnSkew(Job& job, const std::vector<ClockEstimate>& est, bool aligned) {
  std::map<std::string, std::vector<size_t>> hosts;  // host → its estimated files
  std::vector<std::string> order;
  for (size_t i = 0; i < job.sources.size(); i++) {
    if (!est[i].known || est[i].anchors == 0 || !job.sources[i].report.included) continue;
    const std::string key = DomainKey(job.sources[i]);
    if (!hosts.count(key)) order.push_back(key);
    hosts[key].push_back(i);
  }
  for (const std::string& key : order) {
    const std::vector<size_t>& files = hosts[key];
    std::vector<int64_t> shifts;
    int64_t lo = INT64_MAX, hi = INT64_MIN, spread = 0;
    uint32_t anchors = UINT32_MAX;
    for (size_t i : files) {
      shifts.push_back(est[i].shift_ns);
      lo = std::min(lo, est[i].shift_ns);
      hi = std::max(hi, est[i].shift_ns);
      spread = std::max(spread, est[i].spread_ns);
      anchors = std::min(anchors, est[i].anchors);
    }
    const int64_t shift = Median(shifts);
    const int64_t off = shift < 0 ? -shift : shift;
    if (off <= std::max(3 * spread, kSkewFloorNs)) continue;
    ParsedSource& first = job.sources[files[0]];
    const ClockEstimate& c = est[files[0]];
    const std::string& host = !first.host.empty() ? first.host : first.cls.node;
    const std::string who = files.size() == 1 ? "its clock" : "the clock of " + host + " (" + std::to_string(files.size()) + " files)";
    const std::string range = lo == hi ? FormatMicros(off) : FormatMicros(lo < 0 ? -hi : lo) + "–" + FormatMicros(lo < 0 ? -lo : hi);
    first.Warn(aligned ? Code::kNote : Code::kClockSkew, 0,
               who + (aligned ? " was " : " is ") + FormatMicros(off) + " µs " + (shift < 0 ? "ahead of" : "behind") + " that of " +
                   job.sources[c.reference].path + ": " + c.from + " end " + range + " µs " +
                   (shift < 0 ? "later" : "earlier") + " here (median of " + std::to_string(anchors) +
                   (files.size() > 1 ? " or more" : "") + ", spread " + (files.size() > 1 ? "≤ " : "") +
                   FormatMicros(spread) + " µs); --align clocks " + (aligned ? "moved " : "moves ") +
                   (files.size() > 1 ? "them" : "it") + " by " + Micros(shift));
  }
}

}  // namespace

void AlignSources(Job& job, const Options& options, Report* report, std::vector<Diagnostic>* warnings) {
  report->align = options.align;
  const std::vector<ClockEstimate> est = EstimateClocks(job);
  // The estimates, in the reports.
  for (size_t i = 0; i < job.sources.size(); i++) {
    SourceReport& r = job.sources[i].report;
    const ClockEstimate& c = est[i];
    if (!c.known || !r.included) continue;
    r.clock_known = true;
    r.clock_shift_ns = c.shift_ns;
    r.clock_spread_ns = c.spread_ns;
    r.clock_anchors = c.anchors;
    r.clock_from = c.from;
    r.clock_reference = job.sources[c.reference].path;
  }
  WarnSkew(job, est, options.align == Align::kClocks);
  std::vector<int64_t> shifts(job.sources.size(), 0);
  if (options.align == Align::kClocks) {
    // One shift per host: the median of its usable estimates — tight (a
    // spread within kWindowNs) or clearly more than noise (3× the spread).
    std::map<std::string, std::vector<int64_t>> host;
    for (size_t i = 0; i < job.sources.size(); i++) {
      const ClockEstimate& c = est[i];
      if (!c.known || c.anchors == 0) continue;
      const int64_t off = c.shift_ns < 0 ? -c.shift_ns : c.shift_ns;
      if (c.spread_ns <= kWindowNs || off > 3 * c.spread_ns) host[DomainKey(job.sources[i])].push_back(c.shift_ns);
      else if (job.sources[i].report.included)
        job.sources[i].Warn(Code::kNote, 0,
                            "--align clocks: its collectives' ends disagree too much to say its clock (spread " +
                                FormatMicros(c.spread_ns) + " µs over " + std::to_string(c.anchors) + "); not moved");
    }
    bool matched = false;  // some source's collectives matched the reference's
    for (size_t i = 0; i < job.sources.size(); i++) {
      matched |= est[i].known && est[i].anchors > 0 && est[i].reference != i;
      auto it = host.find(DomainKey(job.sources[i]));
      if (it == host.end()) continue;
      std::vector<int64_t> v = it->second;
      shifts[i] = Median(v);
    }
    if (!matched)
      warnings->push_back({Code::kNote, "", 0,
                           "--align clocks: no collectives (NCCL kernels, Horovod ops, record_param_comms, nccl:*) "
                           "match across sources; nothing moved"});
  } else if (options.align == Align::kSteps) {
    std::optional<int64_t> step;
    if (options.unit == Unit::kStep && options.start) step = options.start;
    shifts = StepShifts(job, step, report, warnings);
  }
  for (size_t i = 0; i < job.sources.size(); i++) {
    if (!shifts[i] || !job.sources[i].report.included) continue;
    job.sources[i].report.aligned_ns = shifts[i];
    ShiftSource(job.sources[i], shifts[i]);
  }
  PlaceClockless(job);
}

}  // namespace tracemerge
