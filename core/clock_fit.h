// The clock check's arithmetic (clock_check.cc): a robust line through the
// matched ends of one host against its run's reference — an offset, and over a
// long span a rate — with its uncertainty, or why the ends tell none.
//   std::vector<Pair> p = {{x_ref_ns, y_diff_ns, collective}, …};
//   Fit f = FitClock(p, median_gap_ns);   // f.ok ? f.offset, f.u_offset, f.rate … : f.reason
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tracemerge::clock_fit {

// ns as an int64 (saturating, as every time here: inputs can hold any number; NaN → 0).
int64_t Ns(double v);
// ns as µs text, the way the report writes them.
std::string Plain(double ns);
// How many standard errors an offset must stand from 0 to be off beyond chance (3σ), its
// spread read off n independent observations (Student's t).
double ThreeSigmaT(double n);
// The median of v (reordered); the mean of the middle two.
double Median(std::vector<double>& v);

// Matched ends of one host against the hosts already estimated: x the
// collective's end on the reference's clock, y this host's end minus it.
struct Pair {
  double x, y;
  uint32_t cid;  // the collective
};

// One host's fit, or (ok false) why its collectives do not support one: an answer the
// clock check reports per host ("not checked: …"), not a failure, so no Result (status.h).
struct Fit {
  bool ok = false;
  std::string reason;
  double offset = 0, rate = 0;  // y = offset + rate × (x − at)
  double at = 0, sigma = 0, u_offset = 0, u_rate = 0;
  bool drift = false;
  uint32_t inliers = 0, matched = 0;
  double independent = 0;  // the agreeing ends as independent observations (inliers / their grouping's weight)
  double first = 0, last = 0;

  double Residual(const Pair& q) const { return q.y - (offset + rate * (q.x - at)); }
};

// An offset (and, over a long span, a rate) from the matched ends — or why
// they do not tell one. gap: the median spacing of the collectives' ends.
Fit FitClock(std::vector<Pair> p, double gap);

}  // namespace tracemerge::clock_fit
