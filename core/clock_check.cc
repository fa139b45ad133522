// The clock check (clock_check.h): collectives matched across hosts by their
// identity, each host's clock estimated outward from its run's reference, and
// the verdicts as CLOCK_SKEW warnings and notes (under --align clocks, align.cc
// says per host what did not move). The arithmetic of one host's fit: clock_fit.h.
//
// CheckClocks, step by step (ClockChecker):
//   GroupHosts        a host per clock domain, in path order; which have collectives
//   OpenRuns          a run with two or more hosts is to check (one alone is its reference)
//   per tier (NCCL kernels, Horovod ops, host-side collectives), while a run is still open:
//     CollectEnds     the tier's ends on the open runs' hosts, grouped by collective
//     Reference       each run's reference, chosen in the first tier any two of its hosts share
//     EstimateOutward layer by layer from the reference: the hosts sharing a collective with
//                     those measured (NextLayer), each fitted against their ends (FitHost)
//   ExplainUnchecked  why each host left unmeasured is
//   Verdicts          offsets, rates, uncertainties, skew
#include "clock_check.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "clock_fit.h"
#include "identity.h"
#include "match.h"
#include "numbers.h"

namespace tracemerge {
namespace {

using clock_fit::Fit;
using clock_fit::Ns;
using clock_fit::Pair;
using clock_fit::Plain;

constexpr size_t kTiers = 3;  // the AnchorTiers it compares (kTfOp only ties a TF trace to its host)
static_assert(static_cast<size_t>(AnchorTier::kHostOp) == kTiers - 1, "the tiers compared are the first three, in order");
const char* TierName(size_t tier) { return AnchorTierName(static_cast<AnchorTier>(tier)); }

// One collective's end on one host.
struct End {
  uint32_t cid;   // which collective (same on every host that saw it)
  uint32_t host;  // index in ClockCheck::hosts
  int64_t ns;     // on its own clock
};

// One tier's ends on the hosts still to estimate, grouped by collective.
struct TierEnds {
  std::vector<End> ends;
  size_t collectives = 0;
  std::vector<uint32_t> start;   // collective c's ends: ends[by_cid[start[c] .. start[c + 1])]
  std::vector<uint32_t> by_cid;
  std::vector<uint32_t> seen_by;  // per collective: how many hosts saw it (one alone says nothing)
  std::vector<uint64_t> shares;   // per host: how many others share its collectives, summed
  std::vector<std::vector<uint32_t>> of_host;  // per host: its ends
  bool Shared(uint32_t c) const { return seen_by[c] > 1; }
};

// Estimating one run outward from its reference, in one tier: who is measured
// (in this tier or a better one), which collectives and hosts were reached,
// and each collective's end on the reference's clock with its variance (the
// median over the hosts measured so far; computed once per layer).
struct Outward {
  std::vector<bool> measured, expanded, queued;
  std::vector<double> median, variance;
  std::vector<uint32_t> touched;  // collectives whose median this layer computed
};

class ClockChecker {
 public:
  ClockChecker(const Job& job, CollectiveMatcher& matcher) : job_(job), matcher_(matcher) {}

  ClockCheck Run() {
    GroupHosts();
    OpenRuns();
    for (size_t t = 0; t < kTiers && AnyOpen(); t++) {
      const TierEnds te = CollectEnds(t);
      if (!te.collectives) continue;
      for (auto& [run, members] : runs_) {
        if (!open_[run]) continue;
        const std::optional<uint32_t> ref = Reference(run, members, te);
        if (!ref) continue;  // (its hosts share nothing in this tier: a later one may)
        EstimateOutward(members, *ref, t, te);
        bool left = false;
        for (uint32_t h : members) left |= !done_[h] && has_ends_[h];
        open_[run] = left;
      }
    }
    ExplainUnchecked();
    Verdicts();
    return std::move(check_);
  }

