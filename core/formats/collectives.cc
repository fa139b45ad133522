#include "formats/collectives.h"

#include <string_view>
#include <utility>

namespace tracemerge {

bool IsNcclKernel(std::string_view name) {
  return name.rfind("ncclDevKernel_", 0) == 0 || name.rfind("ncclKernel_", 0) == 0;
}

std::string_view SymmetricOp(std::string_view name) {
  // The operation's words: a kernel's after its prefix (up to the next '_' of
  // its template: "AllReduce_Sum_f32_RING_LL"), a host op's after "nccl:".
  std::string_view op = name;
  bool kernel = false;
  for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"})
    if (op.rfind(prefix, 0) == 0) op.remove_prefix(prefix.size()), kernel = true;
  if (!kernel && op.rfind("nccl:", 0) == 0) op.remove_prefix(5);
  if (kernel) op = op.substr(0, op.find('_'));
  if (op.size() > 64) return "";
  char lower[64];  // lower case (ASCII), without '_', ':' and a "_base"/"_into_tensor" tail
  size_t n = 0;
  for (char c : op)
    if (c != '_' && c != ':') lower[n++] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  std::string_view words(lower, n);
  for (std::string_view tail : {"base", "intotensor", "tensor", "coalesced"})
    if (words.size() > tail.size() && words.substr(words.size() - tail.size()) == tail)
      words.remove_suffix(tail.size());
  for (std::string_view sym : {"allreduce", "allgather", "reducescatter", "barrier"})
    if (words == sym) return sym;
  return "";
}

std::string_view XlaCollectiveOp(std::string_view name) {
  name = name.substr(name.rfind('/') + 1);  // (qualified by its program: "17/all-reduce.3")
  for (auto [prefix, op] : {std::pair{"all-reduce", "allreduce"}, {"all-gather", "allgather"},
                            {"reduce-scatter", "reducescatter"}}) {
    const std::string_view p(prefix);
    if (name.substr(0, p.size()) != p) continue;
    const std::string_view rest = name.substr(p.size());
    if (rest.empty() || rest[0] == '.' || rest.substr(0, 5) == "-done") return op;
  }
  return "";
}

}  // namespace tracemerge
