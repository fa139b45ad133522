// Which sidecar is a TF trace's (tf_profiler.h ChooseTfClocks). Where several
// nodes profiled a step, its folder holds one sidecar per node, named by
// smdebug's node id ("0-algo-2": the host from SageMaker's resource config),
// while TensorFlow names its trace after the machine's hostname
// ("ip-10-0-0-1"): the two need not agree. In this order:
//   1. the sidecar of the trace's own host (the names agree);
//   2. the step folder's only sidecar;
//   3. the sidecar whose host's Horovod timeline the trace's own Horovod ops
//      line up with, clearly better than with any other host's — placed by a
//      node's sidecar, a trace's "<tensor>:HorovodAllreduce" op ends where that
//      node's timeline ends the tensor's ALLREDUCE, and placed by another
//      node's it is off by how far apart the two nodes started the step;
//   4. sidecars that agree (their starts within 1% of the profiled window):
//      that time base, host not known, a NOTE;
//   5. smdebug's rule — the first sidecar of the folder — with UNSURE_CLOCK
//      naming how far they disagree.
// No sidecar at all: no clock (NO_CLOCK, align.cc).
//
//   000000005/{0-algo-1,1-algo-2,2-algo-3}_<start>_<end>.metadata, plugins/profile/…/ip-10-0-0-7.trace.json.gz
//   whose ops end 2 µs from algo-3's ALLREDUCE ends and 300+ µs from the others'
//     → {sidecar "2-algo-3_…", host "algo-3", host_from "Horovod ops"}
#include <algorithm>
#include <map>
#include <unordered_map>

#include "formats/format.h"
#include "formats/tf_profiler.h"
#include "match.h"
#include "numbers.h"
#include "source.h"

