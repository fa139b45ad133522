// Ingest: sources arrive in chunks (gzip inflated as they come), are classified
// when they end, and parsed right away into events and output templates, after
// which their input bytes are freed.
#include "merger.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "merger_internal.h"
#include "numbers.h"
#include "radix_sort.h"

namespace tracemerge {

Merger::Merger(Options options) : impl_(new Impl) {
  impl_->opt = std::move(options);
  for (EventParser* parser : {&impl_->parser, &impl_->worker_parser}) {
    parser->set_max_string(impl_->opt.max_string_bytes);
    parser->set_max_depth(impl_->opt.max_depth);  // as the tokenizer's
  }
  if (impl_->opt.parse_in_background)
    impl_->worker = std::make_unique<SerialWorker<Source*>>(1, [m = impl_.get()](Source*& source) {
      m->Finish(*source, m->worker_parser);  // (not by index: the deque grows meanwhile)
    });
}
Merger::~Merger() = default;

uint64_t GzipSizeHint(std::string_view head, std::string_view tail4, uint64_t file_size) {
  if (!LooksGzipped(head) || tail4.size() != 4) return file_size;
  uint64_t isize = 0;
  for (int i = 3; i >= 0; i--) isize = isize << 8 | static_cast<unsigned char>(tail4[i]);
  return isize >= file_size ? isize : file_size;
}

void Merger::BeginSource(std::string path, uint64_t size_hint) {
  Source& s = impl_->sources.emplace_back();
  impl_->open = &s;
  s.key = static_cast<uint32_t>(impl_->sources.size() - 1);
  s.arrival = impl_->next_arrival++;
  s.path = std::move(path);
  s.report.path = s.path;
  const uint64_t want = std::min(size_hint, impl_->opt.max_inflated_bytes) + kPad;
  {
    std::lock_guard<std::mutex> lock(impl_->shared_mu);
    ByteBuffer& spare = impl_->spare_input;  // a parsed input's buffer: no new pages to fault in
    s.data.swap(spare);
  }
  // One too small, or much too large, goes: kept, it would only add to the peak
  // (in wasm's heap, which never shrinks, most of all).
  if (s.data.capacity() < want || s.data.capacity() - want > want / 8) s.data.Free();
  s.data.clear();
  s.data.reserve(want);
}

void Merger::AppendChunk(std::string_view bytes) {
  if (!impl_->open) return;
  Source& s = *impl_->open;
  s.report.bytes += bytes.size();
  if (!s.decided) {  // a chunk may be 1 byte: wait for the 2-byte gzip magic
    s.pending.append(bytes);
    if (s.pending.size() < 2) return;
    s.decided = true;
    s.gz = LooksGzipped(s.pending);
    if (s.gz) s.inflater = std::make_unique<Inflater>(impl_->opt.max_inflated_bytes);
    std::string first;
    first.swap(s.pending);
    impl_->Append(s, first);
    return;
  }
  impl_->Append(s, bytes);
}

void Merger::Impl::Append(Source& s, std::string_view bytes) {
  if (s.gz) {
    // In the background mode, whichever thread parses the source inflates it.
    if (opt.parse_in_background) s.compressed.append(bytes);
    else s.inflater->Feed(bytes, s.data);
    return;
  }
  if (s.over_limit) return;
  if (s.data.size() + bytes.size() > opt.max_inflated_bytes) {
    s.over_limit = true;
    bytes = bytes.substr(0, opt.max_inflated_bytes - s.data.size());
    Warn(s, Code::kTooLarge, opt.max_inflated_bytes,
         "file is larger than the limit of " + std::to_string(opt.max_inflated_bytes) +
             " bytes; kept the first part");
  }
  s.data.append(bytes);
}

void Merger::EndSource() {
  if (!impl_->open) return;
  Source& s = *impl_->open;
  impl_->open = nullptr;
  if (!s.decided) {
    s.decided = true;
    s.data.append(s.pending);
  }
  // In the background while the worker keeps up (one source may wait for it),
  // else here: both threads parse.
  if (!impl_->worker || !impl_->worker->TryPush(&s)) impl_->Finish(s, impl_->parser);
}

void Merger::Impl::Finish(Source& s, EventParser& parser) {
  if (s.inflater) {
    s.inflater->Feed(s.compressed, s.data);
    std::string().swap(s.compressed);
    Diagnostic d;
    if (!s.inflater->Finish(&d)) Warn(s, d.code, d.offset, d.message + " (compressed offset)");
    s.inflater.reset();
  }
  s.size = s.data.size();
  s.report.inflated_bytes = s.size;
  std::memset(s.data.Extend(kPad), ' ', kPad);
  s.cls = Classify(s.path, std::string_view(s.data.data(), std::min<uint64_t>(s.size, 4096)));
  s.report.kind = s.cls.kind;
  s.report.node = s.cls.node;
  if (s.cls.kind == Kind::kSkipped) {
    s.report.included = false;
    s.report.note = "skipped: " + s.cls.reason;
    Warn(s, s.cls.quiet ? Code::kSkipped : Code::kNotATrace, 0, "skipped: " + s.cls.reason);
    Recycle(s.data);
  } else if (s.cls.kind == Kind::kSidecar) {
    s.report.included = false;
    s.report.note = "TF time base (start " + s.cls.node + ")";
  } else if (!(opt.kinds & KindBit(s.cls.kind))) {
    s.report.included = false;
    s.report.note = "filtered out (kind not selected)";
    Recycle(s.data);
  }
  if (s.report.included) {
    // Templates are about as long as the input; the buffer shrinks to them after.
    s.arena.reserve(s.size + s.size / 8);
    Parse(s, parser);
    s.event_count = s.parsed.size();
    s.id_count = s.ids.size();  // and of the lookup tables, only the numbers
    s.ids = IdTable();
    s.pair_keys = {};
    s.proc_ix = {};
    s.thread_ix = {};
    const bool store = MustStore(s);
    const bool reorder = !store && CanPutInTimeOrder(s);
    if (!reorder) Recycle(s.data);  // the templates are all the writer needs
    if (store) Store(s);
    if (reorder) PutInTimeOrder(s);
    else if (!s.stored) s.arena.ShrinkToFit(kTemplateSlack);
  }
  Keep(s);
}

// Whether the source's templates go to Options.store: beyond the memory budget,
// which covers the event index too (and the output order built from it later).
bool Merger::Impl::MustStore(const Source& s) {
  if (!opt.store) return false;
  std::lock_guard<std::mutex> lock(shared_mu);
  const uint64_t in_memory = (events.size() + s.parsed.size()) * (sizeof(Event) + sizeof(uint32_t)) + arena_bytes;
  return in_memory + s.arena.size() > opt.memory_budget;
}

// A parsed source joins the merge.
void Merger::Impl::Keep(Source& s) {
  {
    // Its events join the merge's index: where does not matter, Canon()
    // orders by source and place within it.
    std::lock_guard<std::mutex> lock(shared_mu);
    s.first_event = events.Splice(s.parsed, Filler(s.key));
    if (!s.stored) arena_bytes += s.arena.size();
  }
  // Stored templates leave memory only now: freed before, their room would
  // have been cut into by the index's new blocks, and the next source's
  // templates no longer fit there (wasm's heap cannot grow past its limit).
  if (s.stored) s.arena.Free();
}

// Keeps the larger of `buffer` and the spare input buffer for the next source.
void Merger::Impl::Recycle(ByteBuffer& buffer) {
  {
    std::lock_guard<std::mutex> lock(shared_mu);
    if (buffer.capacity() > spare_input.capacity()) spare_input.swap(buffer);
  }
  buffer.Free();
}

// The key a source must be sorted by to count as in time order (metadata first).
int64_t Merger::Impl::TimeKey(const Source& s, uint32_t i) const {
  const Event& e = s.parsed[i];
  return e.ph == 'M' ? INT64_MIN : e.ts;
}

// True when the source is out of time order and nothing depends on the file
// order of its events: no begin/end pairs (they match in file order), one
// time base for all. smdebug's and TF's traces are often out of order.
bool Merger::Impl::CanPutInTimeOrder(const Source& s) const {
  if (s.has_pairs || (s.based_events && s.relative_events)) return false;
  for (uint32_t i = 1; i < s.event_count; i++)
    if (TimeKey(s, i - 1) > TimeKey(s, i)) return true;
  return false;
}

// Puts events and templates in time order, the templates at their exact
// size: the writer, which visits events by time, then reads forward, and
// Merge() finds the source sorted.
void Merger::Impl::PutInTimeOrder(Source& s) {
  BlockVector<Event>& parsed = s.parsed;
  const auto n = static_cast<uint32_t>(s.event_count);
  // (time, file position) → (new offset, file position). Metadata, whose place
  // among the events does not matter (the writer puts it first), sorts as the
  // earliest time: the keys then span only the source's time range.
  int64_t earliest = INT64_MAX;
  for (uint32_t i = 0; i < n; i++)
    if (parsed[i].ph != 'M') earliest = std::min(earliest, parsed[i].ts);
  std::vector<std::pair<int64_t, uint32_t>> order(n);
  for (uint32_t i = 0; i < n; i++) order[i] = {parsed[i].ph == 'M' ? earliest : parsed[i].ts, i};
  RadixSortByKey(order);
  std::vector<uint32_t> by_time(n);  // file positions in time order
  for (uint32_t k = 0; k < n; k++) by_time[k] = order[k].second;
  std::vector<std::pair<int64_t, uint32_t>>().swap(order);
  if (!s.step_marks.empty() || !s.profiler_steps.empty()) {
    std::vector<uint32_t> position(n);  // file position → time position
    for (uint32_t k = 0; k < n; k++) position[by_time[k]] = k;
    for (auto& mark : s.step_marks) mark.second = position[mark.second];
    for (auto& mark : s.profiler_steps) mark.second = position[mark.second];
  }
  // The templates, into the input's buffer (read by now and already in
  // memory; the templates' old buffer becomes the next input's). Both reads
  // jump around: the next ones are asked for ahead.
  ByteBuffer exact;
  if (s.data.capacity() >= s.arena.size()) exact.swap(s.data);
  Recycle(s.data);
  exact.clear();
  exact.reserve(s.arena.size() + kTemplateSlack);
  s.arena.reserve(s.arena.size() + 16);  // (copies below read up to 15 bytes past a template)
  const char* const arena = s.arena.data();
  for (uint32_t k = 0; k < n; k++) {
    if (k + 16 < n) __builtin_prefetch(&parsed[by_time[k + 16]]);
    if (k + 8 < n) __builtin_prefetch(arena + parsed[by_time[k + 8]].offset);
    const Event& e = parsed[by_time[k]];
    char* w = exact.Room(e.length + 16);
    for (uint32_t c = 0; c < e.length; c += 16) std::memcpy(w + c, arena + e.offset + c, 16);
    exact.SetEnd(w + e.length);
  }
  // Then the events, in place (no second index): each cycle of the
  // permutation is followed from its start, every event moved to its place.
  // The places to come are read from by_time ahead of the moves, so that
  // their events are asked for early; a place done is marked by_time[k] = k.
  for (uint32_t start = 0; start < n; start++) {
    if (by_time[start] == start) continue;
    const Event first = parsed[start];
    uint32_t ahead = start;
    for (int a = 0; a < 8; a++) __builtin_prefetch(&parsed[ahead = by_time[ahead]]);
    for (uint32_t k = start;;) {
      const uint32_t from = by_time[k];
      by_time[k] = k;
      if (from == start) {
        parsed[k] = first;
        break;
      }
      parsed[k] = parsed[from];
      k = from;
      __builtin_prefetch(&parsed[ahead = by_time[ahead]]);
    }
  }
  uint64_t at = 0;  // the templates follow one another in time order
  for (uint32_t k = 0; k < n; k++) {
    parsed[k].offset = at;
    at += parsed[k].length;
  }
  exact.ShrinkToFit(kTemplateSlack);
  s.arena.swap(exact);
  Recycle(exact);
}

// Moves the source's templates to the store, in time order so that the writer
// reads them back mostly forward. On failure they stay in memory.
void Merger::Impl::Store(Source& s) {
  std::vector<uint32_t> order(s.event_count);
  for (uint32_t i = 0; i < order.size(); i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return s.parsed[a].ts < s.parsed[b].ts;
  });
  std::vector<uint64_t> at(s.event_count);
  std::string piece;
  uint64_t pos = 0;
  bool ok = true;
  auto put = [&] {  // in pieces of about 4 MB
    std::lock_guard<std::mutex> lock(shared_mu);  // (the other thread may store too)
    ok = ok && (piece.empty() || opt.store->Put(s.key, piece));
    piece.clear();
  };
  for (uint32_t i : order) {
    const Event& e = s.parsed[i];
    piece.append(s.arena.data() + e.offset, e.length);
    at[i] = pos;
    pos += e.length;
    if (piece.size() >= (4 << 20)) put();
  }
  put();
  if (!ok) return Warn(s, Code::kIo, 0, "could not move this file's events out of memory; kept them in memory");
  for (uint64_t i = 0; i < s.event_count; i++) s.parsed[i].offset = at[i];
  s.stored = true;
  s.stored_bytes = pos;
}

