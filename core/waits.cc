#include "waits.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "identity.h"
#include "match.h"
#include "numbers.h"

namespace tracemerge {
namespace {

constexpr AnchorTier kTiers[] = {AnchorTier::kKernel, AnchorTier::kHorovod};  // (host-side ops end at launch)
constexpr uint32_t kMinCollectives = 3;  // fewer say too little of who is late
constexpr double kNotable = 0.01;        // the others' mean wait, of the step's median length, worth a name

// P(X ≥ k) for X ~ Binomial(n, p): how often chance makes one rank late k times of n.
double Tail(uint32_t n, uint32_t k, double p) {
  if (p >= 1) return 1;
  double sum = 0, term = std::pow(1 - p, n);  // P(X = 0)
  for (uint32_t i = 0; i <= n; i++) {
    if (i >= k) sum += term;
    term *= static_cast<double>(n - i) / static_cast<double>(i + 1) * p / (1 - p);
  }
  return sum;
}

// The values below the widest gap between neighbours in sorted order (all of them when none).
//   LowGroup({0, 1, 290, 291}) → 1 (every value ≤ 1)
int64_t LowGroup(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  int64_t below = v.back(), gap = 0;
  for (size_t i = 1; i < v.size(); i++)
    if (v[i] - v[i - 1] > gap) gap = v[i] - v[i - 1], below = v[i - 1];
  return below;
}

std::string Ms(int64_t ns) { return ns < 1000000 ? FormatMicros(ns) + " µs" : FormatMicros(ns / 1000) + " ms"; }

struct StepStart {
  int64_t first_ns, step;
  StepWaits* waits;
};
// A rank's steps by their first moment, to find the step a moment falls in.
struct Steps {
  std::vector<StepStart> first;  // in time order (then by step)
  StepWaits* At(int64_t t) const {
    auto it = std::upper_bound(first.begin(), first.end(), t, [](int64_t x, const StepStart& s) { return x < s.first_ns; });
    return it == first.begin() ? nullptr : std::prev(it)->waits;
  }
};

// The waits of one job, step by step (CollectiveWaits).
struct WaitsOfJob {
  using Collective = std::vector<std::pair<int32_t, int64_t>>;  // (rank, its wait)

  WaitsOfJob(const Job& j, CollectiveMatcher& m, const std::vector<HostClock>& h, const std::vector<int32_t>& of)
      : job(j), matcher(m), hosts(h), host_of(of) {}

  const Job& job;
  CollectiveMatcher& matcher;
  const std::vector<HostClock>& hosts;
  const std::vector<int32_t>& host_of;
  Waits w;
  std::vector<std::vector<uint32_t>> order;  // the ranks' sources, in the ranks' order
  std::vector<int32_t> rank_of;              // per source: its rank's index (-1: none)
  size_t ranks = 0;
  std::map<std::pair<std::string, int64_t>, StepWaits> steps;  // (run, step) →
  std::vector<Steps> rank_steps;
  const std::vector<CollectiveMatcher::Seen>* seen = nullptr;  // the matched tier's ends
  uint32_t cids = 0;
  std::map<StepWaits*, std::vector<Collective>> in_step;

  // The ranks: each process within its run (identity.h) that has steps or collectives.
  void FindRanks() {
    auto takes_part = [&](const ParsedSource& s) {
      if (!s.report.included) return false;
      if (!s.steps.empty()) return true;
      for (const Anchor& a : s.anchors)
        if (a.tier == AnchorTier::kKernel || a.tier == AnchorTier::kHorovod || a.tier == AnchorTier::kExchange) return true;
      return false;
    };
    // By run, rank number, name.
    std::map<std::pair<std::string, std::string>, std::vector<uint32_t>> members;
    for (uint32_t i = 0; i < job.sources.size(); i++)
      if (takes_part(job.sources[i])) members[{job.sources[i].identity.run, job.sources[i].identity.process}].push_back(i);
    for (const auto& [key, list] : members) order.push_back(list);
    // (ties — two "rank 1" of different jobs — by process: one order whatever the C++ library's sort)
    std::sort(order.begin(), order.end(), [&](const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
      const Identity &x = job.sources[a.front()].identity, &y = job.sources[b.front()].identity;
      if (x.run != y.run) return NaturalLess(x.run, y.run);
      const int64_t rx = x.rank < 0 ? INT64_MAX : x.rank, ry = y.rank < 0 ? INT64_MAX : y.rank;
      if (rx != ry) return rx < ry;
      if (NaturalLess(x.group, y.group) || NaturalLess(y.group, x.group)) return NaturalLess(x.group, y.group);
      return x.process < y.process;
    });
    rank_of.assign(job.sources.size(), -1);
    for (const std::vector<uint32_t>& list : order) {
      RankWaits r;
      const ParsedSource& first = job.sources[list.front()];
      r.label = first.identity.group;
      r.run = job.runs > 1 ? first.identity.run : "";  // (a run is named when there are several)
      r.path = first.path;
      r.clock_checked = false;
      for (uint32_t i : list) {
        rank_of[i] = static_cast<int32_t>(w.ranks.size());
        r.clock_checked |= host_of[i] >= 0 && hosts[host_of[i]].verdict != HostClock::Verdict::kUnchecked;
      }
      w.ranks.push_back(std::move(r));
    }
    {  // Two processes of one name (an smdebug node and a trace named after it): their sources' labels.
      std::map<std::string, uint32_t> uses;
      for (const RankWaits& r : w.ranks) uses[r.label]++;
      for (size_t r = 0; r < order.size(); r++)
        if (uses[w.ranks[r].label] > 1) w.ranks[r].label = job.sources[order[r].front()].identity.label;
    }
    ranks = w.ranks.size();
  }

