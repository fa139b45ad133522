// Layout: where a parsed source's templates live until the output is written
// — in memory at their exact size; put in time order first when the file was
// out of order and nothing depends on its file order (the writer then reads
// them forward, and the order stage finds the source sorted); or, beyond the
// memory budget, in Options.store. The input buffer is recycled here.
//
//   events ts 30,10,20 (file order), no B/E pairs → events ts 10,20,30, arena in that order
#pragma once

#include <cstdint>
#include <mutex>

#include "buffer.h"
#include "merger.h"
#include "source.h"

namespace tracemerge {

// What the threads that parse sources share: the memory budget, the store,
// and an input buffer kept for the next source. Thread-safe.
class Budget {
 public:
  // big: a buffer larger than this is freed, not kept for the next source.
  Budget(uint64_t limit, TemplateStore* store, uint64_t big = UINT64_MAX) : limit_(limit), store_(store), big_(big) {}
  // The spare input buffer (empty when there is none).
  ByteBuffer TakeSpare();
  // Keeps the larger of `buffer` and the spare one for the next source (a
  // buffer over the big size: neither); frees the other.
  void Recycle(ByteBuffer& buffer);
  void FreeSpare();
  // Counts a laid-out source against the budget (its events and, when in memory, its templates).
  void Count(const ParsedSource& s);
  // Whether s's templates must go to the store: they and the events, with
  // those counted so far, would exceed the budget.
  bool MustStore(const ParsedSource& s);
  // Appends bytes to the store's `key`, one thread at a time.
  bool Put(uint32_t key, std::string_view bytes);

 private:
  std::mutex mu_;
  uint64_t limit_;
  TemplateStore* store_;
  uint64_t big_;
  ByteBuffer spare_;
  uint64_t events_ = 0, arena_bytes_ = 0;
};

// Moves the templates of s's events from `first` on — all its arena holds — to the store,
// after those it holds there, in time order (an XSpace read a plane at a time moves each
// plane's as it goes: parse.cc). False when the store failed (then nothing moved).
bool StoreRun(ParsedSource& s, size_t first, Budget& budget);
// Lays out s (just parsed from `input`, which is recycled) and counts it.
void LayOut(ParsedSource& s, ByteBuffer& input, Budget& budget);
// Counts a source laid out elsewhere (imported), storing its templates when
// they are over the budget.
void Admit(ParsedSource& s, Budget& budget);

}  // namespace tracemerge
