// The native merge's memory budget (--memory-mb; by default three quarters of
// the machine's memory, or of its cgroup's limit when that is lower), shared
// out as the merge's Options:
//   - a third for what waits to be written (the events and their output form;
//     beyond it, the output form goes to a temporary file as it is parsed);
//   - an eighth (at least 64 MB) for one file's inflated input, whose parse
//     takes about 2.6 times that: a file that inflates past it keeps its
//     first part, TOO_LARGE naming the budget;
//   - the threads' other inputs within another eighth: one source at a time
//     may be larger than an eighth / (threads + 1), the others wait for it.
//
//   ShareBudget(MemoryBudget(args), &options);   // after options.threads is set
#pragma once

#include <cstdint>
#include <optional>

#include "merger.h"

namespace tracemerge {

// The machine's memory in bytes: physical, or its cgroup's limit when lower.
uint64_t MachineMemory();
// The budget: the one given (--memory-mb), else 3/4 of MachineMemory().
uint64_t MemoryBudget(std::optional<uint64_t> given);
// This process's peak resident memory since it started (VmHWM), 0 if unknown.
uint64_t PeakResident();
// Sets memory_budget, max_inflated_bytes (and its why), big_input_bytes from the budget.
void ShareBudget(uint64_t budget, Options* o);

}  // namespace tracemerge