  void RankSteps() {
    const StepKind kind = JobStepKind(job);
    // Each rank's steps: first and last moment of its marks.
    rank_steps.resize(ranks);
    {
      // A rank's steps are its marks of the job's kind, else of its own (a Kineto rank's
      // ProfilerStep#N beside an smdebug node's step_num: the same loop's numbers).
      std::vector<bool> job_kind(ranks, false);
      for (uint32_t i = 0; i < job.sources.size(); i++)
        if (rank_of[i] >= 0 && !StepsOf(job.sources[i], kind).empty()) job_kind[rank_of[i]] = true;
      std::vector<std::map<int64_t, std::pair<int64_t, int64_t>>> spans(ranks);
      for (uint32_t i = 0; i < job.sources.size(); i++) {
        if (rank_of[i] < 0) continue;
        const ParsedSource& s = job.sources[i];
        for (auto [step, index] : job_kind[rank_of[i]] ? StepsOf(s, kind) : s.steps) {
          const Event& e = s.events[index];
          if (!e.has_ts) continue;
          const int64_t end = AddNs(e.ts, Duration(e));
          auto [it, added] = spans[rank_of[i]].try_emplace(step, e.ts, end);
          it->second = {std::min(it->second.first, e.ts), std::max(it->second.second, end)};
        }
      }
      for (size_t r = 0; r < ranks; r++) {
        // A step ends where the next begins, when a mark of it lasts longer (a loader's slice).
        for (auto it = spans[r].begin(); it != spans[r].end(); ++it)
          if (auto next = std::next(it); next != spans[r].end() && next->first == it->first + 1)
            it->second.second = std::max(it->second.first, std::min(it->second.second, next->second.first));
        for (auto& [step, span] : spans[r]) {
          StepWaits& sw = steps[{w.ranks[r].run, step}];
          if (sw.ranks.empty()) sw.run = w.ranks[r].run, sw.step = step, sw.start_ns = span.first, sw.ranks.resize(ranks);
          sw.start_ns = std::min(sw.start_ns, span.first);
          sw.ranks[r].span_ns = span.second - span.first;
          rank_steps[r].first.push_back({span.first, step, &sw});
        }
        std::sort(rank_steps[r].first.begin(), rank_steps[r].first.end(), [](const StepStart& a, const StepStart& b) {
          return a.first_ns != b.first_ns ? a.first_ns < b.first_ns : a.step < b.step;
        });
      }
    }
  }

  StepWaits* StepAt(size_t r, int64_t t) { return rank_steps[r].At(t); }

  void MatchedTier() {
    // The tier matched across ranks: kernels, else Horovod ops.
    for (size_t tier = 0; tier < 2 && w.from.empty(); tier++) {
      seen = &matcher.Name(kTiers[tier], &cids);
      std::vector<uint32_t> count(cids, 0);
      for (const auto& x : *seen)
        if (++count[x.cid] > 1) w.from = AnchorTierName(kTiers[tier]);
    }
  }