// ---- parse -----------------------------------------------------------------

// Events of a few processes and threads interleave: a small cache by hash
// answers most lookups without building a key for the map.
static uint32_t& Seen(std::array<uint32_t, 64>& cache, std::string_view text, uint32_t salt = 0) {
  uint64_t h = 0xcbf29ce484222325ull ^ salt;  // FNV-1a: pids and tids are short
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return cache[(h * 0x9E3779B97F4A7C15ull) >> 58];
}

static uint32_t ProcIndex(Source& s, std::string_view pid) {
  uint32_t& seen = Seen(s.proc_seen, pid);
  if (seen < s.procs.size() && s.procs[seen].pid_text == pid) return seen;
  auto [it, added] = s.proc_ix.try_emplace(std::string(pid), static_cast<uint32_t>(s.procs.size()));
  if (added) s.procs.push_back({std::string(pid), "", false, 0});
  return seen = it->second;
}

static uint32_t ThreadIndex(Source& s, uint32_t proc, std::string_view tid) {
  uint32_t& seen = Seen(s.thread_seen, tid, proc);
  if (seen < s.threads.size() && s.threads[seen].proc == proc && s.threads[seen].tid_text == tid) return seen;
  std::string key = std::to_string(proc) + '\x1f' + std::string(tid);
  auto [it, added] = s.thread_ix.try_emplace(key, static_cast<uint32_t>(s.threads.size()));
  if (added) s.threads.push_back({proc, std::string(tid), "", false, {}});
  return seen = it->second;
}

