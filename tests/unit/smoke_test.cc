#include <gtest/gtest.h>

#include "test_util.h"

namespace tracemerge::test {
TEST(Smoke, MergesOneTinyTrace) {
  auto r = MergeInputs({{"a.json", R"([{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}])"}}, Options{});
  EXPECT_FALSE(r.report.fatal);
  std::string err;
  auto ev = ParseOutput(r.output, &err);
  EXPECT_EQ(err, "");
  EXPECT_EQ(ev.size(), 3u);
}
}  // namespace tracemerge::test
