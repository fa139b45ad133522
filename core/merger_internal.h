// State shared by the merge stages (merger.cc: ingest, parse, window, tracks;
// output.cc: JSON writer). Not part of the public API.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <new>
#include <type_traits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "event_parser.h"
#include "gzip.h"
#include "kinds.h"
#include "merger.h"
#include "tokenizer.h"
#include "serial_worker.h"
#include "status.h"

namespace tracemerge {

struct Proc {  // one original pid of one source
  std::string pid_text;   // original pid as written ("" when absent)
  std::string name;       // from process_name metadata (JSON-escaped text)
  bool used = false;      // has kept events
  uint32_t out_pid = 0;
};

struct Thread {  // one original (pid, tid) of one source
  uint32_t proc = 0;
  std::string tid_text;
  std::string name;                // from thread_name metadata (JSON-escaped text)
  bool used = false;
  std::vector<uint32_t> lane_tids; // output tid of lane 0, 1, …
};

// Async begin/end pairs: no duration; the event's dur slot holds its pair key.
inline bool IsPairPhase(char ph) { return ph == 'b' || ph == 'e' || ph == 'S' || ph == 'F'; }

// One input event in the index: 40 bytes (a multi-GB job has tens of millions).
struct Event {
  Event() : keep(true), has_ts(false), based(false) {}
  int64_t ts = 0;  // absolute ns (relative for sources without a clock)
  union {
    int64_t dur = 0;    // ns; read it through Duration()
    uint32_t pair_key;  // IsPairPhase: which async pair it belongs to
  };
  uint64_t offset = 0;  // of the output template in the source's arena (or store)
  uint32_t length = 0;
  uint32_t source = 0;
  uint32_t thread = 0;
  char ph = 0;
  uint8_t lane = 0;
  bool keep : 1;
  bool has_ts : 1;
  bool based : 1;  // ts already absolute (smdebug header seen before it)
};
static_assert(sizeof(Event) <= 40, "the event index entry grew");

inline int64_t Duration(const Event& e) { return IsPairPhase(e.ph) ? 0 : e.dur; }

// What fills the index between sources (BlockVector::Splice): metadata of no
// thread, never kept, with no time — every pass over all events skips it.
inline Event Filler(uint32_t source) {
  Event e;
  e.ph = 'M';
  e.keep = false;
  e.source = source;
  return e;
}

// A vector that grows in fixed blocks: no reallocation, so no moment with the
// old and the new copy both alive (the event index of a multi-GB job is ~2 GB).
template <class T>
class BlockVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>, "elements are copied as bytes");

 public:
  // 4096 elements (160 KB of events): a source's own list and the index's
  // last block waste little when half full (a 2.6 MB block per source had
  // raised wasm's heap on jobs of many small files).
  static constexpr size_t kShift = 12, kBlock = size_t{1} << kShift;
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return blocks_[i >> kShift][i & (kBlock - 1)]; }
  const T& operator[](size_t i) const { return blocks_[i >> kShift][i & (kBlock - 1)]; }
  void push_back(const T& v) {
    new (Tail()) T(v);
    size_++;
  }
  // Moves other's elements to the end; returns where the first one landed.
  // One of kAdopt blocks or more hands its blocks over, uncopied: its elements
  // then start at a block's edge, after up to kBlock - 1 copies of `filler`
  // (at most 1/8 more) — which whoever reads the whole vector must pass over.
  // A smaller one is copied, its blocks freed as they go (the peak grows by
  // one block).
  static constexpr size_t kAdopt = 8;
  size_t Splice(BlockVector& other, const T& filler) {
    if (other.size_ >= kAdopt * kBlock) {
      while (size_ & (kBlock - 1)) push_back(filler);
      const size_t at = size_;
      for (Block& b : other.blocks_) blocks_.push_back(std::move(b));
      size_ += other.size_;
      other.blocks_.clear();
      other.size_ = 0;
      return at;
    }
    const size_t at = size_;
    for (size_t b = 0; b < other.blocks_.size(); b++) {
      const T* from = other.blocks_[b].get();
      for (size_t left = std::min(kBlock, other.size_ - b * kBlock); left > 0;) {
        const size_t n = std::min(left, kBlock - (size_ & (kBlock - 1)));  // what fits in our last block
        std::memcpy(static_cast<void*>(Tail()), from, n * sizeof(T));
        size_ += n;
        from += n;
        left -= n;
      }
      other.blocks_[b].reset();
    }
    other.blocks_.clear();
    other.size_ = 0;
    return at;
  }
  template <class V, class R>
  struct Iter {
    V* v;
    size_t i;
    R& operator*() const { return (*v)[i]; }
    Iter& operator++() { return ++i, *this; }
    bool operator!=(const Iter& o) const { return i != o.i; }
  };
  Iter<BlockVector, T> begin() { return {this, 0}; }
  Iter<BlockVector, T> end() { return {this, size_}; }
  Iter<const BlockVector, const T> begin() const { return {this, 0}; }
  Iter<const BlockVector, const T> end() const { return {this, size_}; }

 private:
  // Blocks are raw memory, written only by push_back: constructing elements
  // in advance would read each new page before writing it (a bit-field's
  // read-modify-write), two page faults and a TLB flush on every CPU a page.
  struct Release {
    void operator()(T* p) const { ::operator delete(p); }
  };
  using Block = std::unique_ptr<T[], Release>;
  // Where element size_ goes, a new block when the last is full.
  T* Tail() {
    if ((size_ & (kBlock - 1)) == 0) blocks_.emplace_back(static_cast<T*>(::operator new(sizeof(T) * kBlock)));
    return &(*this)[size_];
  }
  std::vector<Block> blocks_;
  size_t size_ = 0;
};