void Merger::Impl::Parse(Source& s, EventParser& parser) {
  if (s.cls.kind == Kind::kSystem) return ParseMetrics(s, parser);
  std::vector<Diagnostic> diags;
  ScanLimits limits;
  limits.max_depth = opt.max_depth;
  TopLevel top;  // its views point into the input, which goes after this parse
  bool ok = ScanTrace(
      std::string_view(s.data.data(), s.size), limits, &top, [&](Span sp) { ParseEvent(s, sp, false, parser); }, &diags,
      [&](uint64_t at) { return ParseEvent(s, Span{at, 0}, true, parser); });
  for (Diagnostic& d : diags) {
    if (d.code == Code::kTooDeep || d.code == Code::kBadEvent) {
      s.report.events_read++;
      s.report.events_dropped++;
    }
    Warn(s, d.code, d.offset, d.message);
  }
  if (!ok) {
    s.report.included = false;
    s.report.note = "not a trace";
    return;
  }
  if (!top.base_time_ns.empty()) s.base_time_ns = std::string(Trim(top.base_time_ns));
}

// open_end: the event's length is not known yet (sp.length is ignored) — one
// that is not well formed returns 0 untouched, for the scanner to find its end
// and call again with the span, and that call reports it. Returns the offset
// past the event.
uint64_t Merger::Impl::ParseEvent(Source& s, Span sp, bool open_end, EventParser& parser) {
  EventFields f;
  std::string error;
  Tick("parse", sp.offset, s.size);
  if (cancelled) return 0;
  const size_t mark = s.arena.size();
  if (open_end) {
    size_t length = 0;
    if (!parser.Parse(s.data.data() + sp.offset, s.size - sp.offset, &f, &error, &s.arena, &s.ids, &length) ||
        length > UINT32_MAX) {
      s.arena.truncate(mark);
      return 0;
    }
    sp.length = length;
    s.report.events_read++;
  } else {
    s.report.events_read++;
    if (sp.length > UINT32_MAX) {
      s.report.events_dropped++;
      Warn(s, Code::kTooLarge, sp.offset, "event larger than 4 GB; dropped");
      return 0;
    }
    if (!parser.Parse(s.data.data() + sp.offset, sp.length, &f, &error, &s.arena, &s.ids)) {
      s.arena.truncate(mark);
      s.report.events_dropped++;
      const bool too_long = error.rfind(kStringTooLong, 0) == 0;
      Warn(s, too_long ? Code::kTooLarge : Code::kBadJson, sp.offset + parser.error_offset(),
           "event dropped: " + error);
      return 0;
    }
  }
  AddEvent(s, sp, f, mark);
  return sp.offset + sp.length;
}

