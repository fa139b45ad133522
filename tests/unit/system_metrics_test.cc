// The system metrics module (core/formats/system_metrics.cc): smdebug's JSON lines.
#include <gtest/gtest.h>

#include "formats/format.h"
#include "format_util.h"

namespace tracemerge {
namespace {

using test::IdentityOf;
using test::ParseFile;

TEST(SystemMetrics, NodeIdNamesTheHostEachLineACounter) {
  ParsedSource s = ParseFile("job/system/incremental/2020060500/1591160699.algo-1.json",
                         "{\"Type\":\"cpu\",\"Name\":\"cpu0\",\"Dimension\":\"CPUUtilization\",\"Value\":4.5,"
                         "\"NodeId\":\"algo-3\",\"Timestamp\":1591160699.5}\n{\"Name\":\"cpu0\",\"Dim");
  EXPECT_EQ(s.cls.format, FormatId::kSystemMetrics);
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].ph, 'C');
  EXPECT_EQ(s.events[0].ts, 1591160699500000000);
  const std::string_view tpl = s.arena.view().substr(s.events[0].offset, s.events[0].length);
  EXPECT_NE(tpl.find("\"name\":\"cpu0_CPUUtilization\""), std::string_view::npos) << tpl;
  EXPECT_NE(tpl.find("\"args\":{\"value\":4.5}"), std::string_view::npos) << tpl;
  EXPECT_EQ(s.warnings[0].code, Code::kNote) << "a broken last line is normal";
  EXPECT_EQ(FormatOf(s.cls.format).Clock(s, {}).kind, BaseKind::kUnixSeconds);
  const Identity id = IdentityOf(s);
  EXPECT_EQ(id.host, "algo-3") << "NodeId, not the file name";
  EXPECT_STREQ(id.host_from, "NodeId");
  EXPECT_EQ(id.run, "job");
  EXPECT_EQ(id.stream, "system algo-1");
}

}  // namespace
}  // namespace tracemerge
