// Lanes: X slices of one thread that overlap without nesting go to extra
// lanes, so that a viewer shows every one of them.
#include <algorithm>
#include <numeric>
#include <tuple>

#include "stages.h"

namespace tracemerge {

size_t AssignLanes(const std::vector<LaneSlice>& slices, std::vector<uint8_t>* lanes_out) {
  const size_t n = slices.size();
  lanes_out->assign(n, 0);
  // By start, longest first, then canonical place. Mostly in time order
  // already (sources are put in order as they are parsed): then only slices
  // that start together need sorting.
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto before = [&](uint32_t a, uint32_t b) {
    const LaneSlice &x = slices[a], &y = slices[b];
    return std::make_tuple(x.ts, -x.dur, x.canon) < std::make_tuple(y.ts, -y.dur, y.canon);
  };
  const bool by_start =
      std::is_sorted(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return slices[a].ts < slices[b].ts; });
  if (!by_start) {
    std::sort(order.begin(), order.end(), before);
  } else {
    for (auto it = order.begin(); it != order.end();) {
      auto next = std::find_if(it, order.end(), [&](uint32_t k) { return slices[k].ts != slices[*it].ts; });
      if (next - it > 1) std::sort(it, next, before);
      it = next;
    }
  }
  std::vector<std::vector<int64_t>> lanes;  // per lane: stack of open slice ends
  for (uint32_t k : order) {
    const LaneSlice& sl = slices[k];
    const int64_t end = sl.ts + sl.dur;
    size_t l = 0;
    for (;; l++) {
      if (l == lanes.size()) lanes.emplace_back();
      auto& st = lanes[l];
      while (!st.empty() && st.back() <= sl.ts) st.pop_back();
      if (st.empty() || end <= st.back()) {
        st.push_back(end);
        break;
      }
      if (l == 254) break;  // give up splitting further; viewers still get every slice
    }
    (*lanes_out)[k] = static_cast<uint8_t>(l);
  }
  return std::max<size_t>(lanes.size(), 1);
}

}  // namespace tracemerge
