// Output: generated track names, carried metadata, then the ordered events
// rewritten one by one from their templates (with Options.threads, time
// slices rendered on all of them in turn), then the report. Output leaves in
// ~1 MB chunks (optionally gzipped), never as one giant string.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "event_parser.h"
#include "numbers.h"
#include "stages.h"

namespace tracemerge {
namespace {

constexpr size_t kChunk = 1 << 20;

class ChunkWriter {
 public:
  ChunkWriter(const Sink& sink, bool gzip, Report* report) : sink_(sink), report_(report) {
    if (gzip) gz_ = std::make_unique<GzipWriter>([this](std::string_view b) { Emit(b); });
  }
  ByteBuffer& buf() { return buf_; }
  void MaybeFlush() {
    if (buf_.size() >= kChunk) Flush();
  }
  void Flush() {
    if (buf_.empty()) return;
    if (gz_) gz_->Write(buf_.view());
    else Emit(buf_.view());
    buf_.clear();
  }
  void Finish() {
    Flush();
    if (gz_) gz_->Finish();
  }
  // Sends bytes rendered elsewhere, after those buffered here, in chunks.
  void Put(std::string_view bytes) {
    Flush();
    for (size_t at = 0; at < bytes.size(); at += kChunk) {
      if (gz_) gz_->Write(bytes.substr(at, kChunk));
      else Emit(bytes.substr(at, kChunk));
    }
  }

 private:
  void Emit(std::string_view b) {
    report_->bytes_written += b.size();
    sink_(b);
  }
  const Sink& sink_;
  Report* report_;
  std::unique_ptr<GzipWriter> gz_;
  ByteBuffer buf_;
};

}  // namespace

// Escapes for a JSON string; invalid UTF-8 (file names from other machines)
// becomes U+FFFD so the output stays valid.
std::string JsonEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); i++) {
    unsigned char c = s[i];
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else if (c == 0x7f) {  // (valid raw, but Perfetto's reader of top-level keys refuses it)
      out += "\\u007f";
    } else if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (const size_t n = Utf8SequenceLength(s, i)) {
      out.append(s.substr(i, n));
      i += n - 1;
    } else {
      out += "\xEF\xBF\xBD";
    }
  }
  return out;
}

std::string JsonQuote(std::string_view s) { return "\"" + JsonEscape(s) + "\""; }

// Bits of the placeholder bytes (0x01–kLastMark: nothing else below 0x20 is
// in a template) among the 16 at p.
uint32_t MarkBits(const char* p) {
#if defined(__SSE2__)
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(kLastMark)), x)));
#else
  uint32_t bits = 0;
  for (int k = 0; k < 16; k++) bits |= uint32_t{static_cast<unsigned char>(p[k]) <= kLastMark} << k;
  return bits;
#endif
}

// Appends one event: its template with the placeholders filled in. Copies 16
// bytes at a time while it looks for the next placeholder, so the template
// must stay readable 16 bytes past its end (kTemplateSlack).
void Expand(std::string_view tpl, uint32_t pid, uint32_t tid, int64_t ts, uint64_t id_base, ByteBuffer* out) {
  const char* p = tpl.data();
  const char* const end = p + tpl.size();
  char* w = out->Room(tpl.size() + 16);
  for (;;) {
    uint32_t marks = 0;
    while (p < end && !(marks = MarkBits(p))) {
      std::memcpy(w, p, 16);
      p += 16;
      w += 16;
    }
    const int k = marks ? __builtin_ctz(marks) : 0;
    if (p >= end || p + k >= end) {  // the copy ran past the end: take the overshoot back
      if (p < end) std::memcpy(w, p, 16);
      w += end - p;
      break;
    }
    std::memcpy(w, p, 16);  // up to the placeholder (the rest is overwritten)
    out->SetEnd(w + k);
    p += k;
    switch (*p++) {
      case kPidMark: out->AppendUint(pid); break;
      case kTidMark: out->AppendUint(tid); break;
      case kTsMark: AppendMicros(*out, ts); break;
      case kIdMark:
      case kBindMark: {
        const bool bind = p[-1] == kBindMark;
        uint64_t local = 0;
        while (p < end && *p != kIdEnd) local = local * 10 + static_cast<uint64_t>(*p++ - '0');
        p++;  // kIdEnd
        out->AppendUint((bind ? kBindIdBase : 0) + id_base + local);
        break;
      }
    }
    w = out->Room(static_cast<size_t>(end - p) + 16);
  }
  out->SetEnd(w);
}

