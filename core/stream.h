// Bytes in: one source as it streams in, in chunks of any size. The first two
// bytes decide gzip or not; gzip is inflated as it comes (or kept compressed
// for the thread that will parse it); a plain file over the size limit keeps
// its first part. End() hands over the bytes; the stream is gone after it.
//
//   SourceStream s("rank-0.json.gz", 0, options, spare_buffer, hint);
//   s.Append(chunk1); s.Append(chunk2);
//   SourceBytes in = std::move(s).End();  in.Inflate();  → in.data: the inflated bytes + padding
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "buffer.h"
#include "gzip.h"
#include "status.h"

namespace tracemerge {

constexpr size_t kPad = 64;  // readable slack after every input buffer (simdjson's SIMDJSON_PADDING)

// One source's bytes, read whole; what the parse stage takes.
struct SourceBytes {
  std::string path;
  uint32_t arrival = 0;
  ByteBuffer data;           // the (inflated) bytes, kPad of padding after them once Inflate() ran
  uint64_t size = 0;         // of data, without the padding
  uint64_t bytes_given = 0;  // as they came (compressed, if gzipped)
  bool in_folder = false;    // found in a folder walk, not named by itself (Merger::BeginSource)
  std::vector<Diagnostic> warnings;  // TOO_LARGE, BAD_GZIP, TRUNCATED (of the compressed stream)

  // Inflates what waits compressed (on whichever thread parses the source),
  // then pads data. Once only.
  void Inflate();

 private:
  friend class SourceStream;
  std::string compressed_;  // gzip bytes still to inflate
  std::unique_ptr<Inflater> inflater_;
  uint64_t max_bytes_ = 0;
};

class SourceStream {
 public:
  // buffer: a spare buffer for the bytes (kept when its size suits the hint);
  // size_hint: the expected (inflated) size, 0 if unknown. inflate_later:
  // keep gzip bytes compressed until SourceBytes::Inflate().
  SourceStream(std::string path, uint32_t arrival, uint64_t max_bytes, bool inflate_later, ByteBuffer buffer,
               uint64_t size_hint);
  void Append(std::string_view bytes);
  // Append() without the copy: the bytes are written at Room(n), then
  // Appended(k) counts k of them.
  char* Room(size_t n);
  void Appended(size_t k);
  // How much to read next, at most `max`: no more than the size hint leaves
  // (+1 to see the end) — room past it would regrow the buffer, copied into
  // fresh pages, for every file not a whole number of chunks long —; `max`
  // without a hint, for gzip (read into a chunk of its own), or once the
  // source outgrew its hint.
  size_t ChunkSize(size_t max) const;
  void SetInFolder(bool in_folder) { in_.in_folder = in_folder; }
  SourceBytes End() &&;

 private:
  void Take(std::string_view bytes);
  SourceBytes in_;
  std::string pending_;  // the first byte, until gzip-or-not is known
  std::string room_;     // Room() while the bytes cannot go to data (gzip, not decided, over the limit)
  bool decided_ = false, gz_ = false, over_limit_ = false, inflate_later_ = false;
  uint64_t hint_ = 0;  // the expected size, as given (0: unknown)
};

}  // namespace tracemerge
