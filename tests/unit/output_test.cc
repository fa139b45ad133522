// The output stage alone (core/output.cc): valid JSON, tracks first, ids unique, the report.
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

TEST(Output, ValidJsonWithTracksFirstIdsUniqueAndTheReport) {
  Job job = MakeJob({{"a.json", Trace(R"({"ph":"s","id":1,"ts":1594662618000001,"pid":1,"tid":1,"name":"f"})")},
                     {"b.json", Trace(R"({"ph":"s","id":1,"ts":1594662618000002,"pid":1,"tid":1,"name":"f"})")}});
  ApplyClocks(job, {});
  const TrackPlan plan = AssignTracks(job, Group::kSource);
  const OutputOrder order = OrderOutput(job, plan);
  Report report;
  std::string out;
  WriteOutput(job, plan, order, Options(), &report, [&](std::string_view b) { out.append(b); });
  std::string error;
  std::vector<OutEvent> events = ParseOutput(out, &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(events.size(), 6u);  // 2 process names, 2 thread names, 2 flows
  EXPECT_EQ(events[0].name, "process_name");
  EXPECT_EQ(events[3].name, "thread_name");
  EXPECT_NE(out.find(R"("id":1,)"), std::string::npos);
  EXPECT_NE(out.find(R"("id":2,)"), std::string::npos) << "b's id 1 is renumbered after a's";
  EXPECT_EQ(report.events_written, 2u);
  EXPECT_EQ(job.sources[1].report.events_kept, 1u);
  EXPECT_NE(out.find("\"metadata\":{\"tracemerge\":{\"version\""), std::string::npos);
}

}  // namespace
}  // namespace tracemerge::test
