// Who waits for whom (waits.h) on generated jobs whose truth the generator
// writes: a rank planted to arrive 2 ms late at every all-reduce of steps 3–5
// must be named for exactly those steps, with the time the others lost within
// 5% of the truth; a job without one must name none.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "simdjson.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

class Waiting : public GeneratorTest {
 protected:
  // The truth: per step, what all ranks lost waiting for the last to arrive at
  // each collective (µs), when that rank is `rank`.
  std::map<int64_t, double> LostFor(const std::string& job, int64_t rank) {
    simdjson::dom::parser p;
    simdjson::dom::element truth;
    std::map<int64_t, double> lost;
    if (p.load(job + ".truth.json").get(truth)) return ADD_FAILURE() << "no truth", lost;
    simdjson::dom::array collectives;
    if (truth["collectives"].get_array().get(collectives)) return ADD_FAILURE() << "no collectives", lost;
    for (simdjson::dom::element c : collectives) {
      int64_t step = 0;
      simdjson::dom::array list;
      if (c["step"].get_int64().get(step) || c["arrivals_us"].get_array().get(list)) continue;
      std::vector<double> arrivals;
      for (simdjson::dom::element a : list) {
        double v = 0;
        if (!a.get_double().get(v)) arrivals.push_back(v);
      }
      const double last = *std::max_element(arrivals.begin(), arrivals.end());
      if (arrivals[rank] != last) continue;
      for (double a : arrivals) lost[step] += last - a;
    }
    return lost;
  }
};

TEST_F(Waiting, APlantedStragglerIsNamedForItsStepsWithTheTimeLost) {
  for (int seed : {3, 17, 29}) {
    SCOPED_TRACE(seed);
    const int straggler = seed % 6;
    const std::string job = Generate("job" + std::to_string(seed),
                                     "--hosts 3 --ranks-per-host 2 --straggler " + std::to_string(straggler) +
                                         " --straggler-steps 3-5 --straggler-ms 2 --seed " + std::to_string(seed));
    const MergeResult r = MergeInputs(ReadTree(job), {});
    ASSERT_FALSE(r.report.fatal);
    const Waits& w = r.report.waits;
    EXPECT_EQ(w.from, "NCCL kernels");
    ASSERT_EQ(w.ranks.size(), 6u);
    ASSERT_EQ(w.steps.size(), 6u);
    const auto truth = LostFor(job, straggler);
    for (const StepWaits& st : w.steps) {
      const bool planted = st.step >= 3 && st.step <= 5;
      EXPECT_EQ(st.straggler, planted) << "step " << st.step;
      if (!planted) continue;
      ASSERT_GE(st.last, 0);
      EXPECT_EQ(w.ranks[st.last].label.substr(0, 7), "rank " + std::to_string(straggler) + " ") << w.ranks[st.last].label;
      EXPECT_EQ(st.last_count, st.collectives);
      EXPECT_NEAR(st.lost_ns / 1000.0, truth.at(st.step), 0.05 * truth.at(st.step)) << "step " << st.step;
      EXPECT_EQ(st.wait_ns[st.last], 0) << "the last waits for no one";
    }
    EXPECT_NE(r.report.Summary().find("step 3: rank " + std::to_string(straggler)), std::string::npos);
  }
}

// The waits come after --align clocks moved the hosts (the collectives named
// again on the moved times): two of three hosts 9 ms ahead — half a step —,
// moved back, still put every collective in its own step.
TEST_F(Waiting, AfterAlignClocksEachCollectiveIsInItsOwnStep) {
  const std::string job = Generate("aligned", "--hosts 3 --ranks-per-host 2 --offsets-us 0,9000,9000 --straggler 1 "
                                              "--straggler-steps 3-5 --straggler-ms 2 --seed 11");
  Options options;
  options.align = Align::kClocks;
  const MergeResult r = MergeInputs(ReadTree(job), options);
  ASSERT_FALSE(r.report.fatal);
  ASSERT_EQ(r.report.clock_hosts.size(), 3u);
  for (const HostClock& h : r.report.clock_hosts) EXPECT_NE(h.status, HostClock::Status::kUnchecked) << h.host;
  const Waits& w = r.report.waits;
  ASSERT_EQ(w.steps.size(), 6u);
  for (const StepWaits& st : w.steps) {
    EXPECT_EQ(st.collectives, 8u) << "step " << st.step;
    EXPECT_EQ(st.straggler, st.step >= 3 && st.step <= 5) << "step " << st.step;
  }
}

TEST_F(Waiting, AJobWithoutAStragglerNamesNone) {
  for (int seed = 40; seed < 45; seed++) {
    SCOPED_TRACE(seed);
    const std::string job = Generate("calm" + std::to_string(seed), "--hosts 3 --ranks-per-host 2 --steps 8 --seed " +
                                                                        std::to_string(seed));
    const MergeResult r = MergeInputs(ReadTree(job), {});
    ASSERT_FALSE(r.report.fatal);
    ASSERT_EQ(r.report.waits.steps.size(), 8u);
    for (const StepWaits& st : r.report.waits.steps) EXPECT_FALSE(st.straggler) << "step " << st.step;
    EXPECT_NE(r.report.Summary().find("no rank held the others back"), std::string::npos);
  }
}

// smdebug nodes by their Horovod ops (B to E, from the tensor ready to the shared end).
TEST_F(Waiting, HorovodOpsOfSmdebugNodesToo) {
  const std::string job = Generate("sm", "--format smdebug --hosts 4 --ranks-per-host 1 --straggler 2 --seed 5");
  const MergeResult r = MergeInputs(ReadTree(job), {});
  const Waits& w = r.report.waits;
  EXPECT_EQ(w.from, "Horovod ops");
  ASSERT_EQ(w.ranks.size(), 4u);
  size_t named = 0;
  for (const StepWaits& st : w.steps)
    if (st.straggler) {
      named++;
      EXPECT_EQ(w.ranks[st.last].label, "2-host-c");
    }
  EXPECT_EQ(named, 3u);
}

// Ranks whose host's clock could not be checked are marked: their waits stand, their arrivals do not.
TEST_F(Waiting, RanksOfAnUncheckedHostAreMarked) {
  const std::string job = Generate("u", "--hosts 2 --ranks-per-host 1 --collectives 2 --steps 1 --seed 6");
  const MergeResult r = MergeInputs(ReadTree(job), {});  // (2 collectives: too few to check a clock)
  ASSERT_EQ(r.report.waits.ranks.size(), 2u);
  EXPECT_TRUE(r.report.waits.ranks[0].clock_checked) << "the reference";
  EXPECT_FALSE(r.report.waits.ranks[1].clock_checked) << "host-b";
  EXPECT_GT(r.report.waits.ranks[0].wait_ns + r.report.waits.ranks[1].wait_ns, 0) << "their waits stand";
}

}  // namespace
}  // namespace tracemerge::test
