#include "parse.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "layout.h"
#include "numbers.h"
#include "stages.h"
#include "simdjson.h"
#include "tokenizer.h"

namespace tracemerge {

static_assert(kPad >= simdjson::SIMDJSON_PADDING, "the parsers read this far past an input's end");

namespace {

// The state of one source's parse: lookup tables that die with it. Its
// format (formats/format.h) reads what its events mean.
class SourceParser : public LineContext {
 public:
  // data: the whole file (or nothing, for a source read in pieces).
  SourceParser(std::string_view data, ParsedSource& s, EventParser& parser, Ticker* ticker)
      : data_(data.data()), size_(data.size()), s_(s), parser_(parser), ticker_(ticker), format_(FormatOf(s.cls.format)) {}

  // A trace's events; false when the file is not a trace.
  bool Trace(int max_depth);
  // Lines its format reads itself (system metrics), or its records (an XSpace's planes);
  // false when it reads neither.
  bool Lines() {
    const std::string_view data(data_, size_);
    if (std::unique_ptr<RecordReader> r = format_.Records(s_, *this)) {
      const size_t n = r->Read(data, 0);
      r->End(data.substr(n), n);
      return true;
    }
    return format_.ReadLines(s_, data, *this);
  }
  uint64_t ids() const { return ids_.size(); }

  // LineContext
  EventParser& parser() override { return parser_; }
  uint32_t Thread(std::string_view pid, std::string_view tid) override { return ThreadIndex(ProcIndex(pid), tid); }
  bool Tick(uint64_t at) override {
    if (ticker_) ticker_->Tick("parse", at, size_);
    return !Cancelled();
  }

 private:
  bool Cancelled() { return ticker_ && ticker_->cancelled(); }
  uint64_t Event(Span span, bool open_end);
  void Add(Span span, const EventFields& f, size_t mark);
  bool ProcessMetadata(Span span, const EventFields& f, uint32_t proc);
  bool ReadTimes(Span span, const EventFields& f, char ph, tracemerge::Event* e);
  std::string TrackName(std::string_view text, uint64_t offset);
  uint32_t ProcIndex(std::string_view pid);
  uint32_t ThreadIndex(uint32_t proc, std::string_view tid);