// Indexes a parsed event whose template starts at `mark` in the arena.
void Merger::Impl::AddEvent(Source& s, Span sp, const EventFields& f, size_t mark) {
  // From here on, an event that is not kept takes its template back out.
  struct Cut {
    ByteBuffer& arena;
    size_t mark;
    bool keep = false;
    ~Cut() {
      if (!keep) arena.truncate(mark);
    }
  } cut{s.arena, mark};
  if (f.ph.empty()) {
    s.report.events_dropped++;
    return Warn(s, Code::kBadEvent, sp.offset, "event has no \"ph\"; dropped");
  }
  const char ph = f.ph[0];
  if (ph == 'M' && f.name == "process_name" && !f.arg_start_time.empty()) {
    // smdebug's clock header; a repeated header re-bases the events after it.
    auto base = ParseMicros(f.arg_start_time);
    if (!base) {
      s.report.events_dropped++;
      return Warn(s, Code::kBadEvent, sp.offset, "start_time_since_epoch_in_micros is not a number");
    }
    if (s.have_header && *base != s.header_base)
      Warn(s, Code::kNote, sp.offset, "clock header repeated with a new start time; later events re-based");
    s.header_base = *base;
    s.have_header = true;
    s.report.metadata_merged++;
    return;
  }
  uint32_t proc = ProcIndex(s, Unquote(f.pid));
  if (ph == 'M' && f.name == "process_name") {
    s.procs[proc].name = std::string(f.arg_name);
    s.report.metadata_merged++;
    return;
  }
  uint32_t thread = ThreadIndex(s, proc, Unquote(f.tid));
  if (ph == 'M' && f.name == "thread_name") {
    s.threads[thread].name = std::string(f.arg_name);
    s.report.metadata_merged++;
    return;
  }
  Event e;
  e.offset = mark;
  e.length = static_cast<uint32_t>(s.arena.size() - mark);
  e.thread = thread;
  e.ph = ph;
  if (IsPairPhase(ph)) {
    std::string key = std::string(f.cat) + '\x1f' + std::string(IdKey(f.id.empty() ? f.id2_global : f.id));
    e.pair_key = s.pair_keys.try_emplace(key, static_cast<uint32_t>(s.pair_keys.size())).first->second;
  }
  if (!f.ts.empty()) {
    auto ts = ParseMicros(f.ts);
    if (!ts) {
      s.report.events_dropped++;
      return Warn(s, Code::kBadEvent, sp.offset, "\"ts\" is not a number in range; event dropped");
    }
    e.ts = *ts;
    e.has_ts = true;
  } else if (ph != 'M') {
    s.report.events_dropped++;
    return Warn(s, Code::kBadEvent, sp.offset, "event has no \"ts\"; dropped");
  }
  if (!f.dur.empty()) {
    if (f.dur_ns < 0) Warn(s, Code::kBadEvent, sp.offset, "\"dur\" is negative or not a number; written as 0");
    else if (!IsPairPhase(ph)) e.dur = f.dur_ns;
  }
  if (s.have_header) {
    e.ts = AddNs(e.ts, s.header_base);
    e.based = true;
  }
  auto idx = static_cast<uint32_t>(s.parsed.size());
  if (!f.arg_step_num.empty() && s.cls.kind == Kind::kPythonTimeline) {
    if (auto step = ParseScaled(f.arg_step_num, 1)) s.step_marks.push_back({*step, idx});
  }
  constexpr std::string_view kProfilerStep = "ProfilerStep#";
  if (f.name.substr(0, kProfilerStep.size()) == kProfilerStep) {
    if (auto step = ParseScaled(f.name.substr(kProfilerStep.size()), 1)) s.profiler_steps.push_back({*step, idx});
  }
  cut.keep = true;
  e.source = s.key;  // its index until Join() sorts the sources
  s.has_pairs |= ph == 'B' || ph == 'E' || IsPairPhase(ph);
  if (e.has_ts) (e.based ? s.based_events : s.relative_events) = true;
  s.parsed.push_back(e);
}

