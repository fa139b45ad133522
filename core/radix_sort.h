// Sorting (time, index) pairs, stably: ties keep their order, which for events
// is file order. An LSD radix sort, 11 bits a pass over the keys' range only —
// a source's timestamps span ~40 bits, so four linear passes, several times
// faster than std::sort for the hundreds of thousands of events of a file.
//
//   std::vector<std::pair<int64_t, uint32_t>> v = {{5, 0}, {-2, 1}, {5, 2}, {3, 3}};
//   RadixSortByKey(v);  // {-2,1} {3,3} {5,0} {5,2}
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tracemerge {

template <class V>
void RadixSortByKey(std::vector<std::pair<int64_t, V>>& items) {
  using Item = std::pair<int64_t, V>;
  if (items.size() < 512) {
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.first < b.first; });
    return;
  }
  int64_t lo = items[0].first, hi = items[0].first;
  for (const Item& it : items) {
    lo = std::min(lo, it.first);
    hi = std::max(hi, it.first);
  }
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  constexpr int kBits = 11;
  constexpr size_t kBuckets = size_t{1} << kBits;
  std::vector<Item> other(items.size());
  std::vector<size_t> at(kBuckets);
  auto digit = [&](const Item& it, int shift) {
    return static_cast<size_t>((static_cast<uint64_t>(it.first) - static_cast<uint64_t>(lo)) >> shift) & (kBuckets - 1);
  };
  for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += kBits) {
    std::fill(at.begin(), at.end(), 0);
    for (const Item& it : items) at[digit(it, shift)]++;
    size_t sum = 0;
    for (size_t& a : at) sum += std::exchange(a, sum);  // counts → first slot of each bucket
    for (const Item& it : items) other[at[digit(it, shift)]++] = it;
    items.swap(other);
  }
}

}  // namespace tracemerge