  const char* data_;
  uint64_t size_;
  ParsedSource& s_;
  EventParser& parser_;
  Ticker* ticker_;
  const Format& format_;
  std::unordered_map<std::string, uint32_t> proc_ix_, thread_ix_;
  // The process and thread last seen by a hash of their text; an entry may
  // be stale or another's, so it is checked.
  std::array<uint32_t, 64> proc_seen_{}, thread_seen_{};
  std::array<std::pair<uint64_t, uint64_t>, kConversions> converted_{};  // per Conversion bit: (events, first offset)
  std::set<std::string> flow_starts_;                 // v1 flows started: "cat\x1fname\x1fid"
  std::pair<uint64_t, uint64_t> flow_reused_{0, 0};  // (s events that reuse one, first offset)
  IdTable ids_;                                         // original id → local number
  std::unordered_map<std::string, uint32_t> pair_keys_;  // async "cat\x1fid" → number
};

// Events of a few processes and threads interleave: a small cache by hash
// answers most lookups without building a key for the map.
uint32_t& Seen(std::array<uint32_t, 64>& cache, std::string_view text, uint32_t salt = 0) {
  uint64_t h = 0xcbf29ce484222325ull ^ salt;  // FNV-1a: pids and tids are short
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return cache[(h * 0x9E3779B97F4A7C15ull) >> 58];
}

uint32_t SourceParser::ProcIndex(std::string_view pid) {
  uint32_t& seen = Seen(proc_seen_, pid);
  if (seen < s_.procs.size() && s_.procs[seen].pid_text == pid) return seen;
  auto [it, added] = proc_ix_.try_emplace(std::string(pid), static_cast<uint32_t>(s_.procs.size()));
  if (added) s_.procs.push_back({std::string(pid), "", ""});
  return seen = it->second;
}

uint32_t SourceParser::ThreadIndex(uint32_t proc, std::string_view tid) {
  uint32_t& seen = Seen(thread_seen_, tid, proc);
  if (seen < s_.threads.size() && s_.threads[seen].proc == proc && s_.threads[seen].tid_text == tid) return seen;
  std::string key = std::to_string(proc) + '\x1f' + std::string(tid);
  auto [it, added] = thread_ix_.try_emplace(key, static_cast<uint32_t>(s_.threads.size()));
  if (added) s_.threads.push_back({proc, std::string(tid), ""});
  return seen = it->second;
}

bool SourceParser::Trace(int max_depth) {
  std::vector<Diagnostic> diags;
  ScanLimits limits;
  limits.max_depth = max_depth;
  TopLevel top;  // its views point into the input, which goes after this parse
  const bool ok = ScanTrace(
      std::string_view(data_, size_), limits, &top, [&](Span sp) { Event(sp, false); }, &diags,
      [&](uint64_t at) { return Event(Span{at, 0}, true); });
  for (Diagnostic& d : diags) {
    if (d.code == Code::kTooDeep || d.code == Code::kBadEvent) {
      s_.report.events_read++;
      s_.report.events_dropped++;
    }
    s_.Warn(d.code, d.offset, d.message);
  }
  for (unsigned k = 0; k < kConversions; k++)  // what was written in Perfetto's forms, said once each
    if (const auto [n, first] = converted_[k]; n)
      s_.Warn(Code::kNote, first, std::to_string(n) + " " + ConversionText(1u << k) + " (the first at this byte)");
  if (flow_reused_.first)  // the data's own: ids are renumbered per file, not per flow
    s_.Warn(Code::kNote, flow_reused_.second,
            std::to_string(flow_reused_.first) + " flow starts (ph s) reuse a flow id (with its cat and name) "
            "already started in this file: Perfetto links the first only and counts flow_duplicate_id "
            "(the first at this byte)");
  if (!ok) return false;
  format_.ReadTop(s_, top);
  s_.merged_output = top.tracemerge_output;
  return true;
}

// open_end: the event's length is not known yet (sp.length is ignored) — one
// that is not well formed returns 0 untouched, for the scanner to find its end
// and call again with the span, and that call reports it. Returns the offset
// past the event.
uint64_t SourceParser::Event(Span sp, bool open_end) {
  EventFields f;
  std::string error;
  if (!Tick(sp.offset)) return 0;
  const size_t mark = s_.arena.size();
  if (open_end) {
    size_t length = 0;
    if (!parser_.Parse(data_ + sp.offset, size_ - sp.offset, &f, &error, &s_.arena, &ids_, &length) ||
        length > UINT32_MAX) {
      s_.arena.truncate(mark);
      return 0;
    }
    sp.length = length;
    s_.report.events_read++;
  } else {
    s_.report.events_read++;
    if (sp.length > UINT32_MAX) {
      s_.report.events_dropped++;
      s_.Warn(Code::kTooLarge, sp.offset, "event larger than 4 GB; dropped");
      return 0;
    }
    if (!parser_.Parse(data_ + sp.offset, sp.length, &f, &error, &s_.arena, &ids_)) {
      s_.arena.truncate(mark);
      s_.report.events_dropped++;
      const bool too_long = parser_.error_kind() == ParseError::kStringTooLong;
      s_.Warn(too_long ? Code::kTooLarge : Code::kBadJson, sp.offset + parser_.error_offset(),
              "event dropped: " + error);
      return 0;
    }
  }
  Add(sp, f, mark);
  return sp.offset + sp.length;
}

// A track's name, as event text: no surrogate escape and no byte that is not UTF-8 reaches the
// output (Perfetto refuses them).
std::string SourceParser::TrackName(std::string_view text, uint64_t offset) {
  bool changed = false, bad = false;
  std::string out = WithValidUtf8(WithoutSurrogateEscapes(text, &changed), &bad);
  if (changed && converted_[6].first++ == 0) converted_[6].second = offset;  // (kSurrogate = 1 << 6)
  if (bad && converted_[8].first++ == 0) converted_[8].second = offset;      // (kBadUtf8 = 1 << 8)
  return out;
}
static_assert(kSurrogate == 1u << 6 && kBadUtf8 == 1u << 8, "the bits counted for names");

// A process's name (merged into its track: true) or labels (taken, and the event
// carried: its template, repaired, counts the repair).
bool SourceParser::ProcessMetadata(Span sp, const EventFields& f, uint32_t proc) {
  if (f.name == "process_name") {
    s_.procs[proc].name = TrackName(f.arg(ArgKey::kName), sp.offset);
    s_.report.metadata_merged++;
    return true;
  }
  if (f.name == "process_labels") {
    bool changed = false, bad = false;
    s_.procs[proc].labels = WithValidUtf8(WithoutSurrogateEscapes(f.arg(ArgKey::kLabels), &changed), &bad);
  }
  return false;
}

// An event's ts (an M event may have none) and dur into *e, on the file's clock
// header when it has one; false when it is dropped (counted, said).
bool SourceParser::ReadTimes(Span sp, const EventFields& f, char ph, tracemerge::Event* e) {
  SourceReport& r = s_.report;
  if (!f.ts.empty()) {
    auto ts = ParseMicros(f.ts);
    if (!ts) {
      r.events_dropped++;
      s_.Warn(Code::kBadEvent, sp.offset, "\"ts\" is not a number in range; event dropped");
      return false;
    }
    e->ts = *ts;
    e->has_ts = true;
  } else if (ph != 'M') {
    r.events_dropped++;
    s_.Warn(Code::kBadEvent, sp.offset, "event has no \"ts\"; dropped");
    return false;
  }
  if (!f.dur.empty()) {
    if (f.dur_ns < 0) s_.Warn(Code::kBadEvent, sp.offset, "\"dur\" is negative or not a number; written as 0");
    else if (!IsPairPhase(ph)) e->dur = f.dur_ns;
  }
  if (s_.said.header) {
    e->ts = AddNs(e->ts, s_.said.header_base);
    e->based = true;
  }
  return true;
}

// Indexes a parsed event whose template starts at `mark` in the arena.
void SourceParser::Add(Span sp, const EventFields& f, size_t mark) {
  // From here on, an event that is not kept takes its template back out.
  struct Cut {
    ByteBuffer& arena;
    size_t mark;
    bool keep = false;
    ~Cut() {
      if (!keep) arena.truncate(mark);
    }
  } cut{s_.arena, mark};
  SourceReport& r = s_.report;
  if (f.ph.empty()) {
    r.events_dropped++;
    return s_.Warn(Code::kBadEvent, sp.offset,
                   f.ph_not_string ? "\"ph\" is not a string; dropped" : "event has no \"ph\"; dropped");
  }
  const char ph = f.ph[0];
  switch (format_.ReadHeader(s_, f, sp.offset)) {  // a clock header re-bases the events after it
    case Header::kTaken: r.metadata_merged++; return;
    case Header::kBad: r.events_dropped++; return;
    case Header::kNo: break;
  }
  const uint32_t proc = ProcIndex(Unquote(f.pid));
  if (ph == 'M' && ProcessMetadata(sp, f, proc)) return;
  const uint32_t thread = ThreadIndex(proc, Unquote(f.tid));
  if (ph == 'M' && f.name == "thread_name") {
    s_.threads[thread].name = TrackName(f.arg(ArgKey::kName), sp.offset);
    r.metadata_merged++;
    return;
  }
  if (s_.arena.size() > kMaxTemplateBytes) {  // (1 TB of one file's events: no machine holds them)
    r.events_dropped++;
    return s_.Warn(Code::kTooLarge, sp.offset, "this file's events beyond 1 TB; dropped");
  }
  tracemerge::Event e;
  e.offset = mark;
  e.length = static_cast<uint32_t>(s_.arena.size() - mark);
  e.thread = thread;
  e.ph = ph;
  if (IsPairPhase(ph)) {
    std::string key = std::string(f.cat) + '\x1f' + std::string(IdKey(f.id.empty() ? f.id2_global : f.id));
    e.pair_key = pair_keys_.try_emplace(key, static_cast<uint32_t>(pair_keys_.size())).first->second;
  }
  if (!ReadTimes(sp, f, ph, &e)) return;
  if (ph == 's' && !flow_starts_.insert(std::string(f.cat) + '\x1f' + std::string(f.name) + '\x1f' + std::string(f.id)).second &&
      flow_reused_.first++ == 0)
    flow_reused_.second = sp.offset;
  for (unsigned k = 0; f.converted >> k; k++)
    if (f.converted >> k & 1 && converted_[k].first++ == 0) converted_[k].second = sp.offset;
  cut.keep = true;
  s_.has_pairs |= ph == 'B' || ph == 'E' || IsPairPhase(ph);
  if (e.has_ts) (e.based ? s_.based_events : s_.relative_events) = true;
  s_.events.push_back(e);
  format_.ReadEvent(s_, static_cast<uint32_t>(s_.events.size() - 1), ph, f);
}

// Found in a folder, an earlier merge's output would count its events twice.
void SkipEarlierOutput(Classification& c, const std::string& whose) {
  c.kind = Kind::kSkipped;
  c.quiet = true;
  c.reason = "an earlier merge's output (" + whose + "); merged again it would count its events twice "
             "(name it by itself to merge it anyway)";
}

// What is left of a source whose events are not merged: its report and warnings.
ParsedSource Dropped(ParsedSource s) {
  ParsedSource d;
  d.path = std::move(s.path);
  d.arrival = s.arrival;
  d.in_folder = s.in_folder;
  d.cls = std::move(s.cls);
  d.report = std::move(s.report);
  d.warnings = std::move(s.warnings);
  d.report.events_read = 0;
  d.report.events_dropped = 0;
  d.report.metadata_merged = 0;
  return d;
}

// What the first bytes say: classified and reported; false when it is not to be parsed.
bool Begin(ParsedSource& s, const SourceBytes& in, std::string_view head, const ParseLimits& limits) {
  s.path = in.path;
  s.arrival = in.arrival;
  s.in_folder = in.in_folder;
  SourceReport& r = s.report;
  r.path = s.path;
  r.bytes = in.bytes_given;
  r.inflated_bytes = in.size;
  s.cls = Classify(s.path, head.substr(0, 4096));
  if (s.cls.earlier_output && in.in_folder) SkipEarlierOutput(s.cls, "named *_merged_timeline.json as tracemerge and smdebug name theirs");
  r.kind = s.cls.kind;
  r.node = s.cls.node;
  if (s.cls.kind == Kind::kSkipped) {
    r.included = false;
    r.note = "skipped: " + s.cls.reason;
    s.Warn(s.cls.quiet ? Code::kSkipped : Code::kNotATrace, 0, "skipped: " + s.cls.reason);
    return false;
  }
  if (s.cls.kind == Kind::kSidecar) {
    r.included = false;
    r.note = s.cls.reason;
    return false;
  }
  if (!(limits.kinds & KindBit(s.cls.kind))) {
    r.included = false;
    r.note = "filtered out (kind not selected)";
    return false;
  }
  return true;
}

// Once its events are read.
void Finished(ParsedSource& s, bool in_folder, uint64_t ids) {
  s.id_count = ids;
  DropStraySteps(s);
  if (s.merged_output || s.cls.earlier_output) {  // an earlier merge's output, found in a folder or named
    if (in_folder) {
      SkipEarlierOutput(s.cls, "tracemerge's metadata says so");
      s.report.kind = s.cls.kind;
      s.report.included = false;
      s.report.note = "skipped: " + s.cls.reason;
      s.Warn(Code::kSkipped, 0, s.report.note);
      s = Dropped(std::move(s));
    } else {
      s.Warn(Code::kNote, 0,
             "an earlier merge's output, merged because it was named: its events count again if its sources "
             "are merged too");
    }
  }
}

// A source read as its bytes come: its format's records, one at a time.
class PieceParse final : public Pieces {
 public:
  PieceParse(const SourceBytes& in, const ParseLimits& limits, EventParser& parser, Ticker* ticker, Budget* budget)
      : parse_(Begin(s_, in, in.data.view(), limits)), p_(std::string_view(), s_, parser, ticker),
        r_(parse_ ? FormatOf(s_.cls.format).Records(s_, p_) : nullptr), budget_(budget) {}
  bool reads() const { return r_ != nullptr; }
  size_t Take(std::string_view bytes, uint64_t at) override {
    const size_t n = r_->Read(bytes, at);
    if (n) MoveOut(at + n);
    return n;
  }
  bool Stopped() const override { return failed_ || r_->Stopped(); }
  // The rest (in.data), and the source.
  ParsedSource Finish(SourceBytes& in) {
    r_->End(failed_ ? std::string_view() : std::string_view(in.data.data(), in.size), in.taken);
    MoveOut(in.taken + in.size);
    if (failed_) DropUnmoved();
    s_.report.bytes = in.bytes_given;
    s_.report.inflated_bytes = in.taken + in.size;
    std::vector<Diagnostic> read = std::move(s_.warnings);  // (the stream's first, as for a source read whole)
    s_.warnings = std::move(in.warnings);
    for (Diagnostic& d : read) s_.warnings.push_back(std::move(d));
    Finished(s_, in.in_folder, p_.ids());
    return std::move(s_);
  }

