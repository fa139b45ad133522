#include "layout.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "radix_sort.h"

namespace tracemerge {

ByteBuffer Budget::TakeSpare() {
  std::lock_guard<std::mutex> lock(mu_);
  ByteBuffer b;
  b.swap(spare_);
  return b;
}

void Budget::Recycle(ByteBuffer& buffer) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (buffer.capacity() > spare_.capacity() && buffer.capacity() <= big_) spare_.swap(buffer);
  }
  buffer.Free();
}

void Budget::FreeSpare() {
  std::lock_guard<std::mutex> lock(mu_);
  spare_.Free();
}

void Budget::Count(const ParsedSource& s) {
  std::lock_guard<std::mutex> lock(mu_);
  events_ += s.events.size();
  if (!s.stored) arena_bytes_ += s.arena.size();
}

// Beyond the budget, which covers the events too (and the output order built
// from them later), a source's templates go to the store.
bool Budget::MustStore(const ParsedSource& s) {
  if (!store_) return false;
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t in_memory = (events_ + s.events.size()) * (sizeof(Event) + sizeof(uint32_t)) + arena_bytes_;
  return in_memory + s.arena.size() > limit_;
}

bool Budget::Put(uint32_t key, std::string_view bytes) {
  std::lock_guard<std::mutex> lock(mu_);  // (another thread may store too)
  return bytes.empty() || store_->Put(key, bytes);
}

namespace {

// The key a source must be sorted by to count as in time order (metadata first).
int64_t TimeKey(const Event& e) { return e.ph == 'M' ? INT64_MIN : e.ts; }

// True when the source is out of time order and nothing depends on the file
// order of its events: no begin/end pairs (they match in file order), one
// time base for all. smdebug's and TF's traces are often out of order.
bool CanPutInTimeOrder(const ParsedSource& s) {
  if (s.has_pairs || (s.based_events && s.relative_events)) return false;
  for (size_t i = 1; i < s.events.size(); i++)
    if (TimeKey(s.events[i - 1]) > TimeKey(s.events[i])) return true;
  return false;
}

// The templates in time order (by_time: the events' file positions) into `into`
// (its bytes overwritten). Both reads jump around: the next ones are asked for ahead.
void MoveTemplates(ParsedSource& s, const std::vector<uint32_t>& by_time, ByteBuffer& into) {
  const BlockVector<Event>& events = s.events;
  const auto n = static_cast<uint32_t>(events.size());
  into.clear();
  into.reserve(s.arena.size() + kTemplateSlack);
  s.arena.reserve(s.arena.size() + 16);  // (copies below read up to 15 bytes past a template)
  const char* const arena = s.arena.data();
  for (uint32_t k = 0; k < n; k++) {
    if (k + 16 < n) __builtin_prefetch(&events[by_time[k + 16]]);
    if (k + 8 < n) __builtin_prefetch(arena + events[by_time[k + 8]].offset);
    const Event& e = events[by_time[k]];
    char* w = into.Room(e.length + 16);
    for (uint32_t c = 0; c < e.length; c += 16) std::memcpy(w + c, arena + e.offset + c, 16);
    into.SetEnd(w + e.length);
  }
  into.swap(s.arena);  // (into: the old templates, to recycle)
}

// Puts events in time order, and their templates with them at their exact size
// into the input's buffer (read by now and already in memory; the templates'
// old buffer is recycled) where they fit in it. Where they do not (a compact
// input: an XSpace's templates are ~5× its bytes), they stay where they are, read
// by offset: copying them into fresh memory would cost as much as the parse.
void PutInTimeOrder(ParsedSource& s, ByteBuffer& input, Budget& budget) {
  BlockVector<Event>& events = s.events;
  const auto n = static_cast<uint32_t>(events.size());
  // (time, file position) → (new offset, file position). Metadata, whose place
  // among the events does not matter (the writer puts it first), sorts as the
  // earliest time: the keys then span only the source's time range.
  int64_t earliest = INT64_MAX;
  for (uint32_t i = 0; i < n; i++)
    if (events[i].ph != 'M') earliest = std::min(earliest, events[i].ts);
  std::vector<std::pair<int64_t, uint32_t>> order(n);
  for (uint32_t i = 0; i < n; i++) order[i] = {events[i].ph == 'M' ? earliest : events[i].ts, i};
  RadixSortByKey(order);
  std::vector<uint32_t> by_time(n);  // file positions in time order
  for (uint32_t k = 0; k < n; k++) by_time[k] = order[k].second;
  std::vector<std::pair<int64_t, uint32_t>>().swap(order);
  if (!s.steps.empty() || !s.anchors.empty()) {
    std::vector<uint32_t> position(n);  // file position → time position
    for (uint32_t k = 0; k < n; k++) position[by_time[k]] = k;
    for (auto& mark : s.steps) mark.second = position[mark.second];
    for (Anchor& a : s.anchors) a.event = position[a.event];
  }
  const bool templates = input.capacity() >= s.arena.size();
  if (templates) MoveTemplates(s, by_time, input);  // (input: then the old templates)
  budget.Recycle(input);
  // Then the events, in place (no second index): each cycle of the
  // permutation is followed from its start, every event moved to its place.
  // The places to come are read from by_time ahead of the moves, so that
  // their events are asked for early; a place done is marked by_time[k] = k.
  for (uint32_t start = 0; start < n; start++) {
    if (by_time[start] == start) continue;
    const Event first = events[start];
    uint32_t ahead = start;
    for (int a = 0; a < 8; a++) __builtin_prefetch(&events[ahead = by_time[ahead]]);
    for (uint32_t k = start;;) {
      const uint32_t from = by_time[k];
      by_time[k] = k;
      if (from == start) {
        events[k] = first;
        break;
      }
      events[k] = events[from];
      k = from;
      __builtin_prefetch(&events[ahead = by_time[ahead]]);
    }
  }
  uint64_t at = 0;  // the templates moved follow one another in time order
  for (uint32_t k = 0; templates && k < n; k++) {
    events[k].offset = at;
    at += events[k].length;
  }
  s.arena.ShrinkToFit(kTemplateSlack);
}

}  // namespace

