// The join stage alone (core/merger.cc JoinSources): a merge's sources in path order, then arrival.
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

TEST(Join, SourcesInPathOrderThenArrival) {
  Job job = MakeJob({{"b.json", Trace("")}, {"a.json", Trace("")}, {"b.json", Trace(R"({"ph":"i","ts":1})")}});
  ASSERT_EQ(job.sources.size(), 3u);
  EXPECT_EQ(job.sources[0].path, "a.json");
  EXPECT_EQ(job.sources[1].arrival, 0u);
  EXPECT_EQ(job.sources[2].arrival, 2u);
}

}  // namespace
}  // namespace tracemerge::test
