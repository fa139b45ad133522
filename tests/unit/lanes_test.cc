// The lanes stage alone (core/lanes.cc): slices of one thread that overlap go to lanes of their own.
#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "identity.h"
#include "layout.h"
#include "match.h"
#include "parse.h"
#include "stages.h"
#include "stage_util.h"

namespace tracemerge::test {
namespace {

TEST(Lanes, NestedAndFollowingShareALaneOverlapsMove) {
  // ts, dur: a parent, its child, a slice that starts inside the parent and
  // ends after it, one that starts where the parent ends, one overlapping
  // both lanes, one equal to the third.
  std::vector<LaneSlice> slices{{0, 100, 0}, {10, 20, 1}, {50, 100, 2}, {100, 10, 3}, {60, 100, 4}, {50, 100, 5}};
  std::vector<uint8_t> lanes;
  EXPECT_EQ(AssignLanes(slices, &lanes), 3u);
  EXPECT_EQ(lanes, (std::vector<uint8_t>{0, 0, 1, 0, 2, 1})) << "an equal slice nests";
  EXPECT_EQ(AssignLanes({}, &lanes), 1u);
  // Equal starts: the longest is the parent, whatever the input order.
  EXPECT_EQ(AssignLanes({{0, 5, 0}, {0, 10, 1}}, &lanes), 1u);
  EXPECT_EQ(lanes, (std::vector<uint8_t>{0, 0}));
}

// Slices that nest exactly but not once rounded go apart: A ends where B
// starts; Perfetto and JS read A's end past B's start (ts and dur rounded
// apart at epoch scale).

TEST(Lanes, TouchingExactlyButOverlappingAsReadTakeTwoLanes) {
  const int64_t a = 1712195495406752200, b = 1712195495406752600;
  std::vector<uint8_t> lanes;
  EXPECT_EQ(AssignLanes({{a, b - a, 0}, {b, 1000, 1}}, &lanes), 2u);
  EXPECT_EQ(AssignLanes({{a - 200, 1000, 0}, {a + 800, 1000, 1}}, &lanes), 1u) << "whole µs are read exactly";
}

TEST(Lanes, AtMost255LanesAndEverySliceKeepsOne) {
  std::vector<LaneSlice> slices;
  for (int k = 0; k < 400; k++) slices.push_back({k, 1000, static_cast<uint64_t>(k)});
  std::vector<uint8_t> lanes;
  bool capped = false;
  EXPECT_EQ(AssignLanes(slices, &lanes, &capped), 255u);
  EXPECT_TRUE(capped);
  EXPECT_EQ(lanes.size(), 400u);
  EXPECT_EQ(lanes[399], 254);
}

}  // namespace
}  // namespace tracemerge::test