 private:
  void GroupHosts() {
    const size_t n = job_.sources.size();
    check_.host_of.assign(n, -1);
    std::vector<int32_t> host_of_domain(job_.domains, -1);
    for (uint32_t i = 0; i < n; i++) {
      const ParsedSource& s = job_.sources[i];
      if (!s.report.included || s.events.empty()) continue;
      int32_t& h = host_of_domain[s.identity.domain];
      if (h < 0) {
        h = static_cast<int32_t>(check_.hosts.size());
        HostClock hc;
        const Identity& id = s.identity;
        hc.run = id.run;
        hc.host = id.clock_name;  // (identity.cc names the domain with its key)
        hc.host_known = !id.host.empty();
        check_.hosts.push_back(std::move(hc));
      }
      check_.hosts[h].sources.push_back(i);
      check_.host_of[i] = h;
    }
    hosts_ = check_.hosts.size();
    has_ends_.assign(hosts_, false);
    for (uint32_t i = 0; i < n; i++)
      if (check_.host_of[i] >= 0 && matcher_.HasAnchors(i)) has_ends_[check_.host_of[i]] = true;
    for (uint32_t h = 0; h < hosts_; h++) runs_[check_.hosts[h].run].push_back(h);
    fits_.assign(hosts_, Fit());
    why_.assign(hosts_, std::string());
    done_.assign(hosts_, false);
    spans_.assign(hosts_, {INT64_MAX, INT64_MIN});
  }

  void OpenRuns() {
    for (auto& [run, members] : runs_) {
      if (members.size() < 2) {  // one clock: nothing to compare
        for (uint32_t h : members) check_.hosts[h].verdict = HostClock::Verdict::kReference;
        continue;
      }
      bool any = false;
      for (uint32_t h : members) any |= has_ends_[h];
      check_.attempted |= any;
      open_[run] = any;
    }
  }

  bool AnyOpen() const {
    for (const auto& [run, open] : open_)
      if (open) return true;
    return false;
  }

  // The tier's ends on the hosts of the runs still open, each named by the
  // collective's identity (match.h), grouped by collective (a counting sort).
  TierEnds CollectEnds(size_t t) {
    std::vector<bool> host_open(hosts_);
    for (uint32_t h = 0; h < hosts_; h++) {
      auto it = open_.find(check_.hosts[h].run);
      host_open[h] = it != open_.end() && it->second;
    }
    TierEnds te;
    uint32_t named = 0;
    for (const CollectiveMatcher::Seen& x : matcher_.Name(static_cast<AnchorTier>(t), &named)) {
      const int32_t h = check_.host_of[x.source];
      if (h >= 0 && host_open[h]) te.ends.push_back({x.cid, static_cast<uint32_t>(h), x.end});
    }
    te.collectives = named;
    if (!named) return te;
    const size_t cids = named;
    te.start.assign(cids + 1, 0);
    for (const End& e : te.ends) te.start[e.cid + 1]++;
    for (size_t c = 0; c < cids; c++) te.start[c + 1] += te.start[c];
    te.by_cid.resize(te.ends.size());
    std::vector<uint32_t> fill(te.start.begin(), te.start.end() - 1);
    for (uint32_t k = 0; k < te.ends.size(); k++) te.by_cid[fill[te.ends[k].cid]++] = k;
    te.seen_by.assign(cids, 0);
    std::vector<uint32_t> stamp(hosts_, UINT32_MAX);
    for (uint32_t c = 0; c < cids; c++)
      for (uint32_t j = te.start[c]; j < te.start[c + 1]; j++) {
        const uint32_t h = te.ends[te.by_cid[j]].host;
        if (stamp[h] != c) stamp[h] = c, te.seen_by[c]++;
      }
    te.shares.assign(hosts_, 0);
    te.of_host.resize(hosts_);
    for (uint32_t k = 0; k < te.ends.size(); k++) {
      const End& e = te.ends[k];
      te.of_host[e.host].push_back(k);
      if (te.Shared(e.cid)) te.shares[e.host] += te.seen_by[e.cid] - 1;
    }
    return te;
  }

  // The run's reference — chosen once, in the first tier any two of its hosts
  // share: the host that shares the most (ties: an absolute clock, then the
  // lowest rank, then the first host by name) —, or none yet.
  std::optional<uint32_t> Reference(const std::string& run, const std::vector<uint32_t>& members, const TierEnds& te) {
    if (auto found = refs_.find(run); found != refs_.end()) return found->second;
    uint64_t shared = 0;
    for (uint32_t h : members) shared += te.shares[h];
    if (!shared) return std::nullopt;
    auto better = [&](uint32_t a, uint32_t b) {
      if (Absolute(a) != Absolute(b)) return Absolute(a);
      if (te.shares[a] != te.shares[b]) return te.shares[a] > te.shares[b];
      if (Rank(a) != Rank(b)) return Rank(a) < Rank(b);
      return check_.hosts[a].host < check_.hosts[b].host;
    };
    uint32_t best = members[0];
    for (uint32_t h : members)
      if (better(h, best)) best = h;
    refs_.emplace(run, best);
    done_[best] = true;
    check_.hosts[best].verdict = HostClock::Verdict::kReference;
    for (uint32_t h : members) check_.hosts[h].reference = check_.hosts[best].Label();
    return best;
  }

