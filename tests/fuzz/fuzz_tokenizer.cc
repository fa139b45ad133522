// libFuzzer target: ScanTrace and ScanLines over arbitrary bytes (the input is
// the file, no header). Besides the sanitizers, checks the tokenizer's
// contract: spans lie inside the data, in order, without overlap; events start
// with '{'; lines hold no '\n' and start with a non-blank byte.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "tokenizer.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_tokenizer: contract broken: %s\n", what);
  std::abort();
}

void ScanOnce(std::string_view d, int max_depth) {
  tracemerge::ScanLimits limits;
  limits.max_depth = max_depth;
  tracemerge::TopLevel top;
  std::vector<tracemerge::Diagnostic> diags;
  uint64_t next = 0;
  bool ok = tracemerge::ScanTrace(
      d, limits, &top,
      [&](tracemerge::Span sp) {
        Check(sp.offset >= next && sp.length >= 2 && sp.offset + sp.length <= d.size(), "event span out of order or range");
        Check(d[sp.offset] == '{', "event span does not start with '{'");
        next = sp.offset + sp.length;
      },
      &diags);
  Check(ok || !diags.empty(), "rejected without a diagnostic");
  Check(!ok || top.has_events, "accepted without an event array");
  for (const auto& diag : diags) Check(diag.offset <= d.size(), "diagnostic offset past the end");
  if (!top.base_time_ns.empty())
    Check(top.base_time_ns.data() >= d.data() && top.base_time_ns.data() + top.base_time_ns.size() <= d.data() + d.size(),
          "baseTimeNanoseconds token outside the data");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view d(reinterpret_cast<const char*>(data), size);
  ScanOnce(d, 256);
  ScanOnce(d, 3);  // tiny limit: TOO_DEEP paths

  uint64_t next = 0;
  tracemerge::ScanLines(d, [&](tracemerge::Span sp) {
    Check(sp.offset >= next && sp.length > 0 && sp.offset + sp.length <= d.size(), "line span out of order or range");
    std::string_view line = d.substr(sp.offset, sp.length);
    Check(line.find('\n') == std::string_view::npos, "line span holds a newline");
    Check(line[0] != ' ' && line[0] != '\t' && line[0] != '\r', "line span starts with a blank");
    next = sp.offset + sp.length;
  });
  tracemerge::LooksLikeJson(d);
  return 0;
}
