// Collectives by name, for the formats that record them (kineto.cc,
// smdebug.cc, tf_profiler.cc, xplane.cc): which ones every rank leaves at the same instant.
//
// A symmetric collective (all-reduce, all-gather, reduce-scatter, barrier)
// ends on every rank when the last one has contributed, so its ends line up
// across ranks whatever their arrival; a broadcast's or a reduce's root
// finishes early (1.3–3.3 ms in a real 4-rank ROCm trace), an all-to-all's
// ranks apart. Only symmetric ones become anchors (source.h).
//
//   SymmetricOp("ncclDevKernel_AllReduce_Sum_f32_RING_LL(…)") → "allreduce"
//   SymmetricOp("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(…)") → ""   (all-to-all)
//   SymmetricOp("nccl:_all_gather_base") → "allgather"      SymmetricOp("nccl:broadcast") → ""
//   SymmetricOp("ALLREDUCE") → "allreduce" (Horovod)        SymmetricOp("record_param_comms") → ""
#pragma once

#include <string_view>

namespace tracemerge {

// The collective an operation's name says, when it is symmetric: "allreduce",
// "allgather", "reducescatter" or "barrier"; "" otherwise. Case, '_' and
// leading '_' are ignored ("_reduce_scatter_base", "ReduceScatter", "REDUCESCATTER").
std::string_view SymmetricOp(std::string_view name);

// An NCCL/RCCL kernel on a GPU stream: "ncclDevKernel_…", "ncclKernel_…".
bool IsNcclKernel(std::string_view name);

// An XLA collective op (xplane.cc, on TPU planes): "all-reduce.3", "all-gather-done.2" (an
// async pair's end), "17/all-reduce.3" (qualified by its program) → its collective when
// symmetric; else "" (an async pair's start, "all-reduce-start.1", too).
std::string_view XlaCollectiveOp(std::string_view name);

}  // namespace tracemerge