bool StoreRun(ParsedSource& s, size_t first, Budget& budget) {
  const size_t n = s.events.size();
  std::vector<uint32_t> order(n - first);
  for (size_t i = first; i < n; i++) order[i - first] = static_cast<uint32_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return s.events[a].ts < s.events[b].ts; });
  std::vector<uint64_t> at(n - first);
  std::string piece;
  uint64_t pos = s.stored_bytes;
  bool ok = true;
  auto put = [&] {  // in pieces of about 4 MB
    ok = ok && budget.Put(s.arrival, piece);
    piece.clear();
  };
  for (uint32_t i : order) {
    const Event& e = s.events[i];
    piece.append(s.arena.data() + e.offset, e.length);
    at[i - first] = pos;
    pos += e.length;
    if (piece.size() >= (4 << 20)) put();
  }
  put();
  if (!ok) return false;
  for (size_t i = first; i < n; i++) s.events[i].offset = at[i - first];
  s.stored = true;
  s.stored_bytes = pos;
  s.arena.clear();
  return true;
}

// Moves the source's templates to the store, in time order so that the writer
// reads them back mostly forward. On failure they stay in memory.
static void Store(ParsedSource& s, Budget& budget) {
  if (!StoreRun(s, 0, budget)) return s.Warn(Code::kIo, 0, "could not move this file's events out of memory; kept them in memory");
  s.arena.Free();
}

void LayOut(ParsedSource& s, ByteBuffer& input, Budget& budget) {
  if (s.events.empty() || s.stored) {  // (stored: moved out as it was read, a record at a time)
    budget.Recycle(input);
    s.arena.Free();
  } else {
    const bool store = budget.MustStore(s);
    const bool reorder = !store && CanPutInTimeOrder(s);
    if (!reorder) budget.Recycle(input);  // the templates are all the writer needs
    if (store) Store(s, budget);
    if (reorder) PutInTimeOrder(s, input, budget);
    else if (!s.stored) s.arena.ShrinkToFit(kTemplateSlack);
  }
  s.events.ShrinkToFit();
  budget.Count(s);
}

void Admit(ParsedSource& s, Budget& budget) {
  if (s.report.included && !s.events.empty() && budget.MustStore(s)) Store(s, budget);
  budget.Count(s);
}

}  // namespace tracemerge