  // Layer by layer from the hosts measured so far (in better tiers too): the
  // hosts that share a collective with a layer come next, each measured
  // against the collectives' ends on the reference's clock.
  void EstimateOutward(const std::vector<uint32_t>& members, uint32_t ref, size_t t, const TierEnds& te) {
    Outward o{done_, std::vector<bool>(te.collectives, false), std::vector<bool>(hosts_, false),
              std::vector<double>(te.collectives, NAN), std::vector<double>(te.collectives, 0), {}};
    std::vector<uint32_t> layer;
    for (uint32_t h : members)
      if (done_[h]) layer.push_back(h);
    while (!layer.empty()) {
      std::vector<uint32_t> accepted;
      for (uint32_t h : NextLayer(layer, te, o))
        if (FitHost(h, ref, t, te, o)) accepted.push_back(h);
      for (uint32_t c : o.touched) o.median[c] = NAN;  // (the next layer measures through more hosts)
      o.touched.clear();
      for (uint32_t h : accepted) o.measured[h] = done_[h] = true;  // (after the layer: its hosts are measured alike)
      layer = std::move(accepted);
    }
  }

  // The hosts not yet measured that share a collective with the layer.
  std::vector<uint32_t> NextLayer(const std::vector<uint32_t>& layer, const TierEnds& te, Outward& o) const {
    std::vector<uint32_t> next;
    for (uint32_t h : layer)
      for (uint32_t k : te.of_host[h]) {
        const uint32_t c = te.ends[k].cid;
        if (o.expanded[c] || !te.Shared(c)) continue;
        o.expanded[c] = true;
        for (uint32_t j = te.start[c]; j < te.start[c + 1]; j++) {
          const uint32_t g = te.ends[te.by_cid[j]].host;
          if (!o.measured[g] && !o.queued[g]) o.queued[g] = true, next.push_back(g);
        }
      }
    return next;
  }

  // An end on the reference's clock, through its host's fit.
  double Corrected(const End& e, uint32_t ref) const {
    if (e.host == ref) return static_cast<double>(e.ns);
    const Fit& f = fits_[e.host];
    return static_cast<double>(e.ns) - (f.offset + f.rate * (static_cast<double>(e.ns) - f.at));
  }
  double Variance(uint32_t h, uint32_t ref) const { return h == ref ? 0.0 : fits_[h].u_offset * fits_[h].u_offset; }

  // Host h's clock fitted to its ends against the collectives' ends on the
  // reference's clock; false (and why, if first) when they tell none.
  bool FitHost(uint32_t h, uint32_t ref, size_t t, const TierEnds& te, Outward& o) {
    std::vector<Pair> pairs;
    std::vector<double> xs;
    double u_parents = 0;
    for (uint32_t k : te.of_host[h]) {
      const End& e = te.ends[k];
      if (!te.Shared(e.cid)) continue;
      double& med = o.median[e.cid];
      if (std::isnan(med)) {
        std::vector<double> v;
        double u = 0;
        for (uint32_t j = te.start[e.cid]; j < te.start[e.cid + 1]; j++) {
          const End& x = te.ends[te.by_cid[j]];
          if (o.measured[x.host]) v.push_back(Corrected(x, ref)), u += Variance(x.host, ref);
        }
        if (v.empty()) continue;
        o.variance[e.cid] = u / static_cast<double>(v.size());
        med = clock_fit::Median(v);
        o.touched.push_back(e.cid);
      }
      pairs.push_back({med, static_cast<double>(e.ns) - med, e.cid});
      xs.push_back(med);
      u_parents += o.variance[e.cid];
    }
    if (pairs.empty()) return false;
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    std::vector<double> gaps;
    for (size_t i = 1; i < xs.size(); i++) gaps.push_back(xs[i] - xs[i - 1]);
    const double gap = gaps.empty() ? 0 : clock_fit::Median(gaps);
    u_parents /= static_cast<double>(pairs.size());
    Fit f = clock_fit::FitClock(std::move(pairs), gap);
    if (f.ok && Absolute(h) && Absolute(ref)) {
      // Between two absolute clocks, a shift beyond the time both recorded is a wrong match.
      const auto a = Span(h), b = Span(ref);
      const double overlap = static_cast<double>(std::min(a.second, b.second)) - static_cast<double>(std::max(a.first, b.first));
      if (overlap > 0 && std::fabs(f.offset) > overlap) {
        f.ok = false;
        f.reason = "the shift its collectives suggest (" + Plain(f.offset) + " µs) is longer than the " +
                   Plain(overlap) + " µs both hosts recorded: their collectives were matched wrongly";
      }
    }
    if (!f.ok) {
      if (why_[h].empty()) why_[h] = std::string("its ") + TierName(t) + ": " + f.reason;
      return false;
    }
    f.u_offset = std::sqrt(f.u_offset * f.u_offset + u_parents);
    fits_[h] = f;
    check_.hosts[h].verdict = HostClock::Verdict::kChecked;
    check_.hosts[h].from = TierName(t);
    return true;
  }