namespace tracemerge {
namespace {

constexpr size_t kMinTied = 3;           // a trace's ops matched on a host, at least, to tie it there
constexpr double kClearlyBetter = 4;     // the next host's median distance, at least this many times the best's
constexpr int64_t kMinMarginNs = 5000;   // … and this much more (ranks of one clock end an op ±4 µs apart)
constexpr int64_t kAgreeShare = 100;     // sidecars agree within 1/kAgreeShare of the profiled window

std::string Micros(int64_t ns) { return FormatMicros(ns) + " µs"; }

// The Horovod timelines' ALLREDUCE (…) ends per run and host, by tensor key, absolute ns, sorted.
using Ends = std::map<std::string, std::unordered_map<std::string, std::vector<int64_t>>>;
Ends HorovodEnds(const std::vector<ParsedSource>& sources, const JobFacts& facts) {
  Ends ends;
  for (const ParsedSource& s : sources) {
    if (!s.report.included || s.identity.host.empty() || s.cls.kind == Kind::kTfTrace) continue;
    bool any = false;
    for (const Anchor& a : s.anchors) any |= a.tier == AnchorTier::kHorovod && a.begin;
    if (!any) continue;
    const TimeBase tb = FormatOf(s.cls.format).Clock(s, facts);
    const auto end_of = MatchingEnds(s);
    auto& keys = ends[s.identity.run + '\x1f' + s.identity.host];
    for (const Anchor& a : s.anchors) {
      if (a.tier != AnchorTier::kHorovod || !a.begin) continue;
      auto it = end_of.find(a.event);
      if (it == end_of.end()) continue;
      const Event& e = s.events[it->second];
      if (!e.based && tb.kind == BaseKind::kNone) continue;  // (no clock: it places nothing)
      keys[TensorKey(s, a)].push_back(e.based ? e.ts : AddNs(e.ts, tb.base_ns));
    }
  }
  for (auto& [host, keys] : ends)
    for (auto& [key, list] : keys) std::sort(list.begin(), list.end());
  return ends;
}

// How well a trace placed by a sidecar lines up with that sidecar's host:
// the median distance from each op's end to the nearest end of its tensor there.
struct LineUp {
  size_t matched = 0;
  int64_t median_ns = INT64_MAX;
};
LineUp LineUpWith(const ParsedSource& s, const Sidecar& sc, const Ends& ends) {
  LineUp l;
  auto host = ends.find(SmdebugRun(s.path, s.in_folder) + '\x1f' + HostOfNodeId(sc.node));
  if (host == ends.end()) return l;
  std::vector<int64_t> d;
  for (const Anchor& a : s.anchors) {
    if (a.tier != AnchorTier::kTfOp) continue;
    auto key = host->second.find(a.key);
    if (key == host->second.end()) continue;
    const Event& e = s.events[a.event];
    const int64_t end = AddNs(AddNs(e.ts, e.dur), MicrosToNs(sc.start_us));
    const std::vector<int64_t>& list = key->second;
    auto it = std::lower_bound(list.begin(), list.end(), end);
    int64_t best = INT64_MAX;
    if (it != list.end()) best = SubNs(*it, end);
    if (it != list.begin()) best = std::min(best, SubNs(end, *(it - 1)));
    d.push_back(best);
  }
  l.matched = d.size();
  if (d.empty()) return l;
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  l.median_ns = d[d.size() / 2];
  return l;
}

TfClock Taken(const Sidecar& sc, const char* host_from, std::string why, std::string detail, Code code = Code::kOk) {
  TfClock c;
  c.sidecar = sc.name;
  c.start_us = sc.start_us;
  if (*host_from) c.host = HostOfNodeId(sc.node);
  c.host_from = host_from;
  c.why = std::move(why);
  c.detail = std::move(detail);
  c.code = code;
  return c;
}

// Rule 3: the sidecar whose host the trace's Horovod ops line up with, or
// nullopt with *why saying what the content could not tell.
std::optional<TfClock> ByContent(const ParsedSource& s, const std::vector<Sidecar>& cands, const Ends& ends,
                                 std::string* why) {
  size_t ops = 0;
  for (const Anchor& a : s.anchors) ops += a.tier == AnchorTier::kTfOp;
  if (ops < kMinTied) {
    *why = ops ? "it has only " + std::to_string(ops) + " Horovod ops to tie it to a host" : "it has no Horovod ops to tie it to a host";
    return std::nullopt;
  }
  // Per host, its best sidecar (a host may have written several).
  struct Host {
    size_t cand;
    LineUp l;
  };
  std::map<std::string, Host> hosts;
  for (size_t k = 0; k < cands.size(); k++) {
    const LineUp l = LineUpWith(s, cands[k], ends);
    auto [it, added] = hosts.try_emplace(HostOfNodeId(cands[k].node), Host{k, l});
    if (!added && l.matched >= kMinTied && (it->second.l.matched < kMinTied || l.median_ns < it->second.l.median_ns))
      it->second = {k, l};
  }
  const Host* best = nullptr;
  const Host* next = nullptr;
  std::string unseen;
  for (auto& [name, h] : hosts) {
    if (h.l.matched < kMinTied) {
      unseen += (unseen.empty() ? "" : ", ") + name;
      continue;
    }
    if (!best || h.l.median_ns < best->l.median_ns) next = best, best = &h;
    else if (!next || h.l.median_ns < next->l.median_ns) next = &h;
  }
  if (!unseen.empty()) {
    *why = "its Horovod ops cannot be compared with " + unseen + "'s (no Horovod timeline with those tensors)";
    return std::nullopt;
  }
  const std::string best_host = HostOfNodeId(cands[best->cand].node);
  const std::string next_host = HostOfNodeId(cands[next->cand].node);
  const std::string measured = best_host + " " + Micros(best->l.median_ns) + " (median of " +
                               std::to_string(best->l.matched) + " ops), " + next_host + " " + Micros(next->l.median_ns);
  if (static_cast<double>(next->l.median_ns) < kClearlyBetter * static_cast<double>(best->l.median_ns) ||
      SubNs(next->l.median_ns, best->l.median_ns) < kMinMarginNs) {
    *why = "its Horovod ops line up with no host clearly better than another (" + measured + ")";
    return std::nullopt;
  }
  return Taken(cands[best->cand], "Horovod ops", best_host + "'s: its Horovod ops line up",
               "its Horovod ops line up with " + best_host + "'s timeline: " + measured);
}

// Rules 1 and 2: the names alone.
std::optional<TfClock> ByName(const ParsedSource& s, const std::vector<Sidecar>& cands) {
  for (const Sidecar& sc : cands)
    if (HostOfNodeId(sc.node) == s.cls.node) return Taken(sc, "TF sidecar", "its own host's", "the sidecar of its own host");
  if (cands.size() == 1)
    return Taken(cands[0], "TF sidecar", "the step folder's only one", "the step folder's only sidecar");
  return std::nullopt;
}

// Rules 3 to 5, where the names do not tell.
TfClock ByEvidence(const ParsedSource& s, const std::vector<Sidecar>& cands, const Ends& ends) {
  std::string content;
  if (auto c = ByContent(s, cands, ends, &content)) return *c;
  int64_t lo = INT64_MAX, hi = INT64_MIN, window = INT64_MAX;
  for (const Sidecar& sc : cands) {
    lo = std::min(lo, sc.start_us);
    hi = std::max(hi, sc.start_us);
    window = std::min(window, sc.end_us - sc.start_us);
  }
  const int64_t spread = MicrosToNs(hi - lo);
  const std::string n = std::to_string(cands.size());
  if (window > 0 && (hi - lo) * kAgreeShare <= window)
    return Taken(cands[0], "", n + " sidecars agree within " + Micros(spread) + "; host not known",
                 "the step folder's " + n + " sidecars agree within " + Micros(spread) +
                     " (1% of the profiled window): host not known — " + content,
                 Code::kNote);
  return Taken(cands[0], "", "a guess: " + n + " sidecars up to " + Micros(spread) + " apart; host not known",
               "a guess, smdebug's rule: the first of the step folder's " + n + " sidecars, which start up to " +
                   Micros(spread) + " apart, and " + content + ": host not known",
               Code::kUnsureClock);
}

}  // namespace

bool SidecarPlaced(const ParsedSource& s) {
  return s.cls.kind == Kind::kTfTrace || (s.cls.kind == Kind::kXPlane && !TfStepDir(s.path).empty());
}

void ChooseTfClocks(const std::vector<ParsedSource>& sources, JobFacts* facts) {
  facts->tf_clocks.clear();
  std::map<std::string, std::vector<Sidecar>> folders;  // step folder → its sidecars, by name
  for (auto& [dir, path] : facts->sidecars)
    if (std::optional<Sidecar> sc = ParseSidecar(path)) {
      sc->name = std::string(BaseName(path));
      folders[dir].push_back(std::move(*sc));
    }
  for (auto& [dir, list] : folders)
    std::sort(list.begin(), list.end(), [](const Sidecar& a, const Sidecar& b) { return a.name < b.name; });
  std::optional<Ends> ends;  // (read once, when a trace's names do not tell)
  for (const ParsedSource& s : sources) {
    if (!s.report.included || !SidecarPlaced(s)) continue;
    auto f = folders.find(TfStepDir(s.path));
    if (f == folders.end() || f->second.empty()) continue;
    std::optional<TfClock> c = ByName(s, f->second);
    if (!c) {
      if (!ends) ends = HorovodEnds(sources, *facts);
      c = ByEvidence(s, f->second, *ends);
    }
    facts->tf_clocks[s.path] = std::move(*c);
  }
}

}  // namespace tracemerge