namespace {

// What the writer needs of one source: its templates, tracks and id base,
// and, for stored templates, the window of them last read back.
struct SourceOut {
  const ParsedSource* s;
  const SourceTracks* tracks;
  uint64_t id_base = 0;
  std::string window;  // a stored range: [window_at, +size)
  uint64_t window_at = 0;
  std::string window_event;  // the event being written, from the window
};

// An event's template: from the arena, or read back from the store through the
// source's window. False when the store fails.
bool Template(SourceOut& so, const Event& e, TemplateStore* store, std::string_view* out) {
  const ParsedSource& s = *so.s;
  if (!s.stored) {
    *out = s.arena.view().substr(e.offset, e.length);
    return true;
  }
  constexpr uint64_t kWindow = 256 << 10;
  if (e.offset < so.window_at || e.offset + e.length > so.window_at + so.window.size()) {
    so.window.resize(std::max<uint64_t>(e.length, std::min(kWindow, s.stored_bytes - e.offset)));
    so.window_at = e.offset;
    if (!store->Get(s.arrival, e.offset, so.window.size(), so.window.data())) {
      so.window.clear();
      return false;
    }
  }
  // Copied out with slack after it, as Expand() reads.
  so.window_event.assign(so.window, e.offset - so.window_at, e.length);
  so.window_event.append(kTemplateSlack, ' ');
  *out = std::string_view(so.window_event).substr(0, e.length);
  return true;
}

// Appends one event after its separator (none before the first); false when
// its template cannot be read (report->fatal says why).
bool RenderEvent(SourceOut& so, const Event& e, TemplateStore* store, bool* first, ByteBuffer& out, Report* report) {
  const ParsedSource& s = *so.s;
  const std::vector<uint32_t>& lanes = so.tracks->tids[e.thread];
  const uint32_t tid = lanes.empty() ? 0 : lanes[std::min<size_t>(e.lane, lanes.size() - 1)];
  std::string_view tpl;
  if (!Template(so, e, store, &tpl)) {
    report->fatal = Diagnostic{Code::kIo, s.path, 0, "could not read this file's events back from the store"};
    return false;
  }
  out.append(*first ? "\n" : ",\n");
  *first = false;
  Expand(tpl, so.tracks->pid[s.threads[e.thread].proc], tid, e.ts, so.id_base, &out);
  return true;
}

// Renders the events of a cursor into out, counting them per source in kept.
// After every batch, and after every event once out holds a chunk,
// after(events so far) may send out's bytes, or stop by returning false.
template <class After>
bool RenderEvents(std::vector<SourceOut>& sources, TimeOrder::Cursor& cursor, TemplateStore* store, bool* first,
                  ByteBuffer& out, std::vector<uint64_t>& kept, Report* report, After&& after) {
  std::vector<EventRef> batch(4096);
  uint64_t n = 0;
  while (size_t got = cursor.Next(batch.data(), batch.size())) {
    for (size_t k = 0; k < got; k++) {
      // The next events and their templates are far apart in memory: ask early.
      if (k + 16 < got) __builtin_prefetch(&sources[batch[k + 16].source].s->events[batch[k + 16].index]);
      if (k + 8 < got) {  // (all of its template's cache lines: most are 60 to 150 bytes)
        const ParsedSource& s = *sources[batch[k + 8].source].s;
        if (const Event& e = s.events[batch[k + 8].index]; !s.stored)
          for (uint64_t at = e.offset & ~uint64_t{63}; at < e.offset + e.length; at += 64) __builtin_prefetch(s.arena.data() + at);
      }
      SourceOut& so = sources[batch[k].source];
      if (!RenderEvent(so, so.s->events[batch[k].index], store, first, out, report)) return false;
      kept[batch[k].source]++;
      if (out.size() >= kChunk && !after(n + k + 1)) return false;
    }
    n += got;
    if (!after(n)) return false;
  }
  return true;
}

// Renders slices of the order on helper threads, one ahead of the caller,
// who takes each when its turn comes: with n threads in all, helper h
// (1 … n - 1) renders the slices k with k % n == h, the caller those with
// k % n == 0. Not while templates are stored: the store's reads are not shared.
class SliceRenderers {
 public:
  SliceRenderers(std::vector<SourceOut>& sources, std::vector<TimeOrder::Cursor>& slices, unsigned threads) {
    const size_t n = std::min<size_t>(threads, slices.size());
    lanes_ = std::vector<Lane>(n > 1 ? n - 1 : 0);
    for (size_t h = 0; h < lanes_.size(); h++)
      lanes_[h].thread = std::thread([this, h, n, &sources, &slices] {
        Lane& lane = lanes_[h];
        ByteBuffer buf;
        std::vector<uint64_t> kept;
        Report unused;  // (no store: rendering cannot fail)
        for (size_t k = h + 1; k < slices.size(); k += n) {
          {
            std::lock_guard<std::mutex> lock(lane.mu);
            if (lane.spare.capacity() > buf.capacity()) buf.swap(lane.spare);
          }
          buf.clear();
          kept.assign(sources.size(), 0);
          bool first = false;  // (slice 0 came before)
          RenderEvents(sources, slices[k], nullptr, &first, buf, kept, &unused, [&](uint64_t) { return !stop_; });
          std::unique_lock<std::mutex> lock(lane.mu);
          lane.cv.wait(lock, [&] { return !lane.ready || stop_; });
          if (stop_) return;
          lane.ready.emplace(std::move(buf));
          lane.ready_kept.swap(kept);
          lane.cv.notify_all();
        }
      });
  }
  ~SliceRenderers() {
    stop_ = true;
    for (Lane& lane : lanes_) {
      { std::lock_guard<std::mutex> lock(lane.mu); }
      lane.cv.notify_all();
    }
    for (Lane& lane : lanes_)
      if (lane.thread.joinable()) lane.thread.join();
  }
  // Whose slice k is: -1 the caller's, else the helper that renders it.
  int Owner(size_t k) const {
    const size_t n = lanes_.size() + 1;
    return k % n == 0 ? -1 : static_cast<int>(k % n) - 1;
  }
  // Helper h's next slice, once rendered; adds its events by source to kept.
  ByteBuffer Take(int h, std::vector<uint64_t>& kept) {
    Lane& lane = lanes_[static_cast<size_t>(h)];
    std::unique_lock<std::mutex> lock(lane.mu);
    lane.cv.wait(lock, [&] { return lane.ready.has_value(); });
    ByteBuffer buf = std::move(*lane.ready);
    lane.ready.reset();
    for (size_t i = 0; i < kept.size(); i++) kept[i] += lane.ready_kept[i];
    lane.cv.notify_all();
    return buf;
  }
  // A taken slice's buffer, sent: helper h renders its next one into it.
  void GiveBack(int h, ByteBuffer buf) {
    Lane& lane = lanes_[static_cast<size_t>(h)];
    std::lock_guard<std::mutex> lock(lane.mu);
    lane.spare.swap(buf);
  }

