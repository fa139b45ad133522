// The bytes of one ParsedSource (source.h) —
// little-endian, each string or array after its length, in the order of
// Fields() below, the one list both directions follow:
//
//   "tmsrc7" arena_size arena  Fields(path … warnings, thin)
//
// The templates come first: the importer keeps them where they arrived. The
// magic names the layout's version; bytes of another version are refused.
#include "transfer.h"

#include <cstring>

namespace tracemerge {
namespace {

constexpr std::string_view kMagic = "tmsrc7";  // (a summary file's version changes with it: summary.h)

// Writes what Fields() lists.
struct Out {
  std::string bytes;
  void U64(uint64_t v) { bytes.append(reinterpret_cast<const char*>(&v), 8); }
  void operator()(const std::string& s) {
    U64(s.size());
    bytes.append(s);
  }
  template <class T>
  void Int(const T& v) {
    U64(static_cast<uint64_t>(v));
  }
  void Double(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    U64(bits);
  }
  template <class T, class F>
  void List(const T& items, F&& each) {
    U64(items.size());
    for (const auto& item : items) each(item);
  }
  void Events(const BlockVector<Event>& events) {
    U64(events.size());
    for (const Event& e : events) bytes.append(reinterpret_cast<const char*>(&e), sizeof(Event));
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
  void operator()(std::string& s) { s = std::string(Take(U64())); }
  template <class T>
  void Int(T& v) {
    v = static_cast<T>(U64());
  }
  void Double(double& v) {
    const uint64_t bits = U64();
    std::memcpy(&v, &bits, 8);
  }
  template <class T, class F>
  void List(T& items, F&& each) {
    for (uint64_t n = U64(); ok && n > 0 && n <= bytes.size(); n--) each(items.emplace_back());
    if (!ok) items.clear();
  }
  void Events(BlockVector<Event>& events) {
    const uint64_t n = U64();
    if (n > bytes.size() / sizeof(Event)) return void(ok = false);
    const std::string_view raw = Take(n * sizeof(Event));
    for (uint64_t i = 0; i < n; i++) {
      Event e;
      std::memcpy(static_cast<void*>(&e), raw.data() + i * sizeof(Event), sizeof(Event));
      events.push_back(e);
    }
  }
};

// The one list of what travels, for Out (S const) and In.
template <class IO, class S>
void Fields(IO& io, S& s) {
  io(s.path);
  io.Int(s.in_folder);
  io.Int(s.cls.kind);
  io.Int(s.cls.format);
  io(s.cls.node);
  io(s.cls.reason);
  io.Int(s.cls.quiet);
  auto& r = s.report;
  io.Int(r.included);
  io(r.note);
  for (auto* v : {&r.bytes, &r.inflated_bytes, &r.events_read, &r.events_dropped, &r.metadata_merged}) io.Int(*v);
  io.Int(r.piece);  // (a scan's map splits a file of several ranks: summary.h)
  io.Int(r.pieces);
  io.List(s.procs, [&](auto& p) {
    io(p.pid_text);
    io(p.name);
    io(p.labels);
    io.Int(p.rank);
  });
  io.List(s.threads, [&](auto& t) {
    io.Int(t.proc);
    io(t.tid_text);
    io(t.name);
  });
  io.Int(s.stored);
  io.Int(s.stored_bytes);
  io.Int(s.id_count);
  io.Events(s.events);
  io.Int(s.step_kind);
  io.List(s.steps, [&](auto& m) {
    io.Int(m.first);
    io.Int(m.second);
  });
  io.List(s.anchors, [&](auto& a) {
    io.Int(a.event);
    io.Int(a.tier);
    io.Int(a.seq);
    io.Int(a.begin);
    io(a.key);
  });
  io(s.said.base_time);
  io(s.said.host);
  io.Int(s.said.rank);
  io.Int(s.said.header);
  io.Int(s.said.header_base);
  for (auto* flag : {&s.has_pairs, &s.based_events, &s.relative_events, &s.merged_output}) io.Int(*flag);
  io.List(s.warnings, [&](auto& d) {
    io.Int(d.code);
    io.Int(d.offset);
    io(d.message);
  });
  auto& t = s.thin;
  io.Int(t.thinned);
  for (auto* v : {&t.events, &t.timed, &t.dated, &t.early}) io.Int(*v);
  io.Int(t.early_ts);
  io.List(t.weights, [&](auto& w) {
    io.Int(w.event);
    io.Int(w.count);
  });
  io.List(t.dimensions, [&](auto& d) { io(d); });
  io.List(t.samples, [&](auto& x) {
    io.Int(x.event);
    io.Int(x.dimension);
    io.Int(x.n);
    io.Double(x.sum);
  });
}

// What the writer trusts of an imported source: every template inside the
// arena, every thread and mark known, the templates in memory.
bool Consistent(const ParsedSource& s, size_t arena) {
  if (s.stored) return false;
  for (const Thread& t : s.threads)
    if (t.proc >= s.procs.size()) return false;
  for (const Event& e : s.events)
    if (e.offset > arena || e.length > arena - e.offset || e.thread >= s.threads.size()) return false;
  for (auto& m : s.steps)
    if (m.second >= s.events.size()) return false;
  // (an id one of the registry's: registry.h)
  if (s.cls.kind > kLastKind || static_cast<unsigned>(s.cls.format) > kFormats || s.step_kind > kLastStepKind)
    return false;
  for (const Anchor& a : s.anchors)
    if (a.event >= s.events.size() || a.tier > AnchorTier::kExchange) return false;
  for (const auto& w : s.thin.weights)
    if (w.event >= s.events.size()) return false;
  for (const auto& x : s.thin.samples)
    if (x.event >= s.events.size() || x.dimension >= s.thin.dimensions.size()) return false;
  return true;
}

}  // namespace

ByteBuffer SourceToBytes(ParsedSource&& s, std::string* tail) {
  // The templates stay where they are: the header goes in front of them.
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
  o.bytes.reserve(s.events.size() * sizeof(Event) + 4096);
  Fields(o, static_cast<const ParsedSource&>(s));
  tail->swap(o.bytes);
  return bytes;
}

std::optional<ParsedSource> SourceFromBytes(ByteBuffer bytes) {
  In in{bytes.view()};
  if (in.Take(kMagic.size()) != kMagic) return std::nullopt;
  const std::string_view arena = in.Take(in.U64());
  std::optional<ParsedSource> s(std::in_place);
  Fields(in, *s);
  if (!in.ok || !in.bytes.empty() || !Consistent(*s, arena.size())) return std::nullopt;
  s->report.path = s->path;
  s->report.kind = s->cls.kind;
  s->report.node = s->cls.node;
  for (Diagnostic& d : s->warnings) d.file = s->path;
  // The templates move to the buffer's start (no new memory), the rest goes.
  std::memmove(bytes.data(), arena.data(), arena.size());
  bytes.truncate(arena.size());
  bytes.ShrinkToFit(kTemplateSlack);
  s->arena.swap(bytes);
  return s;
}

}  // namespace tracemerge