struct Source {
  std::string path;
  Classification cls;
  ByteBuffer data;        // inflated bytes + kPad of padding
  uint64_t size = 0;      // logical size of data
  std::string pending;    // first bytes, until gzip-or-not is known
  std::string compressed; // gzip bytes inflated when the source ends (parse_in_background)
  bool decided = false, gz = false, over_limit = false;
  std::unique_ptr<Inflater> inflater;
  SourceReport report;

  std::vector<Proc> procs;
  std::unordered_map<std::string, uint32_t> proc_ix;
  std::vector<Thread> threads;
  std::unordered_map<std::string, uint32_t> thread_ix;
  // Lookup caches (ingest.cc): the process and thread last seen by a hash of
  // their text; an entry may be stale or another's, so it is checked.
  std::array<uint32_t, 64> proc_seen{}, thread_seen{};
  IdTable ids;                          // original id → local number
  uint64_t id_base = 0;                 // output id = id_base + local number
  uint64_t id_count = 0;                // ids.size() once parsed (the table is freed)
  std::unordered_map<std::string, uint32_t> pair_keys;  // async "cat\x1fid" → number
  ByteBuffer arena;                     // output templates of the events (event_parser.h)
  uint32_t key = 0;                     // index in Sources (before Join) and name in the store
  uint32_t arrival = 0;                 // order among sources of the same path
  bool stored = false;                  // templates moved to Options.store (arena empty)
  bool exported = false;                // taken out by ExportSource (events now fillers)
  uint64_t stored_bytes = 0;
  std::string window;                   // a stored range being written: [window_at, +size)
  uint64_t window_at = 0;
  std::string window_event;             // the event being written, from the window
  std::string base_time_ns;  // Kineto's baseTimeNanoseconds, as written

  // Parsed as soon as the source ends (its input is freed then) into `parsed`,
  // then moved to events[first_event, first_event + event_count) of the merge.
  BlockVector<Event> parsed;
  uint64_t first_event = 0, event_count = 0;
  std::vector<std::pair<int64_t, uint32_t>> step_marks, profiler_steps;  // (step, local event)
  bool has_pairs = false;                        // B/E, b/e or S/F events
  bool based_events = false, relative_events = false;  // has_ts events with based set / not
  std::vector<Diagnostic> warnings;
  int64_t header_base = 0;  // smdebug clock header, if seen
  bool have_header = false;
};

// A deque: a new source does not move the others (the worker may be parsing one).
using Sources = std::deque<Source>;


// The kept events in output order — by time, ties by source path, then file
// order — merged lazily from one sorted run per source: 4 bytes an event
// instead of a global 16-byte sort key.
class TimeOrder {
 public:
  explicit TimeOrder(const BlockVector<Event>& events) : events_(events) {}
  // Sorts a source's kept events (indices into events, in file order) by
  // time, ties in file order. Const: runs of different sources may be sorted
  // on different threads.
  void SortRun(std::vector<uint32_t>& run) const;
  // Adds a run sorted by SortRun; sources in path order.
  void AddRun(std::vector<uint32_t> run);
  uint64_t size() const { return size_; }

  // Reads one stretch of the order (the runs stay shared and unchanged, so
  // cursors may be read on different threads).
  class Cursor {
   public:
    // Fills out with up to n next events; 0 at the end.
    size_t Next(uint32_t* out, size_t n);
    uint64_t size() const { return size_; }

   private:
    friend class TimeOrder;
    struct Head {
      int64_t ts;
      uint32_t run, pos;
      bool operator>(const Head& o) const { return ts != o.ts ? ts > o.ts : run > o.run; }
    };
    Cursor(const TimeOrder& order, const std::vector<uint32_t>& from, std::vector<uint32_t> to);
    void SiftTop();
    const TimeOrder* order_;
    std::vector<uint32_t> end_;  // per run: where this stretch ends
    std::vector<Head> heap_;
    uint64_t size_ = 0;
  };
  // The order in consecutive slices, by time: every event of a slice comes
  // before those of the next. About `pieces` slices of similar size (fewer
  // when many events share a time); Slices(1) is the whole order.
  std::vector<Cursor> Slices(size_t pieces) const;

