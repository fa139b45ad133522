// The output order: a lazy k-way merge of per-source runs must equal a stable
// sort by time of all events, ties going to the earlier run, then file order.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "stages.h"
#include "radix_sort.h"

namespace tracemerge {
namespace {

// The radix sort is a stable sort by key: for small and large inputs, narrow
// and full-width key ranges (int64 extremes), many ties.
TEST(RadixSortByKey, EqualsStableSort) {
  std::mt19937_64 rng(5);
  for (size_t n : {0, 1, 7, 511, 512, 3000, 100000}) {
    for (int range : {0, 1, 3, 40, 64}) {
      std::vector<std::pair<int64_t, uint32_t>> v(n);
      for (uint32_t i = 0; i < n; i++) {
        uint64_t x = range == 64 ? rng() : range == 0 ? 0 : rng() % (uint64_t{1} << range);
        if (range == 64 && rng() % 8 == 0) x = rng() % 2 ? uint64_t{1} << 63 : INT64_MAX;  // the extremes
        v[i] = {static_cast<int64_t>(x) - (range == 40 ? int64_t{1} << 39 : 0), i};
      }
      auto expected = v;
      std::stable_sort(expected.begin(), expected.end(), [](auto& a, auto& b) { return a.first < b.first; });
      RadixSortByKey(v);
      EXPECT_EQ(v, expected) << "n=" << n << " range=" << range;
    }
  }
}

// A source's events stay where they are pushed; its last block, cut to fit
// once parsed, grows again when more come.
TEST(BlockVector, ShrinkToFitKeepsEveryElementAndGrowsAgain) {
  using V = BlockVector<uint32_t>;
  for (size_t n : {size_t{0}, size_t{5}, V::kBlock - 1, V::kBlock, 2 * V::kBlock + 3}) {
    V v;
    for (uint32_t k = 0; k < n; k++) v.push_back(k);
    v.ShrinkToFit();
    ASSERT_EQ(v.size(), n);
    for (uint32_t k = 0; k < n; k++) ASSERT_EQ(v[k], k) << n;
    for (uint32_t k = static_cast<uint32_t>(n); k < n + V::kBlock + 7; k++) v.push_back(k);
    for (uint32_t k = 0; k < v.size(); k++) ASSERT_EQ(v[k], k) << n;
  }
}

TEST(TimeOrder, EqualsAStableSortOfAllRunsWhateverTheBatchSizeAndSlices) {
  std::mt19937 rng(3);
  for (int round = 0; round < 50; round++) {
    std::vector<std::vector<uint32_t>> runs(1 + rng() % 12);
    std::vector<BlockVector<Event>> events(runs.size());  // run r: source r's events
    std::vector<bool> ranged(runs.size());                // added as a range (AddRange), not a list
    std::vector<std::tuple<int64_t, size_t, size_t, uint32_t>> expected;  // (ts, run, position, event)
    for (size_t r = 0; r < runs.size(); r++) {
      const size_t n = rng() % 200;
      const int kind = static_cast<int>(rng() % 3);  // 0 out of order, 1 in order, 2 in order and kept in one stretch
      const size_t lo = n ? rng() % n : 0, hi = lo + (n ? rng() % (n - lo + 1) : 0);
      ranged[r] = kind == 2;
      for (size_t k = 0; k < n; k++) {
        Event e;
        e.ts = kind ? static_cast<int64_t>(k / 3) : static_cast<int64_t>(rng() % 50);  // many ties
        if (kind == 2 ? k >= lo && k < hi : rng() % 4 != 0)  // (not every event is kept)
          runs[r].push_back(static_cast<uint32_t>(events[r].size()));
        events[r].push_back(e);
      }
    }
    TimeOrder order;
    for (size_t r = 0; r < runs.size(); r++) {
      // The run's own order is time, then file order (its indices ascend).
      std::vector<uint32_t> run = runs[r];
      const BlockVector<Event>& ev = events[r];
      std::stable_sort(run.begin(), run.end(), [&](uint32_t a, uint32_t b) { return ev[a].ts < ev[b].ts; });
      for (size_t k = 0; k < run.size(); k++) expected.emplace_back(ev[run[k]].ts, r, k, run[k]);
      if (ranged[r]) {
        order.AddRange(ev, runs[r].empty() ? 0 : runs[r][0], static_cast<uint32_t>(runs[r].size()));
      } else {
        TimeOrder::SortRun(ev, runs[r]);
        order.AddRun(ev, runs[r]);
      }
    }
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(order.size(), expected.size());
    // Whole, or cut into slices (read in any order: each is a cursor of its own).
    for (size_t pieces : {size_t{1}, size_t{2}, size_t{7}, 1 + rng() % 300}) {
      std::vector<TimeOrder::Cursor> slices = order.Slices(pieces);
      ASSERT_LE(slices.size(), std::max<size_t>(pieces, 1));
      if (pieces == 1) ASSERT_EQ(slices.size(), 1u);
      std::vector<std::vector<EventRef>> parts(slices.size());
      std::vector<EventRef> batch(1 + rng() % 64);
      for (size_t k = slices.size(); k-- > 0;) {
        while (size_t n = slices[k].Next(batch.data(), batch.size()))
          parts[k].insert(parts[k].end(), batch.begin(), batch.begin() + n);
        ASSERT_EQ(parts[k].size(), slices[k].size());
        if (expected.size() > 0) ASSERT_FALSE(parts[k].empty()) << "slice " << k << " of " << slices.size();
      }
      std::vector<EventRef> got;
      for (auto& part : parts) got.insert(got.end(), part.begin(), part.end());
      ASSERT_EQ(got.size(), expected.size());
      for (size_t i = 0; i < got.size(); i++) {
        ASSERT_EQ(got[i].source, std::get<1>(expected[i])) << "round " << round << " pieces " << pieces << " at " << i;
        ASSERT_EQ(got[i].index, std::get<3>(expected[i])) << "round " << round << " pieces " << pieces << " at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace tracemerge
