#include "match.h"

#include <algorithm>
#include <deque>
#include <string_view>
#include <map>
#include <unordered_map>

#include "numbers.h"

namespace tracemerge {
namespace {

// One anchor's start and end: an X's ts and ts + dur; a B's ts and its
// matching E's (per thread, in file order). A Horovod op's key gets its tensor
// (its pid's name).
struct Found {
  int64_t start, end;
  std::string_view key;  // the anchor's, or one in `keys` (a Horovod op's, with its tensor)
  bool seq;
  bool operator<(const Found& o) const { return end < o.end; }
};
void Anchors(const ParsedSource& s, AnchorTier tier, std::deque<std::string>& keys, std::vector<Found>* out) {
  std::unordered_map<uint32_t, int64_t> b_end;  // B event → its E's ts
  bool any_b = false;
  for (const Anchor& a : s.anchors) any_b |= a.tier == tier && s.events[a.event].ph == 'B';
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
    if (a.tier != tier || !e.has_ts) continue;
    int64_t end = AddNs(e.ts, e.dur);
    std::string_view key = a.key;
    if (e.ph == 'B') {
      auto it = b_end.find(a.event);
      if (it == b_end.end()) continue;  // never ended
      end = it->second;
      const Proc& p = s.procs[s.threads[e.thread].proc];
      key = keys.emplace_back(a.key + '\x1f' + (p.name.empty() ? p.pid_text : p.name));
    }
    out->push_back({e.ts, end, key, a.seq});
  }
}

// The profiled steps a stream covers, as text ("10-12/3"), or "".
std::string StepsText(std::vector<int64_t> steps) {
  if (steps.empty()) return "";
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return std::to_string(steps.front()) + "-" + std::to_string(steps.back()) + "/" + std::to_string(steps.size());
}

}  // namespace

CollectiveMatcher::CollectiveMatcher(const Job& job) : job_(job), has_(job.sources.size(), false) {
  const size_t n = job.sources.size();
  auto counted = [&](uint32_t i) { return job.sources[i].report.included && !job.sources[i].events.empty(); };
  std::map<std::string, std::vector<uint32_t>> members;  // run + stream → sources
  for (uint32_t i = 0; i < n; i++)
    if (counted(i) && !job.sources[i].anchors.empty()) {
      members[job.sources[i].identity.run + '\x1f' + job.sources[i].identity.stream].push_back(i);
      has_[i] = true;
    }
  // A stream without step marks of its own covers its host's (a Horovod
  // timeline beside its node's pythontimeline).
  std::vector<std::vector<int64_t>> domain_steps(job.domains);
  for (uint32_t i = 0; i < n; i++)
    if (counted(i))
      for (auto [step, ev] : job.sources[i].steps) domain_steps[job.sources[i].identity.domain].push_back(step);
  for (auto& [name, list] : members) {
    Stream st;
    st.run = job.sources[list[0]].identity.run;
    st.sources = list;
    std::vector<int64_t> own;
    for (uint32_t i : list)
      for (auto [step, ev] : job.sources[i].steps) own.push_back(step);
    if (own.empty()) own = domain_steps[job.sources[list[0]].identity.domain];
    st.steps = StepsText(std::move(own));
    streams_.push_back(std::move(st));
  }
}

// A collective's identity: its run, its key and — without a Seq — the steps its
// stream covers and its place among the stream's collectives of that key.
struct CollectiveId {
  uint32_t scope;  // run (with a Seq), else run and steps: an index into Name()'s scopes
  uint32_t key;    // an index into Name()'s keys
  uint32_t place;  // UINT32_MAX with a Seq
  bool operator==(const CollectiveId& o) const { return scope == o.scope && key == o.key && place == o.place; }
};
struct CollectiveIdHash {
  size_t operator()(const CollectiveId& c) const {
    return ((uint64_t{c.scope} << 32 | c.key) * 0x9E3779B97F4A7C15ull) ^ (c.place * 0xC2B2AE3D27D4EB4Full);
  }
};

std::vector<CollectiveMatcher::Seen> CollectiveMatcher::Name(
    AnchorTier tier, const std::function<bool(const std::string& run)>& take, uint32_t* cids) const {
  std::vector<Seen> seen;
  std::deque<std::string> made;                         // keys made here (found's views point into them)
  std::unordered_map<std::string_view, uint32_t> keys;  // each key text once (a job's ranks share them)
  std::unordered_map<std::string, uint32_t> scope_of;   // run, or run + steps → scope
  std::unordered_map<CollectiveId, uint32_t, CollectiveIdHash> cid_of;
  std::vector<uint32_t> place;  // by key: occurrences so far in the stream
  std::vector<Found> f;
  std::vector<std::pair<Found, uint32_t>> found;  // (anchor, source)
  for (const Stream& st : streams_) {
    if (!take(st.run)) continue;
    found.clear();
    for (uint32_t i : st.sources) {
      f.clear();
      Anchors(job_.sources[i], tier, made, &f);
      for (Found& x : f) found.push_back({x, i});
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const auto scope = [&](std::string name) {
      return scope_of.try_emplace(std::move(name), static_cast<uint32_t>(scope_of.size())).first->second;
    };
    const uint32_t by_seq = scope(st.run), by_place = scope(st.run + "\x1fsteps " + st.steps);
    std::fill(place.begin(), place.end(), 0);
    for (auto& [x, source] : found) {
      const uint32_t key = keys.try_emplace(x.key, static_cast<uint32_t>(keys.size())).first->second;
      if (key >= place.size()) place.resize(key + 1, 0);
      const CollectiveId id = x.seq ? CollectiveId{by_seq, key, UINT32_MAX} : CollectiveId{by_place, key, place[key]++};
      seen.push_back({cid_of.try_emplace(id, static_cast<uint32_t>(cid_of.size())).first->second, source, x.start, x.end});
    }
  }
  *cids = static_cast<uint32_t>(cid_of.size());
  return seen;
}

}  // namespace tracemerge