  void CommTime() {
    // Time in communication: kernels of any collective, and the matched ops; their union per rank.
    {
      std::vector<std::vector<std::pair<int64_t, int64_t>>> pieces(ranks);
      for (uint32_t i = 0; i < job.sources.size(); i++) {
        if (rank_of[i] < 0) continue;
        const ParsedSource& s = job.sources[i];
        for (const Anchor& a : s.anchors) {
          const Event& e = s.events[a.event];
          if ((a.tier == AnchorTier::kKernel || a.tier == AnchorTier::kExchange) && e.ph == 'X' && e.has_ts)
            pieces[rank_of[i]].push_back({e.ts, AddNs(e.ts, e.dur)});
        }
      }
      if (w.from == AnchorTierName(AnchorTier::kHorovod))
        for (const auto& x : *seen) pieces[rank_of[x.source]].push_back({x.start, x.end});
      for (size_t r = 0; r < ranks; r++) {
        auto& list = pieces[r];
        std::sort(list.begin(), list.end());
        for (size_t k = 0; k < list.size();) {
          auto [a, b] = list[k];
          for (k++; k < list.size() && list[k].first <= b; k++) b = std::max(b, list[k].second);
          w.ranks[r].comm_ns += b - a;
          if (StepWaits* sw = StepAt(r, a)) sw->ranks[r].comm_ns += b - a;
        }
      }
    }
  }

  void WaitsPerCollective() {
    // Per collective: each rank's wait for the last to arrive, kept by step.
    if (w.from.empty()) return;
    {  // (the matched tier's collectives)
      std::vector<std::vector<uint32_t>> by_cid(cids);
      for (uint32_t k = 0; k < seen->size(); k++) by_cid[(*seen)[k].cid].push_back(k);
      std::vector<uint32_t> in_collective(ranks, UINT32_MAX);  // per rank: the last collective it was counted in
      for (uint32_t cid = 0; cid < cids; cid++) {
        Collective c;
        std::vector<int64_t> start;
        for (uint32_t k : by_cid[cid]) {  // (a rank seen twice — two copies of its file — counts once)
          const int32_t r = rank_of[(*seen)[k].source];
          if (r < 0 || in_collective[r] == cid) continue;
          in_collective[r] = cid;
          c.push_back({r, (*seen)[k].end - (*seen)[k].start});
          start.push_back((*seen)[k].start);
        }
        if (c.size() < 2) continue;
        w.collectives++;
        int64_t shortest = INT64_MAX;
        for (auto& [r, length] : c) shortest = std::min(shortest, length);
        for (auto& [r, length] : c) w.ranks[r].wait_ns += length = std::max<int64_t>(0, length - shortest), w.ranks[r].collectives++;
        std::map<StepWaits*, uint32_t> votes;  // the step its ranks began it in (the most of them)
        for (size_t k = 0; k < c.size(); k++)
          if (StepWaits* sw = StepAt(c[k].first, start[k])) votes[sw]++;
        StepWaits* sw = nullptr;
        uint32_t most = 0;
        for (auto [st, v] : votes)
          if (v > most || (v == most && st->step < sw->step)) sw = st, most = v;
        if (!sw) continue;
        sw->collectives++;
        for (auto [r, wait] : c) sw->ranks[r].wait_ns += wait;
        in_step[sw].push_back(std::move(c));
      }
    }
  }

  // The step's verdict: the ranks the others waited for, or why none is named.
  void Judge(StepWaits& sw) {
    std::vector<int64_t> lengths;
    for (const StepRank& x : sw.ranks)
      if (x.span_ns >= 0) lengths.push_back(x.span_ns);
    std::nth_element(lengths.begin(), lengths.begin() + lengths.size() / 2, lengths.end());
    const int64_t median = lengths.empty() ? 0 : lengths[lengths.size() / 2];
    if (w.from.empty() || sw.collectives == 0) {
      bool exchanged = false;
      for (const StepRank& x : sw.ranks) exchanged |= x.comm_ns > 0;
      sw.why = exchanged ? "no collective matched across ranks: time in send/recv or all-to-all does not say who waited"
                         : "no collective matched across ranks";
    } else if (sw.collectives < kMinCollectives) {
      sw.why = "only " + std::to_string(sw.collectives) + " matched collective" + (sw.collectives == 1 ? "" : "s") + " (" +
               std::to_string(kMinCollectives) + " needed)";
    } else {
      HeldBy(sw, median);
    }
  }

