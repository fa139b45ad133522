// Bytes in: one source as it streams in, in chunks of any size. The first two
// bytes decide gzip or not; gzip is inflated as it comes (or kept compressed
// for the thread that will parse it); a plain file over the size limit keeps
// its first part. End() hands over the bytes; the stream is gone after it.
//
//   SourceStream s("rank-0.json.gz", 0, options, spare_buffer, hint);
//   s.Append(chunk1); s.Append(chunk2);
//   SourceBytes in = std::move(s).End();  in.Inflate();  → in.data: the inflated bytes + padding
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "buffer.h"
#include "gzip.h"
#include "status.h"

namespace tracemerge {

constexpr size_t kPad = 64;  // readable slack after every input buffer (simdjson's SIMDJSON_PADDING)

// One source at a time may hold an input larger than big() (Options.big_input_bytes):
// the thread whose source grows past it waits until none holds the gate. (A
// holder never waits for anything else: it is being read or parsed.)
class InputGate {
 public:
  explicit InputGate(uint64_t big) : big_(big) {}
  uint64_t big() const { return big_; }
  // Held while the returned pass lives.
  class Pass {
   public:
    Pass() = default;
    explicit Pass(InputGate* g) : g_(g) {}
    Pass(Pass&& o) noexcept : g_(o.g_) { o.g_ = nullptr; }
    Pass& operator=(Pass&& o) noexcept {
      std::swap(g_, o.g_);
      return *this;
    }
    ~Pass() {
      if (g_) g_->Leave();
    }
    explicit operator bool() const { return g_ != nullptr; }

   private:
    InputGate* g_ = nullptr;
  };
  Pass Enter();

 private:
  void Leave();
  uint64_t big_;
  std::mutex mu_;
  std::condition_variable free_;
  bool held_ = false;
};

// What reads a source's bytes as they come (parse.h ReadInPieces), for a format of
// records (an XSpace's planes): the stream then holds one record, not the file.
class Pieces {
 public:
  virtual ~Pieces() = default;
  // bytes: the source's, from file offset `at`, as far as they have come → how many it is done with.
  virtual size_t Take(std::string_view bytes, uint64_t at) = 0;
  // Once true (the bytes are damaged, the merge cancelled), the rest is not read.
  virtual bool Stopped() const { return false; }
};
struct SourceBytes;
using PieceOpener = std::function<std::unique_ptr<Pieces>(const SourceBytes&)>;

// One source's bytes, read whole (or, read in pieces, what the pieces have not taken);
// what the parse stage takes.
struct SourceBytes {
  std::string path;
  uint32_t arrival = 0;
  ByteBuffer data;           // the (inflated) bytes, kPad of padding after them once Inflate() ran
  uint64_t size = 0;         // of data, without the padding
  uint64_t bytes_given = 0;  // as they came (compressed, if gzipped)
  bool in_folder = false;    // found in a folder walk, not named by itself (Merger::BeginSource)
  std::vector<Diagnostic> warnings;  // TOO_LARGE, BAD_GZIP, TRUNCATED (of the compressed stream)
  std::unique_ptr<Pieces> pieces;    // read as they came (SourceStream::SetPieces): data holds what it left,
  uint64_t taken = 0;                // from this file offset on

  // Inflates what waits compressed (on whichever thread parses the source),
  // then pads data. Once only.
  void Inflate();
  // Whether this source's input is over the gate's size (and holds it).
  bool big() const { return static_cast<bool>(pass_); }

 private:
  friend class SourceStream;
  void Grew();  // data grew: past the gate's size, hold the gate
  std::string compressed_;  // gzip bytes still to inflate
  std::unique_ptr<Inflater> inflater_;
  uint64_t max_bytes_ = 0;
  std::string why_;  // of max_bytes_, for TOO_LARGE
  InputGate* gate_ = nullptr;
  InputGate::Pass pass_;
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
  // Before the first byte: why max_bytes is the limit (said in TOO_LARGE: " (…)"),
  // and the gate a source over its size must hold.
  void SetLimitWhy(std::string why) { in_.why_ = std::move(why); }
  void SetGate(InputGate* gate) { in_.gate_ = gate; }
  // Once more than `hold` bytes wait, `open` is asked once whether the source reads in
  // pieces; if it does, the bytes are given to it as they come, and those it takes are
  // let go. (A gzipped one kept compressed for later is asked, by its name, past hold/4
  // compressed bytes: if it may, it inflates here from then on.)
  void SetPieces(uint64_t hold, PieceOpener open) { hold_ = hold, open_ = std::move(open); }
  SourceBytes End() &&;

 private:
  void Take(std::string_view bytes);
  void Fed();  // data grew: to the pieces, if the source reads in them
  std::string RecordTooLarge() const;  // TOO_LARGE's words for one of them
  SourceBytes in_;
  std::string pending_;  // the first byte, until gzip-or-not is known
  std::string room_;     // Room() while the bytes cannot go to data (gzip, not decided, over the limit)
  bool decided_ = false, gz_ = false, over_limit_ = false, inflate_later_ = false;
  uint64_t hint_ = 0;  // the expected size, as given (0: unknown)
  uint64_t hold_ = UINT64_MAX;
  PieceOpener open_;
  bool probed_ = false;  // a gzipped one kept compressed: asked whether it may read in pieces
};

}  // namespace tracemerge
