// The overview (core/overview.cc): what the page draws of a scanned job — per source its
// events in bins over the job's span, its steps, and the samples its format plots (system
// metrics: each dimension's mean per bin).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "simdjson.h"
#include "test_util.h"

namespace tracemerge {
namespace {

std::string Sample(const char* dimension, double value, const char* ts) {
  return std::string("{\"Type\":\"cpu\",\"Name\":\"cpu0\",\"Dimension\":\"") + dimension + "\",\"Value\":" +
         std::to_string(value) + ",\"NodeId\":\"algo-1\",\"Timestamp\":" + ts + "}\n";
}

struct Lane {
  size_t source = 0;
  std::vector<uint64_t> density;
  std::map<std::string, std::vector<double>> counters;  // dimension → per bin (NaN: no sample)
};

// (simdjson without exceptions: each value got, a failure on any error)
simdjson::dom::array Array(simdjson::dom::element e, const char* key) {
  simdjson::dom::array a;
  EXPECT_EQ(e[key].get_array().get(a), simdjson::SUCCESS) << key;
  return a;
}
double Number(simdjson::dom::element e) {
  double d = 0;
  if (e.is_null()) return std::nan("");
  EXPECT_EQ(e.get_double().get(d), simdjson::SUCCESS);
  return d;
}

std::vector<Lane> Lanes(const std::string& overview, size_t* bins) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::vector<Lane> lanes;
  if (parser.parse(overview).get(doc)) return ADD_FAILURE() << "not JSON: " << overview, lanes;
  *bins = static_cast<size_t>(Number(doc["bins"].value_unsafe()));
  for (simdjson::dom::element lane : Array(doc, "lanes")) {
    Lane l;
    l.source = static_cast<size_t>(Number(lane["source"].value_unsafe()));
    for (simdjson::dom::element d : Array(lane, "density")) l.density.push_back(static_cast<uint64_t>(Number(d)));
    for (simdjson::dom::element c : Array(lane, "counters")) {
      std::string_view name;
      EXPECT_EQ(c["name"].get_string().get(name), simdjson::SUCCESS);
      std::vector<double>& values = l.counters[std::string(name)];
      for (simdjson::dom::element v : Array(c, "values")) values.push_back(Number(v));
    }
    lanes.push_back(std::move(l));
  }
  return lanes;
}

TEST(Overview, SystemMetricsPlotEachDimensionsMeanPerBinOtherSourcesNone) {
  // Samples at 0 s (10 and 30: one bin), 50 s (70) and 100 s (50) of the job's span; a
  // disk dimension once; a trace event over the same span beside them.
  const std::string metrics = Sample("CPUUtilization", 10, "1591160600.0") + Sample("CPUUtilization", 30, "1591160600.0") +
                              Sample("CPUUtilization", 70, "1591160650.0") + Sample("CPUUtilization", 50, "1591160700.0") +
                              Sample("DiskRead", 4, "1591160650.0");
  const std::string trace =
      R"({"traceEvents":[{"name":"step","ph":"X","ts":1591160600000000,"dur":100000000,"pid":1,"tid":1}]})";
  Options o;
  o.scan_only = true;
  const test::MergeResult r = test::MergeInputs(
      {{"job/system/incremental/2020060305/1591160600.algo-1.json", metrics, true}, {"job/other/t.json", trace, true}}, o);
  ASSERT_FALSE(r.report.fatal) << r.report.fatal->ToString();
  size_t bins = 0;
  const std::vector<Lane> lanes = Lanes(r.report.overview_json, &bins);
  ASSERT_EQ(lanes.size(), 2u) << r.report.overview_json;
  ASSERT_EQ(bins, 256u);
  const bool first_is_trace = r.report.sources.at(lanes[0].source).path == "job/other/t.json";
  const Lane& m = lanes[first_is_trace ? 1 : 0];
  const Lane& t = lanes[first_is_trace ? 0 : 1];
  ASSERT_EQ(r.report.sources.at(m.source).kind, Kind::kSystem);
  ASSERT_EQ(m.counters.size(), 2u) << r.report.overview_json;
  const std::vector<double>& cpu = m.counters.at("CPUUtilization");
  ASSERT_EQ(cpu.size(), bins);
  EXPECT_DOUBLE_EQ(cpu[0], 20) << "the mean of the bin's samples";
  EXPECT_DOUBLE_EQ(cpu[128], 70);
  EXPECT_DOUBLE_EQ(cpu[255], 50);
  size_t empty = 0;
  for (double v : cpu) empty += std::isnan(v);
  EXPECT_EQ(empty, bins - 3) << "no sample, no value (not a zero)";
  EXPECT_DOUBLE_EQ(m.counters.at("DiskRead")[128], 4);
  EXPECT_EQ(m.density[0], 2u);
  EXPECT_TRUE(t.counters.empty()) << "a trace's events are no samples";
  EXPECT_EQ(t.density[0], 1u);
}

}  // namespace
}  // namespace tracemerge
