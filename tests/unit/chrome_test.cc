// The Chrome module (core/formats/chrome.cc): any other trace-event JSON.
#include <gtest/gtest.h>

#include "formats/format.h"
#include "format_util.h"

namespace tracemerge {
namespace {

using test::IdentityOf;
using test::ParseFile;

TEST(Chrome, AnyTraceItsClockOnlyWhenItsTimesAreUnixMicroseconds) {
  ParsedSource rel = ParseFile("viz/a.json", R"J({"traceEvents":[{"ph":"X","name":"f","ts":6556500799.2,"dur":1,"pid":1,"tid":1}]})J");
  EXPECT_EQ(rel.cls.format, FormatId::kChrome);
  EXPECT_EQ(FormatOf(rel.cls.format).Clock(rel, {}).kind, BaseKind::kNone);
  const Identity id = IdentityOf(rel);
  EXPECT_EQ(id.host, "") << "nothing says its host";
  EXPECT_EQ(id.run, "viz");
  EXPECT_EQ(id.label, "a · trace");
  EXPECT_EQ(IdentityOf(ParseFile("viz/a.json", "[]", false)).run, "") << "given by itself: no folder dropped";
  ParsedSource abs = ParseFile("b.json", R"J([{"ph":"i","ts":1594662618874598},{"ph":"M","name":"x","pid":1}])J");
  EXPECT_EQ(FormatOf(abs.cls.format).Clock(abs, {}).kind, BaseKind::kUnixMicros);
}

TEST(Chrome, APyTorchTraceThatDoesNotSayItAtItsStartBecomesKinetos) {
  ParsedSource s = ParseFile("x/backward_thread.json", R"J([{"ph":"X","name":"ProfilerStep#2","ts":1,"dur":3,"pid":1,"tid":1}])J");
  EXPECT_EQ(s.cls.format, FormatId::kKineto);
  EXPECT_EQ(s.steps, (Marks{{2, 0}}));
  EXPECT_EQ(ParseFile("x/plain.json", R"J([{"ph":"X","name":"f","ts":1,"dur":3,"pid":1,"tid":1}])J").cls.format, FormatId::kChrome);
  EXPECT_TRUE(Classify("x/1_merged_timeline.json", "{").earlier_output);
}

}  // namespace
}  // namespace tracemerge
