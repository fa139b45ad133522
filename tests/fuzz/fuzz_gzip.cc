// libFuzzer target: Inflater fed in chunks whose sizes come from the input.
//
// Input: [n][n chunk sizes][stream…]
//   n & 7      how many chunk-size bytes follow (0: the stream in one piece);
//              chunk sizes cycle, each (byte + 1) bytes
//   n & 8      tiny output limit (4096 bytes) instead of 16 MiB: TOO_LARGE paths
//   n & 16     also round-trip the stream's bytes through GzipWriter
// Checks: the limit holds, and the result (bytes and status code) does not
// depend on how the input was chunked.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gzip.h"

namespace {

using tracemerge::Diagnostic;
using tracemerge::Inflater;

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_gzip: %s\n", what);
  std::abort();
}

struct Result {
  tracemerge::ByteBuffer out;
  bool ok = false;
  Diagnostic problem;
};

Result Inflate(std::string_view stream, std::string_view sizes, uint64_t limit) {
  Result r;
  Inflater inf(limit);
  size_t k = 0;
  for (size_t i = 0; i < stream.size();) {
    size_t n = sizes.empty() ? stream.size() : static_cast<uint8_t>(sizes[k++ % sizes.size()]) + size_t{1};
    inf.Feed(stream.substr(i, n), r.out);
    i += n;
  }
  const tracemerge::Status finished = inf.Finish();
  r.ok = finished.ok();
  r.problem = finished.error();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  const size_t n = flags & 7;
  if (size < 1 + n) return 0;
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::string_view sizes = all.substr(1, n), stream = all.substr(1 + n);
  const uint64_t limit = (flags & 8) ? 4096 : uint64_t{1} << 24;

  Result chunked = Inflate(stream, sizes, limit);
  Check(chunked.out.size() <= limit, "inflated past the limit");
  Check(chunked.ok || chunked.problem.code != tracemerge::Code::kOk, "failed without a code");
  if (!sizes.empty()) {
    Result whole = Inflate(stream, {}, limit);
    Check(whole.out.view() == chunked.out.view(), "inflated bytes depend on chunk sizes");
    Check(whole.ok == chunked.ok && whole.problem.code == chunked.problem.code, "status depends on chunk sizes");
  }

  if (flags & 16) {
    std::string gz;
    tracemerge::GzipWriter w([&](std::string_view b) { gz.append(b); });
    w.Write(stream.substr(0, stream.size() / 2));
    w.Write(stream.substr(stream.size() / 2));
    w.Finish();
    Result back = Inflate(gz, sizes, uint64_t{1} << 24);
    Check(back.ok && back.out.view() == stream, "GzipWriter → Inflater round trip changed the bytes");
  }
  return 0;
}