 private:
  const BlockVector<Event>& events_;
  std::vector<std::vector<uint32_t>> runs_;  // added in path order: ties go to the earlier
  uint64_t size_ = 0;
};

// Writes the merged JSON for the kept events to sink.
void WriteOutput(Sources& sources, const BlockVector<Event>& events,
                 const std::vector<uint32_t>& meta, const TimeOrder& order,
                 const std::vector<std::pair<uint32_t, std::string>>& process_names,
                 const std::vector<std::tuple<uint32_t, uint32_t, std::string>>& thread_names,
                 const Options& options, Report* report, const Sink& sink);
// (WriteOutput sets report->fatal to CANCELLED when options.progress says stop.)

std::string JsonEscape(std::string_view s);


constexpr size_t kPad = simdjson::SIMDJSON_PADDING;  // readable slack after every input buffer
constexpr size_t kTemplateSlack = 16;  // readable slack after every template arena (Expand)

// "rank-1.json" matches "job/rank-1.json"; "job/system" matches everything under it.
bool PathMatches(std::string_view path, std::string_view pattern);
// {(3,t),(1,t),(2,t),(7,t)} → "1-3, 7"
std::string StepList(const std::vector<std::pair<int64_t, int64_t>>& steps);

// The merge's state; its stages live in ingest.cc (read, classify, parse),
// timeline.cc (clock, window), tracks.cc (pids, tids, lanes) and merger.cc.
struct Merger::Impl {
  Options opt;
  Sources sources;
  BlockVector<Event> events;
  std::vector<std::pair<int64_t, uint32_t>> step_marks;     // (step, event) pythontimeline
  std::vector<std::pair<int64_t, uint32_t>> profiler_steps; // (step, event) ProfilerStep#N
  std::vector<Diagnostic> warnings;
  EventParser parser;
  bool cancelled = false;
  uint64_t tick = 0;

  // Reports progress every 16384 calls; remembers a cancel. Not from the
  // worker thread: the callback is the caller's.
  void Tick(const char* stage, uint64_t done, uint64_t total) {
    if (!opt.progress || cancelled || opt.parse_in_background || ++tick % 16384 != 0) return;
    if (!opt.progress(Progress{stage, done, total})) cancelled = true;
  }

  void Warn(Source& s, Code code, uint64_t offset, std::string msg) {
    s.warnings.push_back({code, s.path, offset, std::move(msg)});
  }

  // An event's place in the canonical order: by source path, then file order.
  // Ties in time are broken by it, so the output does not depend on the order
  // in which files arrived.
  uint64_t Canon(uint64_t i) const {
    const Event& e = events[i];
    return uint64_t{e.source} << 40 | (i - sources[e.source].first_event);
  }

  void Append(Source& s, std::string_view bytes);
  void Finish(Source& s, EventParser& parser);
  // Whether the stages after the last source may use a second thread (ForEach).
  bool Two() const { return opt.parse_in_background || opt.write_in_background; }
  bool MustStore(const Source& s);
  // The source between BeginSource and EndSource (sources imported meanwhile
  // come after it in the deque, which does not move it).
  Source* open = nullptr;
  void Keep(Source& s);
  uint32_t next_arrival = 0;
  void Parse(Source& s, EventParser& parser);
  uint64_t ParseEvent(Source& s, Span span, bool open_end, EventParser& parser);
  void AddEvent(Source& s, Span span, const EventFields& f, size_t mark);
  void ParseMetrics(Source& s, EventParser& parser);
  int64_t TimeKey(const Source& s, uint32_t i) const;
  bool CanPutInTimeOrder(const Source& s) const;
  void PutInTimeOrder(Source& s);
  void Store(Source& s);
  void Recycle(ByteBuffer& buffer);
  ByteBuffer spare_input;  // reused from source to source; freed by Merge()
  uint64_t arena_bytes = 0;  // templates kept in memory
  // Options.parse_in_background: the caller and the worker both parse sources
  // (each with its own parser); this guards what they share — events,
  // arena_bytes, spare_input, Options.store.
  std::mutex shared_mu;
  EventParser worker_parser;
  void Join();
  void ApplyClock(uint32_t index);
  void Describe(Report* r);
  bool ResolveWindow(Report* r);
  void Filter(const Report& r);
  void AssignTracks(std::vector<std::pair<uint32_t, std::string>>* process_names,
                    std::vector<std::tuple<uint32_t, uint32_t, std::string>>* thread_names);

  // Options.parse_in_background: Finish() runs here when the worker is free,
  // else on the caller's thread. Last: destroyed (its thread joined) before
  // the sources it parses.
  std::unique_ptr<SerialWorker<Source*>> worker;
};

}  // namespace tracemerge
