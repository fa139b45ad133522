// Lanes: X slices of one thread that overlap without nesting go to extra
// lanes, so that a viewer shows every one of them. A lane holds slices that
// nest or follow each other as written (exact ns), as Perfetto reads them and
// as a JS viewer's doubles hold them (viewer_time.h): three readings of one
// slice, each a half-open [start, end), as Perfetto's slice tracker takes them.
#include <algorithm>
#include <numeric>
#include <tuple>

#include "stages.h"
#include "viewer_time.h"

namespace tracemerge {
namespace {

// One slice as the three readers see it.
struct Read {
  int64_t s0, e0;  // exact ns
  int64_t s1, e1;  // Perfetto's ns: its ts plus its dur, each rounded on its own
  double s2, e2;   // JS µs: ts + dur in doubles
};

Read ReadSlice(const LaneSlice& sl) {
  Read r;
  r.s0 = sl.ts;
  r.e0 = sl.ts + sl.dur;
  r.s1 = PerfettoNs(sl.ts);
  r.e1 = r.s1 + PerfettoNs(sl.dur);
  r.s2 = JsMicros(sl.ts);
  r.e2 = r.s2 + JsMicros(sl.dur);
  return r;
}

// The open slices of one lane, in each reading: a stack of ends. A reading's
// starts never decrease in the order slices come (every reading is monotone),
// so each stack holds a chain of nested slices.
struct Lane {
  std::vector<int64_t> e0, e1;
  std::vector<double> e2;

  template <class T>
  static bool Fits(std::vector<T>& ends, T s, T e) {
    while (!ends.empty() && ends.back() <= s) ends.pop_back();  // ended: a sibling follows
    return ends.empty() || e <= ends.back();                     // nested (ending together counts)
  }
  // Whether r nests in or follows this lane's slices in every reading (the
  // slices that ended before it leave the stacks either way).
  bool Fits(const Read& r) {
    const bool f0 = Fits(e0, r.s0, r.e0), f1 = Fits(e1, r.s1, r.e1), f2 = Fits(e2, r.s2, r.e2);
    return f0 && f1 && f2;
  }
  void Push(const Read& r) {
    e0.push_back(r.e0);
    e1.push_back(r.e1);
    e2.push_back(r.e2);
  }
};

}  // namespace

size_t AssignLanes(const LaneSlice* slices, size_t n, std::vector<uint8_t>* lanes_out, bool* capped) {
  if (capped) *capped = false;
  lanes_out->assign(n, 0);
  // By start, longest first, then canonical place. Mostly in that order
  // already (sources are put in time order as they are parsed): then no
  // sorting at all, or only of slices that start together.
  auto before = [&](const LaneSlice& x, const LaneSlice& y) {
    return std::make_tuple(x.ts, -x.dur, x.canon) < std::make_tuple(y.ts, -y.dur, y.canon);
  };
  bool ordered = true, by_start = true;
  for (size_t k = 1; k < n && by_start; k++) {
    by_start = slices[k - 1].ts <= slices[k].ts;
    ordered = ordered && !before(slices[k], slices[k - 1]);
  }
  std::vector<uint32_t> order;
  if (!ordered) {
    order.resize(n);
    std::iota(order.begin(), order.end(), 0);
    auto before_at = [&](uint32_t a, uint32_t b) { return before(slices[a], slices[b]); };
    if (!by_start) {
      std::sort(order.begin(), order.end(), before_at);
    } else {
      for (auto it = order.begin(); it != order.end();) {
        auto next = std::find_if(it, order.end(), [&](uint32_t k) { return slices[k].ts != slices[*it].ts; });
        if (next - it > 1) std::sort(it, next, before_at);
        it = next;
      }
    }
  }
  std::vector<Lane> lanes;
  for (size_t at = 0; at < n; at++) {
    const size_t k = ordered ? at : order[at];
    const Read r = ReadSlice(slices[k]);
    size_t l = 0;
    for (;; l++) {
      if (l == lanes.size()) lanes.emplace_back();
      if (lanes[l].Fits(r)) {
        lanes[l].Push(r);
        break;
      }
      if (l == kMaxLanes - 1) {  // give up splitting further; viewers still get every slice
        if (capped) *capped = true;
        break;
      }
    }
    (*lanes_out)[k] = static_cast<uint8_t>(l);
  }
  return std::max<size_t>(lanes.size(), 1);
}

}  // namespace tracemerge