 private:
  // Beyond the memory budget, the records' templates go to the store as they are read (each
  // record's in time order), not once the file is: what it holds is a record's, not the file's.
  void MoveOut(uint64_t at) {
    if (!budget_ || failed_ || s_.events.size() == moved_ || !(s_.stored || budget_->MustStore(s_))) return;
    if (StoreRun(s_, moved_, *budget_)) return void(moved_ = s_.events.size());
    if (!s_.stored) return void(budget_ = nullptr);  // (in memory, then, all of it: as a file read whole)
    // Some in the store, the rest not: the rest is dropped (DropUnmoved), the file read no further.
    s_.Warn(Code::kIo, at, "could not move this file's events out of memory; dropped the " +
                               std::to_string(s_.events.size() - moved_) + " read last and read no further");
    failed_ = true;
  }
  void DropUnmoved() {
    s_.report.events_dropped += s_.events.size() - moved_;
    s_.events.truncate(moved_);
    s_.arena.clear();
    auto gone = [&](uint32_t event) { return event >= moved_; };
    s_.steps.erase(std::remove_if(s_.steps.begin(), s_.steps.end(), [&](const auto& m) { return gone(m.second); }), s_.steps.end());
    s_.anchors.erase(std::remove_if(s_.anchors.begin(), s_.anchors.end(), [&](const Anchor& a) { return gone(a.event); }),
                     s_.anchors.end());
  }

