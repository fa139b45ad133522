// What the format modules share (core/formats/format.cc, collectives.h): the formats asked
// in order, and which collectives are symmetric. Each module's own tests: tests/unit/<format>_test.cc.
#include <gtest/gtest.h>

#include "formats/collectives.h"
#include "formats/format.h"
#include "format_util.h"
#include "kinds.h"
#include "test_util.h"

namespace tracemerge {
namespace {

using test::IdentityOf;
using test::ParseFile;

// ---- the formats asked in order (kinds.h Classify) ----------------------------------------

TEST(Classify, EachFileByItsFormatByNameAndContent) {
  auto c = Classify("job/framework/pevents/2020071317/1594662624718694_905-b88ab1bb8259_pythontimeline.json", "[\n{");
  EXPECT_EQ(c.kind, Kind::kPythonTimeline);
  EXPECT_EQ(c.format, FormatId::kSmdebug);
  EXPECT_EQ(c.node, "905-b88ab1bb8259");
  EXPECT_EQ(Classify("x/1590461139923994_0001_model_timeline.json", "[").kind, Kind::kModelTimeline);
  EXPECT_EQ(Classify("r/rank-0.pt.trace.json.gz", "{\"schemaVersion\":1").format, FormatId::kKineto);
  EXPECT_EQ(Classify("r/rank-0.pt.trace.json.gz", "{\"schemaVersion\":1").kind, Kind::kOther);
  EXPECT_EQ(Classify("r/x.json", "{\"traceEvents\":[").format, FormatId::kChrome);
  EXPECT_EQ(Classify("j/system/incremental/1/1591160699.algo-1.json",
                     "{\"Name\":\"cpu0\",\"Dimension\":\"CPUUtilization\",\"Value\":4,\"Timestamp\":1}\n").format,
            FormatId::kSystemMetrics);
}

TEST(Classify, NameAloneIsNotEnoughAndNonTracesAreSkippedWithAReason) {
  EXPECT_EQ(Classify("a/1_n_pythontimeline.json", "PK\x03\x04").kind, Kind::kSkipped);
  EXPECT_EQ(Classify("a/1_n_pythontimeline.json", "").kind, Kind::kSkipped);
  auto c = Classify("j/plugins/profile/d/host.kernel_stats.pb", "\x08\x01");
  EXPECT_EQ(c.kind, Kind::kSkipped);
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(Classify("j/cProfile/x/python_stats", "\x80").kind, Kind::kSkipped);
  c = Classify("notes.txt", "hello");
  EXPECT_EQ(c.kind, Kind::kSkipped);
  EXPECT_FALSE(c.quiet);
  EXPECT_EQ(KindFromFilterName("pythontimeline.json"), Kind::kPythonTimeline);
  EXPECT_EQ(KindFromFilterName("trace.json.gz"), Kind::kTfTrace);
  EXPECT_EQ(KindFromFilterName("other"), Kind::kOther);
  EXPECT_FALSE(KindFromFilterName("nope"));
}

TEST(Classify, RawGzippedHead) {
  std::string gz = test::Gzip(R"({"traceEvents":[)" + std::string(100000, ' '));
  auto c = ClassifyRaw("r/rank0.json.gz", gz.substr(0, 200));
  EXPECT_EQ(c.kind, Kind::kOther);
  EXPECT_EQ(c.node, "rank0");
  EXPECT_EQ(ClassifyRaw("x.json.gz", std::string("\x1f\x8bgarbage", 9)).kind, Kind::kSkipped);
}

// ---- collectives (shared by the modules) ----------------------------------------------------

TEST(Collectives, OnlySymmetricOnesWhateverTheirSpelling) {
  EXPECT_EQ(SymmetricOp("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)J"), "allreduce");
  EXPECT_EQ(SymmetricOp("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*)"), "allgather");
  EXPECT_EQ(SymmetricOp("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL"), "reducescatter");
  EXPECT_EQ(SymmetricOp("nccl:_all_gather_base"), "allgather");
  EXPECT_EQ(SymmetricOp("nccl:reduce_scatter_tensor"), "reducescatter");
  EXPECT_EQ(SymmetricOp("nccl::AllReduce"), "allreduce");
  EXPECT_EQ(SymmetricOp("barrier"), "barrier");
  EXPECT_EQ(SymmetricOp("ALLREDUCE"), "allreduce");
  EXPECT_EQ(SymmetricOp("all_gather_into_tensor"), "allgather");
  // A broadcast's or a reduce's root finishes early; an all-to-all's ranks apart.
  for (const char* no : {"ncclDevKernel_Broadcast_RING_LL", "nccl:broadcast", "BROADCAST", "ncclKernel_Reduce_RING_LL",
                         "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)", "nccl:all_to_all", "ALLTOALL",
                         "record_param_comms", "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)"})
    EXPECT_EQ(SymmetricOp(no), "") << no;
  EXPECT_TRUE(IsNcclKernel("ncclDevKernel_Generic_4(x)"));
  EXPECT_FALSE(IsNcclKernel("nccl:all_reduce"));
}

}  // namespace
}  // namespace tracemerge
