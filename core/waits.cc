#include "waits.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "identity.h"
#include "match.h"

namespace tracemerge {
namespace {

constexpr AnchorTier kTiers[] = {AnchorTier::kKernel, AnchorTier::kHorovod};  // (host-side ops end at launch)
constexpr const char* kTierNames[] = {"NCCL kernels", "Horovod ops"};

// P(X ≥ k) for X ~ Binomial(n, p): how often chance makes one rank last k times of n.
double Tail(uint32_t n, uint32_t k, double p) {
  double sum = 0, term = std::pow(1 - p, n);  // P(X = 0)
  for (uint32_t i = 0; i <= n; i++) {
    if (i >= k) sum += term;
    term *= static_cast<double>(n - i) / static_cast<double>(i + 1) * p / (1 - p);
  }
  return sum;
}

}  // namespace

Waits CollectiveWaits(const Job& job, CollectiveMatcher& matcher, const std::vector<HostClock>& hosts,
                      const std::vector<int32_t>& host_of) {
  Waits w;
  const std::vector<CollectiveMatcher::Seen>* named = nullptr;
  uint32_t cids = 0;
  size_t tier = 0;
  for (; tier < 2; tier++) {  // kernels, else Horovod ops: the first tier matched across ranks
    named = &matcher.Name(kTiers[tier], &cids);
    std::vector<uint32_t> count(cids, 0);
    bool shared = false;
    for (const auto& x : *named) shared |= ++count[x.cid] > 1;
    if (shared) break;
  }
  if (tier == 2) return w;
  const std::vector<CollectiveMatcher::Seen>& seen = *named;
  w.from = kTierNames[tier];
  // Ranks: streams (a node's rotated files are one rank).
  std::map<std::string, int32_t> rank_of;  // run + stream → rank
  std::vector<int32_t> source_rank(job.sources.size(), -1);
  for (const auto& x : seen) {
    if (source_rank[x.source] >= 0) continue;
    const ParsedSource& s = job.sources[x.source];
    auto [it, added] = rank_of.try_emplace(s.identity.run + '\x1f' + s.identity.stream, static_cast<int32_t>(w.ranks.size()));
    if (added) {
      RankWaits r;
      r.label = s.identity.group;
      r.path = s.path;
      const int32_t h = host_of[x.source];
      r.clock_checked = h >= 0 && hosts[h].status != HostClock::Status::kUnchecked;
      w.ranks.push_back(std::move(r));
    }
    source_rank[x.source] = it->second;
  }
  // Each host's steps, by their first moment on its clock: a collective is in
  // the step its ranks began it in (the most of them).
  std::vector<std::vector<std::pair<int64_t, int64_t>>> step_starts(job.domains);  // (first ts, step)
  {
    std::vector<std::map<int64_t, int64_t>> first(job.domains);
    for (const ParsedSource& s : job.sources) {
      if (!s.report.included) continue;
      for (auto [step, ev] : s.steps) {
        auto [it, added] = first[s.identity.domain].try_emplace(step, s.events[ev].ts);
        if (!added) it->second = std::min(it->second, s.events[ev].ts);
      }
    }
    for (uint32_t d = 0; d < job.domains; d++) {
      for (auto [step, ts] : first[d]) step_starts[d].push_back({ts, step});
      std::sort(step_starts[d].begin(), step_starts[d].end());
    }
  }
  auto step_of = [&](const CollectiveMatcher::Seen& x, int64_t* step) {
    const auto& starts = step_starts[job.sources[x.source].identity.domain];
    auto it = std::upper_bound(starts.begin(), starts.end(), std::make_pair(x.start, INT64_MAX));
    if (it == starts.begin()) return false;
    *step = std::prev(it)->second;
    return true;
  };
  // Per collective: who arrived last (the shortest), and everyone's wait for it.
  std::vector<std::vector<uint32_t>> by_cid(cids);
  for (uint32_t k = 0; k < seen.size(); k++) by_cid[seen[k].cid].push_back(k);
  std::map<int64_t, StepWaits> steps;
  std::map<int64_t, std::map<int32_t, std::pair<uint32_t, int64_t>>> last_of;  // step → rank → (times last, lost)
  const size_t ranks = w.ranks.size();
  for (uint32_t c = 0; c < cids; c++) {
    std::vector<uint32_t>& list = by_cid[c];
    if (list.size() < 2) continue;
    w.collectives++;
    uint32_t last = list[0];
    for (uint32_t k : list)
      if (seen[k].end - seen[k].start < seen[last].end - seen[last].start) last = k;
    const int64_t shortest = seen[last].end - seen[last].start;
    std::map<int64_t, uint32_t> votes;  // step → ranks that began it there
    for (uint32_t k : list) {
      int64_t step = 0;
      if (step_of(seen[k], &step)) votes[step]++;
    }
    bool in_step = !votes.empty();
    int64_t step = 0;
    uint32_t most = 0;
    for (auto [st, v] : votes)
      if (v > most) step = st, most = v;
    StepWaits* sw = nullptr;
    if (in_step) {
      sw = &steps[step];
      sw->step = step;
      sw->collectives++;
      if (sw->wait_ns.empty()) sw->wait_ns.assign(ranks, 0);
    }
    const int32_t last_rank = source_rank[seen[last].source];
    int64_t lost = 0;
    for (uint32_t k : list) {
      const int64_t wait = std::max<int64_t>(0, (seen[k].end - seen[k].start) - shortest);
      const int32_t r = source_rank[seen[k].source];
      w.ranks[r].wait_ns += wait;
      if (sw) sw->wait_ns[r] += wait;
      lost += wait;
    }
    w.ranks[last_rank].last++;
    if (in_step) {
      auto& [times, total] = last_of[step][last_rank];
      times++;
      total += lost;
    }
  }
  // Per step: the rank last most often; a straggler when consistently so.
  for (auto& [step, sw] : steps) {
    for (auto& [rank, tl] : last_of[step])
      if (tl.first > sw.last_count || (tl.first == sw.last_count && tl.second > sw.lost_ns))
        sw.last = rank, sw.last_count = tl.first, sw.lost_ns = tl.second;
    const double chance = Tail(sw.collectives, sw.last_count, 1.0 / static_cast<double>(std::max<size_t>(ranks, 2)));
    sw.straggler = sw.last_count >= 3 && 4 * sw.last_count >= 3 * sw.collectives && chance < 0.01;
    w.steps.push_back(std::move(sw));
  }
  return w;
}

}  // namespace tracemerge