  ParsedSource s_;
  bool parse_;
  SourceParser p_;
  std::unique_ptr<RecordReader> r_;
  Budget* budget_;       // null: no store, or it failed (all in memory)
  size_t moved_ = 0;     // events whose templates are in the store
  bool failed_ = false;  // the store failed after taking some: the file read no further
};

}  // namespace

std::unique_ptr<Pieces> ReadInPieces(const SourceBytes& in, const ParseLimits& limits, EventParser& parser, Ticker* ticker,
                                     Budget* budget) {
  auto p = std::make_unique<PieceParse>(in, limits, parser, ticker, budget);
  return p->reads() ? std::move(p) : nullptr;
}

ParsedSource ParseSource(SourceBytes& in, const ParseLimits& limits, EventParser& parser, Ticker* ticker) {
  if (in.pieces) {
    ParsedSource s = static_cast<PieceParse&>(*in.pieces).Finish(in);  // (only ReadInPieces makes them)
    in.pieces.reset();
    return s;
  }
  ParsedSource s;
  s.warnings = std::move(in.warnings);
  if (!Begin(s, in, std::string_view(in.data.data(), in.size), limits)) return s;
  // Templates are about as long as the input; the layout stage shrinks them to fit.
  s.arena.reserve(in.size + in.size / 8);
  SourceParser p(std::string_view(in.data.data(), in.size), s, parser, ticker);
  if (!p.Lines() && !p.Trace(limits.max_depth)) {
    s.report.included = false;
    s.report.note = "not a trace";
  }
  Finished(s, in.in_folder, p.ids());
  return s;
}

}  // namespace tracemerge
