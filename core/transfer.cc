// Sources parsed by another Merger (a second wasm instance in a Worker: wasm
// in the page has no threads) travel as bytes: ExportSource() there,
// ImportSource() here. The bytes hold what the merge needs of a parsed
// source — report, tables, templates, events — little-endian, each string
// or array after its length:
//
//   "tmsrc1" arena  path kind node reason quiet  report…  procs threads
//   id_count base_time_ns events step_marks profiler_steps flags warnings header
//
// The templates come first: the importer keeps them where they arrived.
#include <algorithm>
#include <cstring>

#include "merger.h"
#include "merger_internal.h"

namespace tracemerge {
namespace {

constexpr std::string_view kMagic = "tmsrc1";

struct Out {
  std::string bytes;
  void U64(uint64_t v) { bytes.append(reinterpret_cast<const char*>(&v), 8); }
  void Str(std::string_view s) {
    U64(s.size());
    bytes.append(s);
  }
};

// Reads what Out wrote; any read past the end (or a length that cannot be)
// clears ok and yields zeros.
struct In {
  std::string_view bytes;
  bool ok = true;
  uint64_t U64() {
    uint64_t v = 0;
    if (bytes.size() < 8) return ok = false, 0;
    std::memcpy(&v, bytes.data(), 8);
    bytes.remove_prefix(8);
    return v;
  }
  std::string_view Take(uint64_t n) {
    if (n > bytes.size()) return ok = false, std::string_view();
    std::string_view s = bytes.substr(0, n);
    bytes.remove_prefix(n);
    return s;
  }
  std::string Str() { return std::string(Take(U64())); }
  // n elements of T, as raw bytes (n checked against what is left first).
  template <class T>
  std::string_view Pod(uint64_t* n) {
    *n = U64();
    if (*n > bytes.size() / sizeof(T)) return ok = false, *n = 0, std::string_view();
    return Take(*n * sizeof(T));
  }
};

void PutMarks(Out& o, const std::vector<std::pair<int64_t, uint32_t>>& marks) {
  o.U64(marks.size());
  for (auto [step, event] : marks) {
    o.U64(static_cast<uint64_t>(step));
    o.U64(event);
  }
}

void GetMarks(In& in, uint64_t events, std::vector<std::pair<int64_t, uint32_t>>* marks) {
  for (uint64_t n = in.U64(); in.ok && n > 0; n--) {
    const auto step = static_cast<int64_t>(in.U64());
    const uint64_t event = in.U64();
    if (event >= events) return void(in.ok = false);
    marks->push_back({step, static_cast<uint32_t>(event)});
  }
}

}  // namespace

ByteBuffer Merger::ExportSource() {
  std::string tail;
  ByteBuffer bytes = ExportSource(&tail);
  if (!bytes.empty()) bytes.append(tail);
  return bytes;
}

ByteBuffer Merger::ExportSource(std::string* tail) {
  Impl& m = *impl_;
  tail->clear();
  if (m.sources.empty() || m.opt.parse_in_background) return {};
  Source& s = m.sources.back();
  if (s.stored || s.exported || s.first_event + s.event_count != m.events.size()) return {};
  // The templates stay where they are: the header goes in front of them. (The
  // input buffer kept for a next source goes first: room for them to grow.)
  m.spare_input.Free();
  ByteBuffer bytes;
  bytes.swap(s.arena);
  const size_t arena = bytes.size();
  Out o;
  o.bytes.append(kMagic);
  o.U64(arena);
  const size_t head = o.bytes.size();
  bytes.Extend(head);  // (within the templates' slack)
  std::memmove(bytes.data() + head, bytes.data(), arena);
  std::memcpy(bytes.data(), o.bytes.data(), head);
  o.bytes.clear();
  o.bytes.reserve(s.event_count * sizeof(Event) + 4096);
  o.Str(s.path);
  o.U64(static_cast<uint64_t>(s.cls.kind));
  o.Str(s.cls.node);
  o.Str(s.cls.reason);
  o.U64(s.cls.quiet);
  const SourceReport& r = s.report;
  o.U64(r.included);
  o.Str(r.note);
  for (uint64_t v : {r.bytes, r.inflated_bytes, r.events_read, r.events_dropped, r.metadata_merged}) o.U64(v);
  o.U64(s.procs.size());
  for (const Proc& p : s.procs) {
    o.Str(p.pid_text);
    o.Str(p.name);
  }
  o.U64(s.threads.size());
  for (const Thread& t : s.threads) {
    o.U64(t.proc);
    o.Str(t.tid_text);
    o.Str(t.name);
  }
  o.U64(s.id_count);
  o.Str(s.base_time_ns);
  o.U64(s.event_count);
  for (uint64_t i = s.first_event; i < s.first_event + s.event_count; i++) {
    const Event& e = m.events[i];
    o.bytes.append(reinterpret_cast<const char*>(&e), sizeof(Event));
  }
  PutMarks(o, s.step_marks);
  PutMarks(o, s.profiler_steps);
  o.U64(s.has_pairs | s.based_events << 1 | s.relative_events << 2 | s.have_header << 3);
  o.U64(static_cast<uint64_t>(s.header_base));
  o.U64(s.warnings.size());
  for (const Diagnostic& d : s.warnings) {
    o.U64(static_cast<uint64_t>(d.code));
    o.U64(d.offset);
    o.Str(d.message);
  }
  tail->swap(o.bytes);
  // The source leaves this merger: its events become fillers, its marks go.
  for (uint64_t i = s.first_event; i < s.first_event + s.event_count; i++) m.events[i] = Filler(s.key);
  s.event_count = 0;
  s.exported = true;
  s.step_marks.clear();
  s.profiler_steps.clear();
  return bytes;
}

uint32_t Merger::ReserveArrival() { return impl_->next_arrival++; }

void Merger::DoneReading() {
  std::lock_guard<std::mutex> lock(impl_->shared_mu);  // (the worker may still recycle one)
  impl_->spare_input.Free();
}

bool Merger::ImportSource(std::string_view bytes, uint32_t arrival) {
  ByteBuffer copy;
  copy.reserve(bytes.size() + kTemplateSlack);
  copy.append(bytes);
  return ImportSource(std::move(copy), arrival);
}

bool Merger::ImportSource(ByteBuffer bytes, uint32_t arrival) {
  Impl& m = *impl_;
  In in{bytes.view()};
  if (in.Take(kMagic.size()) != kMagic) return false;
  const std::string_view arena = in.Take(in.U64());
  Source& s = m.sources.emplace_back();
  s.key = static_cast<uint32_t>(m.sources.size() - 1);
  s.arrival = arrival;
  s.decided = true;
  s.path = in.Str();
  s.cls.kind = static_cast<Kind>(in.U64());
  s.cls.node = in.Str();
  s.cls.reason = in.Str();
  s.cls.quiet = in.U64() != 0;
  SourceReport& r = s.report;
  r.path = s.path;
  r.kind = s.cls.kind;
  r.node = s.cls.node;
  r.included = in.U64() != 0;
  r.note = in.Str();
  for (uint64_t* v : {&r.bytes, &r.inflated_bytes, &r.events_read, &r.events_dropped, &r.metadata_merged}) *v = in.U64();
  s.size = r.inflated_bytes;
  for (uint64_t n = in.U64(); in.ok && n > 0; n--) {
    Proc& p = s.procs.emplace_back();
    p.pid_text = in.Str();
    p.name = in.Str();
  }
  for (uint64_t n = in.U64(); in.ok && n > 0; n--) {
    Thread& t = s.threads.emplace_back();
    t.proc = static_cast<uint32_t>(in.U64());
    t.tid_text = in.Str();
    t.name = in.Str();
    in.ok &= t.proc < s.procs.size();
  }
  s.id_count = in.U64();
  s.base_time_ns = in.Str();
  uint64_t n = 0;
  const std::string_view events = in.Pod<Event>(&n);
  for (uint64_t i = 0; in.ok && i < n; i++) {
    Event e;
    std::memcpy(static_cast<void*>(&e), events.data() + i * sizeof(Event), sizeof(Event));
    // (The writer trusts these: each template inside the arena, each thread known.)
    in.ok &= e.offset <= arena.size() && e.length <= arena.size() - e.offset && e.thread < s.threads.size();
    e.source = s.key;
    s.parsed.push_back(e);
  }
  s.event_count = n;
  GetMarks(in, n, &s.step_marks);
  GetMarks(in, n, &s.profiler_steps);
  const uint64_t flags = in.U64();
  s.has_pairs = flags & 1;
  s.based_events = flags & 2;
  s.relative_events = flags & 4;
  s.have_header = flags & 8;
  s.header_base = static_cast<int64_t>(in.U64());
  for (uint64_t k = in.U64(); in.ok && k > 0; k--) {
    Diagnostic& d = s.warnings.emplace_back();
    d.code = static_cast<Code>(in.U64());
    d.file = s.path;
    d.offset = in.U64();
    d.message = in.Str();
  }
  m.next_arrival = std::max(m.next_arrival, arrival + 1);
  if (!in.ok || !in.bytes.empty()) {
    m.sources.pop_back();
    return false;
  }
  // The templates move to the buffer's start (no new memory), the rest goes.
  std::memmove(bytes.data(), arena.data(), arena.size());
  bytes.truncate(arena.size());
  bytes.ShrinkToFit(kTemplateSlack);
  s.arena.swap(bytes);
  if (s.report.included && m.MustStore(s)) m.Store(s);
  m.Keep(s);
  return true;
}

}  // namespace tracemerge