  void ExplainUnchecked() {
    for (auto& [run, members] : runs_) {
      if (members.size() < 2) continue;
      auto found = refs_.find(run);
      for (uint32_t h : members) {
        if (done_[h] || !why_[h].empty()) continue;
        if (!has_ends_[h]) why_[h] = kNoCollectives;
        else if (found == refs_.end())
          why_[h] = "it shares no collective with another host (the same group and Seq, or the same steps profiled)";
        else
          why_[h] = "it shares no collective with " + check_.hosts[found->second].Label() + " or the hosts checked against it";
      }
    }
  }

  void Verdicts() {
    std::map<std::string, bool> run_absolute;  // run → its reference's clock is absolute
    for (uint32_t h = 0; h < hosts_; h++)
      if (check_.hosts[h].verdict == HostClock::Verdict::kReference) run_absolute[check_.hosts[h].run] = Absolute(h);
    for (uint32_t h = 0; h < hosts_; h++) {
      HostClock& hc = check_.hosts[h];
      hc.collectives = has_ends_[h];
      if (hc.verdict == HostClock::Verdict::kUnchecked) {
        hc.reason = why_[h].empty() ? "no collectives to compare" : why_[h];
        continue;
      }
      if (hc.verdict != HostClock::Verdict::kChecked) continue;
      const Fit& f = fits_[h];
      hc.anchors = f.inliers;
      hc.matched = f.matched;
      hc.offset_ns = Ns(f.offset);
      hc.uncertainty_ns = Ns(f.u_offset);
      hc.at_ns = Ns(f.drift ? f.at : (f.first + f.last) / 2);
      hc.drift = f.drift;
      hc.rate_ppm = f.rate * 1e6;
      hc.rate_uncertainty_ppm = f.u_rate * 1e6;
      hc.first_ns = Ns(f.first);
      hc.last_ns = Ns(f.last);
      hc.relative = !Absolute(h) && run_absolute[hc.run];
      // Off beyond its noise somewhere in its span.
      const double k = clock_fit::ThreeSigmaT(f.independent);
      for (double x : {f.first, f.last}) {
        const double off = f.offset + f.rate * (x - f.at);
        const double u = std::sqrt(f.u_offset * f.u_offset + std::pow((x - f.at) * f.u_rate, 2));
        hc.skew |= std::fabs(off) > std::max(k * u, static_cast<double>(kSkewFloorNs));
      }
    }
  }

  // What host h recorded, first to last (computed once asked).
  std::pair<int64_t, int64_t> Span(uint32_t h) {
    std::pair<int64_t, int64_t>& sp = spans_[h];
    if (sp.first > sp.second)
      for (uint32_t i : check_.hosts[h].sources)
        for (const Event& e : job_.sources[i].events)
          if (e.has_ts && e.ph != 'M') sp.first = std::min(sp.first, e.ts), sp.second = std::max(sp.second, AddNs(e.ts, e.dur));
    return sp;
  }
  bool Absolute(uint32_t h) const { return job_.sources[check_.hosts[h].sources[0]].report.absolute; }
  int64_t Rank(uint32_t h) const {
    int64_t r = INT64_MAX;
    for (uint32_t i : check_.hosts[h].sources)
      if (job_.sources[i].identity.rank >= 0) r = std::min(r, job_.sources[i].identity.rank);
    return r;
  }