  // Enough collectives: the ranks that waited least, named when they were the last often,
  // beyond chance, and the others' waiting was for them and notable.
  void HeldBy(StepWaits& sw, int64_t median) {
    const std::vector<Collective>& colls = in_step[&sw];
    // The candidates: the ranks that waited least in the step, below its widest gap.
    std::vector<uint32_t> late(ranks, 0), count(ranks, 0);
    std::vector<bool> low(ranks, false), in(ranks, false);
    std::vector<int64_t> waits;
    for (const Collective& c : colls)
      for (auto [r, wait] : c) in[r] = true;
    for (size_t r = 0; r < ranks; r++)
      if (in[r]) waits.push_back(sw.ranks[r].wait_ns);
    const int64_t below = LowGroup(waits);
    size_t n_in = 0, n_low = 0;
    int64_t low_max = 0, high_min = INT64_MAX, lost = 0;
    for (size_t r = 0; r < ranks; r++) {
      if (!in[r]) continue;
      n_in++;
      const int64_t x = sw.ranks[r].wait_ns;
      if (x <= below) low[r] = true, n_low++, low_max = std::max(low_max, x);
      else high_min = std::min(high_min, x), lost += x;
    }
    // At each collective: who were among the last (below its widest gap), and how long
    // the others waited for the candidates after the last of them had come (the least of their waits).
    uint64_t late_sum = 0, count_sum = 0;
    int64_t for_them = 0;
    for (const Collective& c : colls) {
      std::vector<int64_t> v;
      int64_t least_other = INT64_MAX;
      for (auto [r, wait] : c) {
        v.push_back(wait);
        if (!low[r]) least_other = std::min(least_other, wait);
      }
      const int64_t last_below = LowGroup(v);
      for (auto [r, wait] : c) late[r] += wait <= last_below, count[r]++, late_sum += wait <= last_below, count_sum++;
      if (least_other != INT64_MAX) for_them += least_other;
    }
    const size_t others = n_in - n_low;
    const double p = static_cast<double>(late_sum) / static_cast<double>(count_sum);
    bool often = true, beyond_chance = true;
    uint32_t fewest = UINT32_MAX;
    std::string least;  // "rank 4, rank 5"
    for (size_t r = 0; r < ranks; r++) {
      if (!low[r]) continue;
      often &= late[r] >= kMinCollectives && 4 * late[r] >= 3 * count[r];
      beyond_chance &= Tail(count[r], late[r], p) < 0.01;
      fewest = std::min(fewest, late[r]);
      least += (least.empty() ? "" : ", ") + w.ranks[r].label;
    }
    const int64_t mean_lost = others ? lost / static_cast<int64_t>(others) : 0;
    const std::string waited = least + " waited least (" + Ms(low_max) + " or less, the others " + Ms(high_min) + " or more)";
    if (others == 0 || 2 * n_low > n_in || 2 * low_max > high_min) {
      sw.why = "the ranks waited alike: no group waited clearly less than the rest";
    } else if (!often) {
      sw.why = waited + ", but were not among the last at three quarters of the collectives";
    } else if (!beyond_chance) {
      sw.why = waited + ", but " + std::to_string(sw.collectives) + " collectives cannot tell that from chance";
    } else if (3 * for_them < mean_lost) {
      sw.why = waited + ", but the others waited mostly for one another";
    } else if (static_cast<double>(mean_lost) < kNotable * static_cast<double>(median)) {
      sw.why = "the others waited " + Ms(mean_lost) + " each, under 1% of the step";
    } else {
      for (size_t r = 0; r < ranks; r++)
        if (low[r]) sw.held_by.push_back(static_cast<int32_t>(r)), w.ranks[r].held++;
      sw.late_count = fewest;
      sw.lost_ns = lost;
      sw.others = static_cast<uint32_t>(others);
    }
  }
};

}  // namespace

Waits CollectiveWaits(const Job& job, CollectiveMatcher& matcher, const std::vector<HostClock>& hosts,
                      const std::vector<int32_t>& host_of) {
  WaitsOfJob x(job, matcher, hosts, host_of);
  x.FindRanks();
  x.RankSteps();
  x.MatchedTier();
  x.CommTime();
  x.WaitsPerCollective();
  for (auto& [key, sw] : x.steps) {
    x.Judge(sw);
    x.w.steps.push_back(std::move(sw));
  }
  std::stable_sort(x.w.steps.begin(), x.w.steps.end(), [](const StepWaits& a, const StepWaits& b) {
    return a.run != b.run ? NaturalLess(a.run, b.run) : a.step < b.step;
  });
  return std::move(x.w);
}

}  // namespace tracemerge
