// The clock check: collectives matched across sources, each source's clock
// estimated against a reference's (align.h), and the CLOCK_SKEW warnings.
#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <unordered_map>

#include "align.h"
#include "numbers.h"

namespace tracemerge {

namespace {

constexpr size_t kTiers = 3;
constexpr size_t kMinAnchors = 3;        // fewer say too little about a clock

const char* TierName(size_t tier) {
  static const char* const kNames[kTiers] = {"NCCL kernels", "Horovod ops", "host-side collectives"};
  return kNames[tier];
}

// The lower median of v, in place (reordered).
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
    int64_t end = AddNs(e.ts, e.dur);
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
  for (int64_t& d : diffs) d = d > p.shift_ns ? SubNs(d, p.shift_ns) : SubNs(p.shift_ns, d);
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
    for (size_t k = 0; k < ea.size() && k < it->second.size(); k++) diffs.push_back(SubNs(ea[k], it->second[k]));
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
        for (int64_t ea : it->second) candidates.push_back(SubNs(ea, end));
  }
  if (candidates.empty()) return {};
  std::sort(candidates.begin(), candidates.end());
  size_t best = 0, best_n = 0;
  for (size_t lo = 0, hi = 0; lo < candidates.size(); lo++) {
    while (hi < candidates.size() && SubNs(candidates[hi], candidates[lo]) <= kWindowNs) hi++;
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
      const int64_t want = AddNs(end, shift);
      auto at = std::lower_bound(ea.begin(), ea.end(), want);
      int64_t near = INT64_MAX;
      if (at != ea.end()) near = *at;
      if (at != ea.begin() && (near == INT64_MAX || SubNs(want, at[-1]) < SubNs(near, want))) near = at[-1];
      if (near != INT64_MAX && (near > want ? SubNs(near, want) : SubNs(want, near)) <= kWindowNs) diffs.push_back(SubNs(near, end));
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

std::string StreamKey(const ParsedSource& s) { return s.identity.run + '\x1f' + s.identity.stream; }

std::string DomainKey(const ParsedSource& s) { return std::to_string(s.identity.domain); }

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
    std::tuple<int64_t, std::string, uint32_t> at{s.identity.rank >= 0 ? s.identity.rank : INT64_MAX, s.identity.node, streams[k].sources[0]};
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

int64_t LowerMedian(std::vector<int64_t> v) { return Median(v); }

bool Usable(const ClockEstimate& c) {
  const int64_t off = c.shift_ns < 0 ? SubNs(0, c.shift_ns) : c.shift_ns;
  return c.known && c.anchors > 0 && (c.spread_ns <= kWindowNs || off > 3 * c.spread_ns);
}

constexpr int64_t kSkewFloorNs = 5000;  // below 5 µs a difference is not worth a warning

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
    const int64_t off = shift < 0 ? SubNs(0, shift) : shift;
    if (off <= std::max(3 * spread, kSkewFloorNs)) continue;
    ParsedSource& first = job.sources[files[0]];
    const ClockEstimate& c = est[files[0]];
    const std::string& host = !first.identity.host.empty() ? first.identity.host : first.identity.node;
    const std::string who = "the clock of " + host + (files.size() == 1 ? "" : " (" + std::to_string(files.size()) + " files)");
    const std::string range = lo == hi ? FormatMicros(off) : FormatMicros(lo < 0 ? SubNs(0, hi) : lo) + "–" + FormatMicros(lo < 0 ? SubNs(0, lo) : hi);
    first.Warn(aligned ? Code::kNote : Code::kClockSkew, 0,
               who + (aligned ? " was " : " is ") + FormatMicros(off) + " µs " + (shift < 0 ? "ahead of" : "behind") + " that of " +
                   job.sources[c.reference].path + ": " + c.from + " end " + range + " µs " +
                   (shift < 0 ? "later" : "earlier") + " here (median of " + std::to_string(anchors) +
                   (files.size() > 1 ? " or more" : "") + ", spread " + (files.size() > 1 ? "≤ " : "") +
                   FormatMicros(spread) + " µs); --align clocks " + (aligned ? "moved " : "moves ") +
                   (files.size() > 1 ? "them" : "it") + " by " + Micros(shift));
  }
}

}  // namespace tracemerge
