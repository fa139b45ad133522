#include "budget.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace tracemerge {
namespace {

// A cgroup's memory limit ("max", or a v1 limit of ~2^63, says none).
std::optional<uint64_t> CgroupLimit(const char* path) {
  std::ifstream f(path);
  std::string s;
  if (!(f >> s) || s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19)
    return std::nullopt;
  return std::stoull(s);
}

}  // namespace

uint64_t MachineMemory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  uint64_t memory = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : uint64_t{4} << 30;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"})
    if (auto limit = CgroupLimit(path); limit && *limit > 0) memory = std::min(memory, *limit);
  return memory;
}

uint64_t PeakResident() {
  std::ifstream f("/proc/self/status");
  std::string key;
  uint64_t kb = 0;
  while (f >> key) {
    if (key == "VmHWM:" && f >> kb) return kb << 10;
    f.ignore(1 << 12, '\n');
  }
  return 0;
}

uint64_t MemoryBudget(std::optional<uint64_t> given) { return given ? *given : MachineMemory() / 4 * 3; }

void ShareBudget(uint64_t budget, Options* o) {
  o->memory_budget = budget / 3;
  // A file's parse holds its input, its events' output form (about as long) and their index
  // (32 bytes an event: up to 0.6× the input for small events): ~2.6× the input at its peak.
  const uint64_t input = std::max(budget / 8, uint64_t{64} << 20);
  if (input < o->max_inflated_bytes) {
    o->max_inflated_bytes = input;
    o->max_inflated_why = " (an eighth of the memory budget of " + std::to_string(budget >> 20) + " MB; --memory-mb)";
  }
  o->big_input_bytes = input / (std::max(o->threads, 1u) + 1);
}

}  // namespace tracemerge
