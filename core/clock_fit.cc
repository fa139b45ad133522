// The clock check's arithmetic (clock_fit.h).
#include "clock_fit.h"

#include <algorithm>
#include <cmath>

#include "merger.h"
#include "numbers.h"

namespace tracemerge::clock_fit {
namespace {

constexpr uint32_t kMinAnchors = 3;         // fewer say too little about a clock
constexpr double kMaxSpreadNs = 50000;      // ends that agree worse than this say nothing of a clock
constexpr double kMinSigmaNs = 250;         // the times' own grain (whole µs, Perfetto's 256 ns)
constexpr double kAgreeNs = 10000;          // ends within this of the estimate agree with it, whatever their spread
constexpr int64_t kMinDriftSpanNs = 100000000;  // a rate needs 0.1 s of collectives (and to stand out of their noise)

}  // namespace

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

namespace {

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

// A rate, when the collectives span long enough: the two halves' medians
// (robust to the odd wrong match), refined by least squares over the ends
// that agree with it; kept (into *f, its spread into *sigma) when it explains
// them beyond their noise. p in x order; weight: the ends per collective (Grouping).
bool DriftLine(const std::vector<Pair>& p, double weight, Fit* f, double* sigma) {
  if (p.size() < 8 || f->last - f->first < kMinDriftSpanNs) return false;
  const size_t half = p.size() / 2;
  std::vector<double> xl, yl, xh, yh;
  for (size_t i = 0; i < p.size(); i++) (i < half ? xl : xh).push_back(p[i].x), (i < half ? yl : yh).push_back(p[i].y);
  const double dx = Median(xh) - Median(xl);
  Fit line = *f;
  line.at = (f->first + f->last) / 2;
  line.rate = dx > 0 ? (Median(yh) - Median(yl)) / dx : 0;
  std::vector<double> a;
  for (const Pair& q : p) a.push_back(q.y - line.rate * (q.x - line.at));
  line.offset = Median(a);
  double s = Sigma(p, line);
  for (int round = 0; round < 3 && Refine(p, std::max(4 * s, kAgreeNs), &line); round++) s = Sigma(p, line);
  double sxx = 0;
  for (const Pair& q : p)
    if (std::fabs(line.Residual(q)) <= std::max(4 * s, kAgreeNs)) sxx += (q.x - line.at) * (q.x - line.at);
  const double u_rate = sxx > 0 ? s / std::sqrt(sxx) * std::sqrt(weight) : INFINITY;
  if (!(s < *sigma && std::fabs(line.rate) > 4 * u_rate && std::fabs(line.rate) * (f->last - f->first) > 3 * s))
    return false;
  *f = line;
  f->u_rate = u_rate;
  *sigma = s;
  return true;
}

}  // namespace

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
  if (DriftLine(p, all.weight, &f, &sigma)) f.drift = true;
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


}  // namespace tracemerge::clock_fit

namespace tracemerge {

// A host's clock against its reference's, by its fit's line (merger.h).
int64_t HostClock::OffsetAt(int64_t t) const {
  if (!drift) return offset_ns;
  return AddNs(offset_ns, clock_fit::Ns(rate_ppm * 1e-6 * static_cast<double>(SubNs(t, at_ns))));
}

int64_t HostClock::Worst() const {
  const int64_t a = OffsetAt(first_ns), b = OffsetAt(last_ns);
  return std::max(a < 0 ? SubNs(0, a) : a, b < 0 ? SubNs(0, b) : b);
}

}  // namespace tracemerge
