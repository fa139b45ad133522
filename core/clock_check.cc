// The clock check (clock_check.h): collectives matched across hosts by their
// identity, each host's clock estimated outward from its run's reference, and
// the verdicts as CLOCK_SKEW warnings and notes (under --align clocks, align.cc
// says per host what did not move).
#include "clock_check.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <map>

#include "identity.h"
#include "match.h"
#include "numbers.h"

namespace tracemerge {
namespace {

constexpr size_t kTiers = 3;  // the AnchorTiers it compares (kTfOp only ties a TF trace to its host)
constexpr uint32_t kMinAnchors = 3;         // fewer say too little about a clock
constexpr double kMaxSpreadNs = 50000;      // ends that agree worse than this say nothing of a clock
constexpr double kMinSigmaNs = 250;         // the times' own grain (whole µs, Perfetto's 256 ns)
constexpr double kAgreeNs = 10000;          // ends within this of the estimate agree with it, whatever their spread
constexpr int64_t kMinDriftSpanNs = 100000000;  // a rate needs 0.1 s of collectives (and to stand out of their noise)

static_assert(static_cast<size_t>(AnchorTier::kHostOp) == kTiers - 1, "the tiers compared are the first three, in order");
const char* TierName(size_t tier) { return AnchorTierName(static_cast<AnchorTier>(tier)); }

// (saturating, as every time here: inputs can hold any number)
int64_t Ns(double v) {
  if (std::isnan(v)) return 0;
  return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : static_cast<int64_t>(std::llround(v));
}

std::string Plain(double ns) { return FormatMicros(Ns(ns)); }

// How many standard errors an offset must stand from 0 to be off beyond
// chance, at the 3σ level (two-sided 99.73%), when its spread was estimated
// from n independent observations: Student's t with n − 1 degrees of freedom
// (Cornish–Fisher from 3 on, exact below): 19.2 for 3 collectives, 5.5 for
// 6, 3.3 for 30, 3 for many. A spread read off a handful of ends is itself
// uncertain, and 3 × it would call jitter a skew.
double ThreeSigmaT(double n) {
  const double v = std::max(std::floor(n) - 1, 2.0);
  if (v < 3) return 19.21;
  if (v < 4) return 9.22;
  constexpr double z = 3;
  return z + (z * z * z + z) / (4 * v) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v) +
         (3 * std::pow(z, 7) + 19 * std::pow(z, 5) + 17 * z * z * z - 15 * z) / (384 * v * v * v);
}

// The median of v (reordered), as a double (the mean of the middle two).
double Median(std::vector<double>& v) {
  const size_t n = v.size(), mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (n % 2) return hi;
  return (hi + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
}

// One collective's end on one source.
struct Obs {
  uint32_t cid;     // which collective (same on every host that saw it)
  uint32_t domain;  // its clock domain (Identity::domain)
  int64_t end;      // ns, on its own clock
  uint8_t tier;
};

// Matched ends of one host against the hosts already estimated: x the
// collective's end on the reference's clock, y this host's end minus it.
struct Pair {
  double x, y;
  uint32_t cid;  // the collective
};

struct Fit {
  bool ok = false;
  std::string reason;
  double offset = 0, rate = 0;  // y = offset + rate × (x − at)
  double at = 0, sigma = 0, u_offset = 0, u_rate = 0;
  bool drift = false;
  uint32_t inliers = 0, matched = 0;
  double independent = 0;  // the agreeing ends as independent observations (inliers / Grouping::weight)
  double first = 0, last = 0;

  double Residual(const Pair& q) const { return q.y - (offset + rate * (q.x - at)); }
};

// How a host's ends group by collective. The ends of one collective (on the
// host's several ranks) share its end on the reference's clock, so they are
// one observation of the offset, not several: `collectives` is how many there
// are, `weight` Σ k_c² / n over n ends (1 when each collective has one end
// here, k when each has k) — the factor by which counting the ends as
// independent would overstate what they tell.
struct Grouping {
  uint32_t collectives = 0;
  double weight = 1;
};
template <class Take>
Grouping GroupByCollective(const std::vector<Pair>& p, Take take) {
  std::vector<uint32_t> cids;  // (sorted: each collective's ends together)
  for (const Pair& q : p)
    if (take(q)) cids.push_back(q.cid);
  std::sort(cids.begin(), cids.end());
  Grouping g;
  double sum = 0;
  for (size_t i = 0, j; i < cids.size(); i = j) {
    for (j = i + 1; j < cids.size() && cids[j] == cids[i];) j++;
    g.collectives++;
    sum += static_cast<double>(j - i) * static_cast<double>(j - i);
  }
  if (!cids.empty()) g.weight = sum / static_cast<double>(cids.size());
  return g;
}

// Least squares of y on x over the pairs whose residual (from the line given)
// is within w: the refined line. False when too few.
bool Refine(const std::vector<Pair>& p, double w, Fit* f) {
  double n = 0, sx = 0, sy = 0;
  for (const Pair& q : p)
    if (std::fabs(f->Residual(q)) <= w) n++, sx += q.x, sy += q.y;
  if (n < 3) return false;
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0;
  for (const Pair& q : p)
    if (std::fabs(f->Residual(q)) <= w) sxx += (q.x - mx) * (q.x - mx), sxy += (q.x - mx) * (q.y - my);
  if (sxx <= 0) return false;
  f->rate = sxy / sxx;
  f->offset = my;
  f->at = mx;
  return true;
}

// The robust spread of the residuals from f's line (1.4826 × their median
// absolute deviation, floored at the times' grain), and their median.
double Sigma(const std::vector<Pair>& p, const Fit& f) {
  std::vector<double> r;
  r.reserve(p.size());
  for (const Pair& q : p) r.push_back(f.Residual(q));
  const double med = Median(r);
  for (double& v : r) v = std::fabs(v - med);
  return std::max(1.4826 * Median(r), kMinSigmaNs);
}

// An offset (and, over a long span, a rate) from the matched ends — or why
// they do not tell one. gap: the median spacing of the collectives' ends.
Fit FitClock(std::vector<Pair> p, double gap) {
  Fit f;
  const Grouping all = GroupByCollective(p, [](const Pair&) { return true; });
  if (all.collectives < kMinAnchors)
    return f.reason = "only " + std::to_string(all.collectives) + " matched collective" +
                      (all.collectives == 1 ? "" : "s") + " (" + std::to_string(kMinAnchors) + " needed)",
           f;
  std::sort(p.begin(), p.end(), [](const Pair& a, const Pair& b) { return a.x < b.x; });
  f.matched = static_cast<uint32_t>(p.size());
  f.first = p.front().x;
  f.last = p.back().x;
  // The offset alone: the median difference.
  {
    std::vector<double> y;
    for (const Pair& q : p) y.push_back(q.y);
    f.offset = Median(y);
  }
  f.at = 0;
  double sigma = Sigma(p, f);
  // A rate, when the collectives span long enough: the two halves' medians
  // (robust to the odd wrong match), refined by least squares over the ends
  // that agree with it; kept when it explains them beyond their noise.
  if (p.size() >= 8 && f.last - f.first >= kMinDriftSpanNs) {
    const size_t half = p.size() / 2;
    std::vector<double> xl, yl, xh, yh;
    for (size_t i = 0; i < p.size(); i++) (i < half ? xl : xh).push_back(p[i].x), (i < half ? yl : yh).push_back(p[i].y);
    const double dx = Median(xh) - Median(xl);
    Fit line = f;
    line.at = (f.first + f.last) / 2;
    line.rate = dx > 0 ? (Median(yh) - Median(yl)) / dx : 0;
    {
      std::vector<double> a;
      for (const Pair& q : p) a.push_back(q.y - line.rate * (q.x - line.at));
      line.offset = Median(a);
    }
    double s = Sigma(p, line);
    for (int round = 0; round < 3 && Refine(p, std::max(4 * s, kAgreeNs), &line); round++) s = Sigma(p, line);
    double sxx = 0;
    for (const Pair& q : p)
      if (std::fabs(line.Residual(q)) <= std::max(4 * s, kAgreeNs)) sxx += (q.x - line.at) * (q.x - line.at);
    const double u_rate = sxx > 0 ? s / std::sqrt(sxx) * std::sqrt(all.weight) : INFINITY;
    if (s < sigma && std::fabs(line.rate) > 4 * u_rate && std::fabs(line.rate) * (f.last - f.first) > 3 * s) {
      f = line;
      f.drift = true;
      f.u_rate = u_rate;
      sigma = s;
    }
  }
  f.sigma = sigma;
  const double w = std::max(4 * sigma, kAgreeNs);
  auto agree = [&](double shift) {
    uint32_t k = 0;
    for (const Pair& q : p)
      k += std::fabs(f.Residual(q) - shift) <= w;
    return k;
  };
  f.inliers = agree(0);
  if (sigma > kMaxSpreadNs)
    return f.reason = "their ends disagree by " + Plain(sigma) + " µs (a spread over " + Plain(kMaxSpreadNs) +
                      " µs says nothing of a clock)",
           f;
  if (f.inliers < kMinAnchors || 2 * f.inliers < p.size())
    return f.reason = "only " + std::to_string(f.inliers) + " of " + std::to_string(p.size()) +
                      " matched ends agree on one offset",
           f;
  const Grouping agreeing = GroupByCollective(p, [&](const Pair& q) { return std::fabs(f.Residual(q)) <= w; });
  if (agreeing.collectives < kMinAnchors)
    return f.reason = "the ends that agree are of only " + std::to_string(agreeing.collectives) + " of " +
                      std::to_string(all.collectives) + " matched collectives (" + std::to_string(kMinAnchors) +
                      " needed)",
           f;
  // The null model: as many ends should not agree at shifts a few collectives
  // away (ends matched to the wrong occurrence, or unrelated ends, agree about
  // as well at any shift).
  const double step = std::max(gap, 2 * w + 1);
  uint32_t null_max = 0;
  for (int k : {-3, -2, -1, 1, 2, 3}) null_max = std::max(null_max, agree(k * step));
  if (f.inliers < 3 * null_max + kMinAnchors)
    return f.reason = "their ends agree no better than at other shifts (" + std::to_string(f.inliers) + " at the best, " +
                      std::to_string(null_max) + " a few collectives away): cannot tell which collective is which",
           f;
  // (the ends of one collective counted as one observation: Grouping)
  f.independent = static_cast<double>(f.inliers) / agreeing.weight;
  f.u_offset = 1.2533 * sigma / std::sqrt(f.independent);
  f.ok = true;
  return f;
}

}  // namespace

const char* const kNoCollectives = "no collectives (NCCL kernels, Horovod ops, record_param_comms, nccl:*) to compare";

int64_t HostClock::OffsetAt(int64_t t) const {
  if (!drift) return offset_ns;
  return AddNs(offset_ns, Ns(rate_ppm * 1e-6 * static_cast<double>(SubNs(t, at_ns))));
}

std::string HostClock::Label() const { return host_known ? host : host + " (host not known)"; }

int64_t HostClock::Worst() const {
  const int64_t a = OffsetAt(first_ns), b = OffsetAt(last_ns);
  return std::max(a < 0 ? SubNs(0, a) : a, b < 0 ? SubNs(0, b) : b);
}

ClockCheck CheckClocks(const Job& job, CollectiveMatcher& matcher) {
  ClockCheck check;
  const size_t n = job.sources.size();
  check.host_of.assign(n, -1);
  // The hosts: one per clock domain, in path order of their first source.
  std::vector<int32_t> host_of_domain(job.domains, -1);
  for (uint32_t i = 0; i < n; i++) {
    const ParsedSource& s = job.sources[i];
    if (!s.report.included || s.events.empty()) continue;
    int32_t& h = host_of_domain[s.identity.domain];
    if (h < 0) {
      h = static_cast<int32_t>(check.hosts.size());
      HostClock hc;
      hc.run = s.identity.run;
      const Identity& id = s.identity;
      hc.host = !id.host.empty() ? id.host : id.rank >= 0 ? "rank " + std::to_string(id.rank) : id.node;
      hc.host_known = !id.host.empty();
      check.hosts.push_back(std::move(hc));
    }
    check.hosts[h].sources.push_back(i);
    check.host_of[i] = h;
  }
  const size_t hosts = check.hosts.size();
  std::vector<bool> has_ends(hosts, false);
  for (uint32_t i = 0; i < n; i++)
    if (check.host_of[i] >= 0 && matcher.HasAnchors(i)) has_ends[check.host_of[i]] = true;

  // Per run: the reference — the host that shares the most, in the best tier
  // any two hosts share —, then the others outward from it, a tier at a time:
  // a tier's collectives are named only when some host is still to estimate.
  std::map<std::string, std::vector<uint32_t>> runs;
  for (uint32_t h = 0; h < hosts; h++) runs[check.hosts[h].run].push_back(h);
  std::vector<Fit> fits(hosts);
  std::vector<std::string> why(hosts);
  std::vector<bool> done(hosts, false);
  std::map<std::string, uint32_t> refs;  // run → its reference, once chosen
  std::vector<std::pair<int64_t, int64_t>> spans(hosts, {INT64_MAX, INT64_MIN});  // what each recorded (once asked)
  auto span = [&](uint32_t x) {
    std::pair<int64_t, int64_t>& sp = spans[x];
    if (sp.first > sp.second)
      for (uint32_t i : check.hosts[x].sources)
        for (const Event& e : job.sources[i].events)
          if (e.has_ts && e.ph != 'M') sp.first = std::min(sp.first, e.ts), sp.second = std::max(sp.second, AddNs(e.ts, e.dur));
    return sp;
  };
  auto absolute = [&](uint32_t h) { return job.sources[check.hosts[h].sources[0]].report.absolute; };
  auto rank = [&](uint32_t h) {
    int64_t r = INT64_MAX;
    for (uint32_t i : check.hosts[h].sources)
      if (job.sources[i].identity.rank >= 0) r = std::min(r, job.sources[i].identity.rank);
    return r;
  };
  std::map<std::string, bool> open;  // run → some host is still to estimate
  for (auto& [run, members] : runs) {
    if (members.size() < 2) {  // one clock: nothing to compare
      for (uint32_t h : members) check.hosts[h].verdict = HostClock::Verdict::kReference;
      continue;
    }
    bool any = false;
    for (uint32_t h : members) any |= has_ends[h];
    check.attempted |= any;
    open[run] = any;
  }
  for (size_t t = 0; t < kTiers; t++) {
    bool needed = false;
    for (auto& [run, o] : open) needed |= o;
    if (!needed) break;
    // This tier's ends on the hosts of the runs still open, each named by the
    // collective's identity (match.h).
    std::vector<bool> host_open(hosts);
    for (uint32_t h = 0; h < hosts; h++) {
      auto it = open.find(check.hosts[h].run);
      host_open[h] = it != open.end() && it->second;
    }
    uint32_t named = 0;
    std::vector<Obs> obs;
    for (const CollectiveMatcher::Seen& x : matcher.Name(static_cast<AnchorTier>(t), &named)) {
      const int32_t h = check.host_of[x.source];
      if (h >= 0 && host_open[h]) obs.push_back({x.cid, static_cast<uint32_t>(h), x.end, static_cast<uint8_t>(t)});
    }
    const size_t cids = named;

    if (!cids) continue;
    // Obs of each collective, grouped (a counting sort by cid); the hosts that saw
    // each (a collective seen on one host only says nothing); each host's obs.
    std::vector<uint32_t> start(cids + 1, 0);
    for (const Obs& o : obs) start[o.cid + 1]++;
    for (size_t c = 0; c < cids; c++) start[c + 1] += start[c];
    std::vector<uint32_t> by_cid(obs.size());
    {
      std::vector<uint32_t> fill(start.begin(), start.end() - 1);
      for (uint32_t k = 0; k < obs.size(); k++) by_cid[fill[obs[k].cid]++] = k;
    }
    std::vector<uint32_t> cid_hosts(cids, 0), stamp(hosts, UINT32_MAX);
    for (uint32_t c = 0; c < cids; c++)
      for (uint32_t j = start[c]; j < start[c + 1]; j++) {
        const uint32_t h = obs[by_cid[j]].domain;
        if (stamp[h] != c) stamp[h] = c, cid_hosts[c]++;
      }
    std::vector<uint64_t> shares(hosts, 0);
    std::vector<std::vector<uint32_t>> host_obs(hosts);
    for (uint32_t k = 0; k < obs.size(); k++) {
      host_obs[obs[k].domain].push_back(k);
      if (cid_hosts[obs[k].cid] > 1) shares[obs[k].domain] += cid_hosts[obs[k].cid] - 1;
    }
    for (auto& [run, members] : runs) {
      if (!open[run]) continue;
      auto found = refs.find(run);
      if (found == refs.end()) {
        uint64_t shared = 0;
        for (uint32_t h : members) shared += shares[h];
        if (!shared) continue;  // (a later tier may)
        // (ties: an absolute clock, then the lowest rank, then the first host by name)
        auto better = [&](uint32_t a, uint32_t b) {
          if (absolute(a) != absolute(b)) return absolute(a);
          if (shares[a] != shares[b]) return shares[a] > shares[b];
          if (rank(a) != rank(b)) return rank(a) < rank(b);
          return check.hosts[a].host < check.hosts[b].host;
        };
        uint32_t best = members[0];
        for (uint32_t h : members)
          if (better(h, best)) best = h;
        found = refs.emplace(run, best).first;
        done[best] = true;
        check.hosts[best].verdict = HostClock::Verdict::kReference;
        for (uint32_t h : members) check.hosts[h].reference = check.hosts[best].Label();
      }
      const uint32_t ref = found->second;
      // The hosts estimated so far (in better tiers too) are what the next ones are measured through.
      std::vector<bool> in(done);
      std::vector<uint32_t> layer;
      for (uint32_t h : members)
        if (done[h]) layer.push_back(h);
      std::vector<bool> expanded(cids, false), queued(hosts, false);
      std::vector<double> cid_median(cids, NAN), cid_u(cids, 0);
      auto corrected = [&](const Obs& o) {
        if (o.domain == ref) return static_cast<double>(o.end);
        const Fit& f = fits[o.domain];
        return static_cast<double>(o.end) - (f.offset + f.rate * (static_cast<double>(o.end) - f.at));
      };
      auto u2 = [&](uint32_t h) { return h == ref ? 0.0 : fits[h].u_offset * fits[h].u_offset; };
      while (!layer.empty()) {
        // The hosts that share a collective with this layer come next, measured
        // against the collectives' ends on the reference's clock: the median of
        // the corrected ends of the hosts estimated before them.
        std::vector<uint32_t> next;
        std::vector<uint32_t> touched;  // collectives whose median this layer computes
        for (uint32_t h : layer)
          for (uint32_t k : host_obs[h]) {
            const uint32_t c = obs[k].cid;
            if (expanded[c] || cid_hosts[c] < 2) continue;
            expanded[c] = true;
            for (uint32_t j = start[c]; j < start[c + 1]; j++) {
              const uint32_t g = obs[by_cid[j]].domain;
              if (!in[g] && !queued[g]) queued[g] = true, next.push_back(g);
            }
          }
        std::vector<uint32_t> accepted;
        for (uint32_t h : next) {
          std::vector<Pair> pairs;
          std::vector<double> xs;
          double u_parents = 0;
          for (uint32_t k : host_obs[h]) {
            const Obs& o = obs[k];
            if (cid_hosts[o.cid] < 2) continue;
            double& med = cid_median[o.cid];
            if (std::isnan(med)) {
              std::vector<double> v;
              double u = 0;
              for (uint32_t j = start[o.cid]; j < start[o.cid + 1]; j++) {
                const Obs& e = obs[by_cid[j]];
                if (in[e.domain]) v.push_back(corrected(e)), u += u2(e.domain);
              }
              if (v.empty()) continue;
              cid_u[o.cid] = u / static_cast<double>(v.size());
              med = Median(v);
              touched.push_back(o.cid);
            }
            pairs.push_back({med, static_cast<double>(o.end) - med, o.cid});
            xs.push_back(med);
            u_parents += cid_u[o.cid];
          }
          if (pairs.empty()) continue;
          std::sort(xs.begin(), xs.end());
          xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
          std::vector<double> gaps;
          for (size_t i = 1; i < xs.size(); i++) gaps.push_back(xs[i] - xs[i - 1]);
          const double gap = gaps.empty() ? 0 : Median(gaps);
          u_parents /= static_cast<double>(pairs.size());
          Fit f = FitClock(std::move(pairs), gap);
          if (f.ok && absolute(h) && absolute(ref)) {
            // Between two absolute clocks, a shift beyond the time both recorded is a wrong match.
            const auto a = span(h), b = span(ref);
            const double overlap = static_cast<double>(std::min(a.second, b.second)) - static_cast<double>(std::max(a.first, b.first));
            if (overlap > 0 && std::fabs(f.offset) > overlap) {
              f.ok = false;
              f.reason = "the shift its collectives suggest (" + Plain(f.offset) + " µs) is longer than the " +
                         Plain(overlap) + " µs both hosts recorded: their collectives were matched wrongly";
            }
          }
          if (!f.ok) {
            if (why[h].empty()) why[h] = std::string("its ") + TierName(t) + ": " + f.reason;
            continue;
          }
          f.u_offset = std::sqrt(f.u_offset * f.u_offset + u_parents);
          fits[h] = f;
          accepted.push_back(h);
          check.hosts[h].verdict = HostClock::Verdict::kChecked;
          check.hosts[h].from = TierName(t);
        }
        for (uint32_t c : touched) cid_median[c] = NAN;  // (the next layer measures through more hosts)
        for (uint32_t h : accepted) in[h] = done[h] = true;  // (after the layer: its hosts are measured alike)
        layer = std::move(accepted);
      }
      bool left = false;
      for (uint32_t h : members) left |= !done[h] && has_ends[h];
      open[run] = left;
    }
  }
  for (auto& [run, members] : runs) {
    if (members.size() < 2) continue;
    auto found = refs.find(run);
    for (uint32_t h : members) {
      if (done[h] || !why[h].empty()) continue;
      if (!has_ends[h]) why[h] = kNoCollectives;
      else if (found == refs.end())
        why[h] = "it shares no collective with another host (the same group and Seq, or the same steps profiled)";
      else
        why[h] = "it shares no collective with " + check.hosts[found->second].Label() + " or the hosts checked against it";
    }
  }
  // Results.
  std::map<std::string, bool> run_absolute;  // run → its reference's clock is absolute
  for (uint32_t h = 0; h < hosts; h++)
    if (check.hosts[h].verdict == HostClock::Verdict::kReference) run_absolute[check.hosts[h].run] = absolute(h);
  for (uint32_t h = 0; h < hosts; h++) {
    HostClock& hc = check.hosts[h];
    hc.collectives = has_ends[h];
    if (hc.verdict == HostClock::Verdict::kUnchecked) {
      hc.reason = why[h].empty() ? "no collectives to compare" : why[h];
      continue;
    }
    if (hc.verdict != HostClock::Verdict::kChecked) continue;
    const Fit& f = fits[h];
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
    hc.relative = !absolute(h) && run_absolute[hc.run];
    // Off beyond its noise somewhere in its span.
    const double k = ThreeSigmaT(f.independent);
    for (double t : {f.first, f.last}) {
      const double off = f.offset + f.rate * (t - f.at);
      const double u = std::sqrt(f.u_offset * f.u_offset + std::pow((t - f.at) * f.u_rate, 2));
      hc.skew |= std::fabs(off) > std::max(k * u, static_cast<double>(kSkewFloorNs));
    }
  }
  return check;
}

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
