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
// matching E's (MatchingEnds). A Horovod op's key gets its tensor (TensorKey).
struct Found {
  int64_t start, end;
  std::string_view key;  // the anchor's, or one in `keys` (a Horovod op's, with its tensor)
  bool seq;
  uint32_t source;
};
void Anchors(const ParsedSource& s, uint32_t source, AnchorTier tier, std::deque<std::string>& keys,
             std::vector<Found>* out) {
  std::unordered_map<uint32_t, uint32_t> b_end;  // B event → its E
  bool any_b = false;
  for (const Anchor& a : s.anchors) any_b |= a.tier == tier && a.begin;
  if (any_b) b_end = MatchingEnds(s);
  for (const Anchor& a : s.anchors) {
    if (a.tier != tier) continue;
    const Event& e = s.events[a.event];
    if (!e.has_ts) continue;
    int64_t end = AddNs(e.ts, e.dur);
    std::string_view key = a.key;
    if (a.begin) {
      auto it = b_end.find(a.event);
      if (it == b_end.end()) continue;  // never ended
      end = s.events[it->second].ts;
      key = keys.emplace_back(TensorKey(s, a));
    }
    out->push_back({e.ts, end, key, a.seq, source});
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

std::unordered_map<uint32_t, uint32_t> MatchingEnds(const ParsedSource& s) {
  std::unordered_map<uint32_t, uint32_t> end;
  std::unordered_map<uint32_t, std::vector<uint32_t>> open;  // thread → open B events
  for (uint32_t i = 0; i < s.events.size(); i++) {
    const Event& e = s.events[i];
    if (e.ph == 'B') {
      open[e.thread].push_back(i);
    } else if (e.ph == 'E') {
      auto& stack = open[e.thread];
      if (stack.empty()) continue;
      end[stack.back()] = i;
      stack.pop_back();
    }
  }
  return end;
}

std::string TensorKey(const ParsedSource& s, const Anchor& a) {
  const Proc& p = s.procs[s.threads[s.events[a.event].thread].proc];
  return a.key + '\x1f' + (p.name.empty() ? p.pid_text : p.name);
}

CollectiveMatcher::CollectiveMatcher(const Job& job) : job_(job), has_(job.sources.size(), false) {
  const size_t n = job.sources.size();
  auto counted = [&](uint32_t i) { return job.sources[i].report.included && !job.sources[i].events.empty(); };
  std::map<std::string, std::vector<uint32_t>> members;  // run + stream → sources
  auto collectives = [&](uint32_t i) {  // (a TF trace's own record of Horovod ops ties it to its host, no more)
    for (const Anchor& a : job.sources[i].anchors)
      if (a.tier <= AnchorTier::kHostOp) return true;
    return false;
  };
  for (uint32_t i = 0; i < n; i++)
    if (counted(i) && collectives(i)) {
      members[job.sources[i].identity.StreamKey()].push_back(i);
      has_[i] = true;
    }
  // A stream without step marks of its own covers its host's (a Horovod
  // timeline beside its node's pythontimeline).
  std::vector<std::vector<int64_t>> domain_steps(job.domains);
  for (uint32_t i = 0; i < n; i++)
    if (counted(i))
      for (auto [step, ev] : job.sources[i].steps) domain_steps[job.sources[i].identity.domain].push_back(step);
  std::map<std::string, uint32_t> scopes;  // run, or run + steps → scope
  const auto scope = [&](std::string name) {
    return scopes.try_emplace(std::move(name), static_cast<uint32_t>(scopes.size())).first->second;
  };
  for (auto& [name, list] : members) {
    const std::string& run = job.sources[list[0]].identity.run;
    std::vector<int64_t> own;
    for (uint32_t i : list)
      for (auto [step, ev] : job.sources[i].steps) own.push_back(step);
    if (own.empty()) own = domain_steps[job.sources[list[0]].identity.domain];
    streams_.push_back({scope(run), scope(run + "\x1fsteps " + StepsText(std::move(own))), list});
  }
}

void CollectiveMatcher::Forget() {
  for (Named& n : named_) n = Named();
}

// A collective's identity: its run, its key and — without a Seq — the steps its
// stream covers and its place among the stream's collectives of that key.
struct CollectiveId {
  uint32_t scope;  // run (with a Seq), else run and steps: Stream::by_seq, by_place
  uint32_t key;    // an index into Name()'s keys
  uint32_t place;  // UINT32_MAX with a Seq
  bool operator==(const CollectiveId& o) const { return scope == o.scope && key == o.key && place == o.place; }
};
struct CollectiveIdHash {
  size_t operator()(const CollectiveId& c) const {
    return ((uint64_t{c.scope} << 32 | c.key) * 0x9E3779B97F4A7C15ull) ^ (c.place * 0xC2B2AE3D27D4EB4Full);
  }
};

const std::vector<CollectiveMatcher::Seen>& CollectiveMatcher::Name(AnchorTier tier, uint32_t* cids) {
  Named& named = named_[static_cast<size_t>(tier)];
  if (!named.done) {
    std::deque<std::string> made;                         // keys made here (found's views point into them)
    std::unordered_map<std::string_view, uint32_t> keys;  // each key text once (a job's ranks share them)
    std::unordered_map<CollectiveId, uint32_t, CollectiveIdHash> cid_of;
    std::vector<uint32_t> place;  // by key: occurrences so far in the stream
    std::vector<Found> found;
    // How the previous stream named each position: a job's ranks mostly see
    // the same collectives in the same order, so most need no lookup.
    struct Prior {
      std::string_view text;
      uint32_t key;
      CollectiveId id;
      uint32_t cid;
    };
    std::vector<Prior> last, now;
    for (const Stream& st : streams_) {
      found.clear();
      for (uint32_t i : st.sources) Anchors(job_.sources[i], i, tier, made, &found);
      // (usually in order of their ends already: one source, one stream)
      const auto by_end = [](const Found& a, const Found& b) { return a.end < b.end; };
      if (!std::is_sorted(found.begin(), found.end(), by_end)) std::stable_sort(found.begin(), found.end(), by_end);
      std::fill(place.begin(), place.end(), 0);
      now.clear();
      for (size_t k = 0; k < found.size(); k++) {
        const Found& x = found[k];
        const Prior* before = k < last.size() ? &last[k] : nullptr;
        const uint32_t key = before && before->text == x.key
                                 ? before->key
                                 : keys.try_emplace(x.key, static_cast<uint32_t>(keys.size())).first->second;
        if (key >= place.size()) place.resize(key + 1, 0);
        const CollectiveId id = x.seq ? CollectiveId{st.by_seq, key, UINT32_MAX} : CollectiveId{st.by_place, key, place[key]++};
        const uint32_t cid = before && before->id == id
                                 ? before->cid
                                 : cid_of.try_emplace(id, static_cast<uint32_t>(cid_of.size())).first->second;
        named.seen.push_back({cid, x.source, x.start, x.end});
        now.push_back({x.key, key, id, cid});
      }
      last.swap(now);
    }
    named.cids = static_cast<uint32_t>(cid_of.size());
    named.done = true;
  }
  *cids = named.cids;
  return named.seen;
}

}  // namespace tracemerge