 private:
  struct Lane {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<ByteBuffer> ready;   // its next slice, rendered
    std::vector<uint64_t> ready_kept;  // and its events by source
    ByteBuffer spare;
    std::thread thread;
  };
  std::atomic<bool> stop_{false};
  std::vector<Lane> lanes_;  // last: its threads started once the rest is set up
};

// The tracks' names first: the process_name and thread_name metadata of the plan.
void WriteTrackNames(const TrackPlan& tracks, ByteBuffer& out, bool* first) {
  auto begin_event = [&] {
    out.append(*first ? "\n" : ",\n");
    *first = false;
  };
  for (auto& [pid, name] : tracks.process_names) {
    begin_event();
    out.append("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
               ",\"tid\":0,\"args\":{\"name\":\"" + name + "\"}}");
  }
  for (auto& [pid, tid, name] : tracks.thread_names) {
    begin_event();
    out.append("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
               ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":\"" + name + "\"}}");
  }
}

// Each source as the writers see it. Ids stay unique across sources, numbered
// in path order; a file's pieces (one per rank) share its ids.
std::vector<SourceOut> SourcesOut(Job& job, const TrackPlan& tracks) {
  std::vector<SourceOut> sources(job.sources.size());
  uint64_t id_base = 0;
  for (size_t i = 0; i < sources.size(); i++) {
    sources[i].s = &job.sources[i];
    sources[i].tracks = &tracks.sources[i];
    if (job.sources[i].report.piece > 0) {
      sources[i].id_base = sources[i - 1].id_base;
      continue;
    }
    sources[i].id_base = id_base;
    id_base += job.sources[i].id_count;
  }
  return sources;
}

// After the events: the object's end and the report as its metadata.
void WriteTrailer(const Options& options, const Report& report, ByteBuffer& out) {
  if (options.event_array) return out.append("\n]");
  out.append("\n],\n\"displayTimeUnit\":\"ms\",\n\"metadata\":{\"tracemerge\":");
  out.append(report.ToJson());
  // Nothing after the last brace, not even a newline: Perfetto's UI reads in
  // 32 MiB chunks, and a chunk after its end that holds only "\n" fails the trace.
  out.append("}}");
}

}  // namespace

