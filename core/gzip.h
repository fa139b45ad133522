// Streaming gzip/zlib inflate and gzip deflate (zlib), fed in chunks of any size.
//
//   Inflater inf(/*max_output=*/1 << 30);
//   inf.Feed(chunk1, out); inf.Feed(chunk2, out);   // out grows with inflated bytes
//   if (Status s = inf.Finish(); !s.ok()) ...        // s.error(): BAD_GZIP / TRUNCATED
//
//   GzipWriter gz(sink); gz.Write("{...}"); gz.Finish();   // sink gets .gz bytes
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "buffer.h"
#include "status.h"

namespace tracemerge {

using Sink = std::function<void(std::string_view)>;

bool LooksGzipped(std::string_view head);  // 1f 8b magic

class Inflater {
 public:
  // why: said after the limit in TOO_LARGE ("a quarter of the memory budget…"), or "".
  explicit Inflater(uint64_t max_output, std::string why = "");
  ~Inflater();
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // Appends what `in` inflates to. After the first error, further input is
  // ignored; `out` keeps everything inflated before the damage.
  void Feed(std::string_view in, ByteBuffer& out);
  // No limit from now on: its caller keeps what it holds under one of its own
  // (a source read in pieces, stream.h).
  void Unlimit();
  // Done when the stream ended cleanly; else what went wrong (code, offset = the
  // compressed byte offset, message).
  Status Finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

class GzipWriter {
 public:
  explicit GzipWriter(Sink sink, int level = 6);
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;
  void Write(std::string_view data);
  void Finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace tracemerge