void Merger::Impl::ParseMetrics(Source& s, EventParser& parser) {
  std::string_view data(s.data.data(), s.size);
  ScanLines(data, [&](Span sp) {
    Tick("parse", sp.offset, s.size);
    if (cancelled) return;
    MetricFields m;
    std::string error;
    s.report.events_read++;
    bool last = sp.offset + sp.length >= s.size;
    if (!parser.ParseMetric(s.data.data() + sp.offset, sp.length, &m, &error) ||
        m.timestamp.empty() || m.value.empty() || !IsPortableNumber(m.value)) {
      s.report.events_dropped++;
      if (last) return Warn(s, Code::kNote, sp.offset, "last line is incomplete (writer was still appending); skipped");
      return Warn(s, Code::kBadJson, sp.offset,
                  "metrics line dropped: " + (error.empty() ? std::string("missing or bad Timestamp/Value") : error));
    }
    auto ts = ParseScaled(m.timestamp, 1000000000);
    if (!ts) {
      s.report.events_dropped++;
      return Warn(s, Code::kBadEvent, sp.offset, "Timestamp is not a number in range; line dropped");
    }
    uint32_t proc = ProcIndex(s, m.node.empty() ? std::string_view(s.cls.node) : m.node);
    Event e;
    e.offset = s.arena.size();
    // One counter track per node and metric, every sample.
    ByteBuffer& a = s.arena;
    a.append("{\"name\":\"");
    a.append(m.name);
    a.push_back('_');
    a.append(m.dimension);
    a.append("\",\"ph\":\"C\",\"ts\":");
    a.push_back(kTsMark);
    a.append(",\"pid\":");
    a.push_back(kPidMark);
    a.append(",\"tid\":");
    a.push_back(kTidMark);
    a.append(",\"args\":{\"value\":");
    a.append(m.value);
    a.append("}}");
    e.length = static_cast<uint32_t>(s.arena.size() - e.offset);
    e.thread = ThreadIndex(s, proc, "");
    e.ph = 'C';
    e.ts = *ts;
    e.has_ts = true;
    e.based = true;
    e.source = s.key;
    s.parsed.push_back(e);
  });
}

// Joins the sources' events in path order (deterministic whatever order the

}  // namespace tracemerge