void WriteOutput(Job& job, const TrackPlan& tracks, const OutputOrder& plan, const Options& options, Report* report,
                 const Sink& sink) {
  ChunkWriter w(sink, options.gzip, report);
  ByteBuffer& out = w.buf();
  bool first = true;
  out.append(options.event_array ? "[" : "{\"traceEvents\":[");
  WriteTrackNames(tracks, out, &first);
  std::vector<SourceOut> sources = SourcesOut(job, tracks);
  TemplateStore* store = options.store.get();
  std::vector<uint64_t> kept(sources.size());  // events written, by source
  bool ok = true;
  for (EventRef r : plan.meta) {
    SourceOut& so = sources[r.source];
    if (!(ok = RenderEvent(so, so.s->events[r.index], store, &first, out, report))) break;
    kept[r.source]++;
    w.MaybeFlush();
  }
  const uint64_t total = plan.order.size();
  uint64_t done = 0, report_at = 0;  // events sent; the next progress call (the first at once)
  auto keep_going = [&](uint64_t more) {   // (more: of the slice being written)
    w.MaybeFlush();
    if (!options.progress || done + more < report_at) return true;
    report_at = done + more + 16384;
    if (options.progress(Progress{"write", done + more, total})) return true;
    report->fatal = Diagnostic{Code::kCancelled, "", 0, "merge cancelled while writing"};
    return false;
  };
  // With more threads, the order is cut into slices by time, rendered in
  // turn by this thread and the others; this one sends them in order.
  constexpr uint64_t kSliceEvents = 4096;  // (~0.5 MB of output)
  // (A store is there for sources beyond the memory budget; while none was stored, no read is shared.)
  const bool stored = std::any_of(job.sources.begin(), job.sources.end(), [](const ParsedSource& s) { return s.stored; });
  const unsigned threads = ok && !stored && total > 1 ? std::max(options.threads, 1u) : 1;
  std::vector<TimeOrder::Cursor> slices =
      plan.order.Slices(threads > 1 ? std::max<uint64_t>(total / kSliceEvents, std::min<uint64_t>(total, 16)) : 1);
  {
    SliceRenderers helpers(sources, slices, threads);
    for (size_t k = 0; ok && k < slices.size(); k++) {
      const int h = helpers.Owner(k);
      if (h < 0) {
        ok = RenderEvents(sources, slices[k], store, &first, out, kept, report, keep_going);
        done += slices[k].size();
      } else {
        ByteBuffer buf = helpers.Take(h, kept);
        first = false;
        w.Put(buf.view());
        helpers.GiveBack(h, std::move(buf));
        done += slices[k].size();
        ok = keep_going(0);
      }
    }
  }  // (the helpers stop here)
  for (size_t i = 0; i < sources.size(); i++) job.sources[i].report.events_kept += kept[i];
  for (uint64_t k : kept) report->events_written += k;
  if (!ok) return w.Flush();
  if (options.progress && !options.progress(Progress{"write", total, total})) {  // (cancelled at the end: no output)
    report->fatal = Diagnostic{Code::kCancelled, "", 0, "merge cancelled while writing"};
    return w.Flush();
  }
  for (const ParsedSource& s : job.sources) report->sources.push_back(s.report);
  WriteTrailer(options, *report, out);
  w.Finish();
}

}  // namespace tracemerge