  const Job& job_;
  CollectiveMatcher& matcher_;
  ClockCheck check_;
  size_t hosts_ = 0;
  std::vector<bool> has_ends_;                       // per host: it has collectives to compare
  std::map<std::string, std::vector<uint32_t>> runs_;  // run → its hosts
  std::map<std::string, bool> open_;                 // run → some host is still to estimate
  std::map<std::string, uint32_t> refs_;             // run → its reference, once chosen
  std::vector<Fit> fits_;
  std::vector<std::string> why_;                     // per host: why it went unmeasured (the first reason)
  std::vector<bool> done_;                           // per host: measured (or the reference)
  std::vector<std::pair<int64_t, int64_t>> spans_;
};

}  // namespace

const char* const kNoCollectives = "no collectives (NCCL kernels, Horovod ops, record_param_comms, nccl:*) to compare";

std::string HostClock::Label() const { return host_known ? host : host + " (host not known)"; }

ClockCheck CheckClocks(const Job& job, CollectiveMatcher& matcher) { return ClockChecker(job, matcher).Run(); }

void WarnClocks(Job& job, const ClockCheck& check, bool aligned, std::vector<Diagnostic>* warnings) {
  std::map<std::string, std::vector<const HostClock*>> unchecked;  // run → hosts
  for (const HostClock& hc : check.hosts) {
    ParsedSource& first = job.sources[hc.sources[0]];
    if (hc.verdict == HostClock::Verdict::kUnchecked && check.attempted && !aligned) unchecked[hc.run].push_back(&hc);
    if (hc.verdict != HostClock::Verdict::kChecked || !hc.skew) continue;
    // A relative clock against an absolute one is off by decades: NO_CLOCK says so; --align clocks places it.
    if (hc.relative && !aligned) continue;
    if (hc.relative) {
      first.Warn(Code::kNote, 0, hc.Label() + " has no clock of its own: placed where its " + hc.from + " line up with " +
                                     hc.reference + "'s (" + std::to_string(hc.anchors) + " of " + std::to_string(hc.matched) +
                                     " matched ends agree), moved by " + SignedMicros(SubNs(0, hc.offset_ns)) + " ± " +
                                     FormatMicros(hc.uncertainty_ns) + " µs (--align clocks)");
      continue;
    }
    const int64_t off = hc.offset_ns;
    std::string what = "the clock of " + hc.Label() +
                       (hc.sources.size() == 1 ? "" : " (" + std::to_string(hc.sources.size()) + " files)") +
                       (aligned ? " was " : " is ") + FormatMicros(off < 0 ? SubNs(0, off) : off) + " ± " +
                       FormatMicros(hc.uncertainty_ns) + " µs " + (off < 0 ? "behind" : "ahead of") + " that of " +
                       hc.reference + ": " + hc.from + " end " + (off < 0 ? "earlier" : "later") + " there (" +
                       std::to_string(hc.anchors) + " of " + std::to_string(hc.matched) + " matched ends agree)";
    if (hc.drift)
      what += ", and it " + std::string(hc.rate_ppm > 0 ? "gains " : "loses ") + Plain(std::fabs(hc.rate_ppm) * 1000) +
              " ppm ± " + Plain(hc.rate_uncertainty_ppm * 1000) + " (" + SignedMicros(hc.OffsetAt(hc.first_ns)) + " to " +
              SignedMicros(hc.OffsetAt(hc.last_ns)) + " over " + FormatMicros(SubNs(hc.last_ns, hc.first_ns) / 1000000) + " s)";
    what += aligned ? "; aligning the clocks (--align clocks) moved " : "; aligning the clocks (--align clocks) moves ";
    what += (hc.sources.size() == 1 ? "it" : "them") + std::string(" by ") + SignedMicros(SubNs(0, off)) +
            (hc.drift ? " at its middle, by a line" : "");
    first.Warn(aligned ? Code::kNote : Code::kClockSkew, 0, what);
  }
  for (auto& [run, all] : unchecked) {
    std::vector<const HostClock*> list;  // those with collectives: the others had nothing to check
    for (const HostClock* h : all)
      if (h->collectives) list.push_back(h);
    const size_t quiet = all.size() - list.size();
    if (list.empty()) continue;  // (hosts without collectives: nothing was there to check)
    std::string text = "clock check" + (job.runs > 1 ? " of " + run : std::string()) + ": could not check " +
                       std::to_string(all.size()) + " host" + (all.size() == 1 ? "" : "s") +
                       (all[0]->reference.empty() ? std::string() : " against " + all[0]->reference) + ": ";
    for (size_t i = 0; i < list.size() && i < 8; i++) text += (i ? "; " : "") + list[i]->Label() + " — " + list[i]->reason;
    if (list.size() > 8) text += "; … (" + std::to_string(list.size() - 8) + " more in the report)";
    if (quiet) text += "; " + std::to_string(quiet) + (quiet == 1 ? " has " : " have ") + kNoCollectives;
    warnings->push_back({Code::kNote, "", 0, text});
  }
}

}  // namespace tracemerge
