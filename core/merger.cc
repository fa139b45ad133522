// The merge pipeline: ingest (inflate) → classify → parse events → clock →
// window → tracks/lanes → sort → write (output.cc).
#include "merger.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "merger_internal.h"
#include "numbers.h"

namespace tracemerge {
namespace {

constexpr size_t kPad = simdjson::SIMDJSON_PADDING;
constexpr int64_t kEpoch2001Ns = int64_t{1000000000} * 1000000000;  // 1e18 ns ≈ 2001-09-09

bool PathMatches(std::string_view path, std::string_view pattern) {
  if (pattern.empty()) return false;
  if (path == pattern) return true;
  if (path.size() > pattern.size() && path.substr(0, pattern.size()) == pattern &&
      (pattern.back() == '/' || path[pattern.size()] == '/'))
    return true;
  return path.size() > pattern.size() && path.substr(path.size() - pattern.size()) == pattern &&
         path[path.size() - pattern.size() - 1] == '/';
}

std::string StepList(const std::vector<std::pair<int64_t, int64_t>>& steps) {
  std::set<int64_t> s;
  for (auto& p : steps) s.insert(p.first);
  std::string out;
  for (auto it = s.begin(); it != s.end();) {
    int64_t a = *it, b = a;
    for (++it; it != s.end() && *it == b + 1; ++it) b = *it;
    if (!out.empty()) out += ", ";
    out += std::to_string(a);
    if (b != a) out += "-" + std::to_string(b);
  }
  return out.empty() ? "none" : out;
}

}  // namespace

Status ParseUnit(std::string_view s, Unit* out) {
  if (s == "time") *out = Unit::kTime;
  else if (s == "step") *out = Unit::kStep;
  else return Status::Error(Code::kUsage, "unit must be 'time' or 'step', not '" + std::string(s) + "'");
  return {};
}

Status ParseGroup(std::string_view s, Group* out) {
  if (s == "source") *out = Group::kSource;
  else if (s == "phase") *out = Group::kPhase;
  else return Status::Error(Code::kUsage, "group must be 'source' or 'phase', not '" + std::string(s) + "'");
  return {};
}

struct Merger::Impl {
  Options opt;
  std::vector<Source> sources;
  std::vector<Event> events;
  std::vector<std::pair<int64_t, uint32_t>> step_marks;     // (step, event) pythontimeline
  std::vector<std::pair<int64_t, uint32_t>> profiler_steps; // (step, event) ProfilerStep#N
  std::vector<Diagnostic> warnings;
  EventParser parser;
  bool cancelled = false;
  uint64_t tick = 0;

  // Reports progress every 16384 calls; remembers a cancel.
  void Tick(const char* stage, uint64_t done, uint64_t total, bool force = false) {
    if (!opt.progress || cancelled || (++tick % 16384 != 0 && !force)) return;
    if (!opt.progress(Progress{stage, done, total})) cancelled = true;
  }

  void Warn(Source& s, Code code, uint64_t offset, std::string msg) {
    s.warnings.push_back({code, s.path, offset, std::move(msg)});
  }

  void Append(Source& s, std::string_view bytes);
  void Finish(Source& s);
  void Parse(Source& s);
  void ParseEvent(Source& s, Span span);
  void ParseMetrics(Source& s);
  void Join();
  void ApplyClock(uint32_t index);
  void Describe(Report* r);
  bool ResolveWindow(Report* r);
  void Filter(const Report& r);
  void AssignTracks(std::vector<std::pair<uint32_t, std::string>>* process_names,
                    std::vector<std::tuple<uint32_t, uint32_t, std::string>>* thread_names);
};

Merger::Merger(Options options) : impl_(new Impl) { impl_->opt = std::move(options); }
Merger::~Merger() = default;

uint64_t GzipSizeHint(std::string_view head, std::string_view tail4, uint64_t file_size) {
  if (!LooksGzipped(head) || tail4.size() != 4) return file_size;
  uint64_t isize = 0;
  for (int i = 3; i >= 0; i--) isize = isize << 8 | static_cast<unsigned char>(tail4[i]);
  return isize >= file_size ? isize : file_size;
}

void Merger::BeginSource(std::string path, uint64_t size_hint) {
  Source& s = impl_->sources.emplace_back();
  s.path = std::move(path);
  s.report.path = s.path;
  s.data.reserve(std::min(size_hint, impl_->opt.max_inflated_bytes) + kPad);
}

void Merger::AppendChunk(std::string_view bytes) {
  if (impl_->sources.empty()) return;
  Source& s = impl_->sources.back();
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
    s.inflater->Feed(bytes, s.data);
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
  if (impl_->sources.empty()) return;
  Source& s = impl_->sources.back();
  if (!s.decided) {
    s.decided = true;
    s.data.swap(s.pending);
  }
  impl_->Finish(s);
}

void Merger::Impl::Finish(Source& s) {
  if (s.inflater) {
    Diagnostic d;
    if (!s.inflater->Finish(&d)) Warn(s, d.code, d.offset, d.message + " (compressed offset)");
    s.inflater.reset();
  }
  s.size = s.data.size();
  s.report.inflated_bytes = s.size;
  s.data.append(kPad, ' ');
  s.cls = Classify(s.path, std::string_view(s.data.data(), std::min<uint64_t>(s.size, 4096)));
  s.report.kind = s.cls.kind;
  s.report.node = s.cls.node;
  if (s.cls.kind == Kind::kSkipped) {
    s.report.included = false;
    s.report.note = "skipped: " + s.cls.reason;
    Warn(s, s.cls.quiet ? Code::kSkipped : Code::kNotATrace, 0, "skipped: " + s.cls.reason);
    s.data = std::string();
  } else if (s.cls.kind == Kind::kSidecar) {
    s.report.included = false;
    s.report.note = "TF time base (start " + s.cls.node + ")";
  } else if (!(opt.kinds & KindBit(s.cls.kind))) {
    s.report.included = false;
    s.report.note = "filtered out (kind not selected)";
    s.data = std::string();
  }
  if (s.report.included) {
    s.arena.reserve(s.size + s.size / 8);  // templates are about as long as the input
    Parse(s);
    // The templates in the arena are all the writer needs: let the input go.
    std::string().swap(s.data);
    if (s.arena.size() < s.arena.capacity() / 2) s.arena.shrink_to_fit();
  }
}

// ---- parse -----------------------------------------------------------------

// Consecutive events mostly share their process and thread: check the last one first.
static uint32_t ProcIndex(Source& s, std::string_view pid) {
  if (!s.procs.empty() && s.procs[s.last_proc].pid_text == pid) return s.last_proc;
  auto [it, added] = s.proc_ix.try_emplace(std::string(pid), static_cast<uint32_t>(s.procs.size()));
  if (added) s.procs.push_back({std::string(pid), "", false, 0});
  return s.last_proc = it->second;
}

static uint32_t ThreadIndex(Source& s, uint32_t proc, std::string_view tid) {
  if (!s.threads.empty()) {
    const Thread& last = s.threads[s.last_thread];
    if (last.proc == proc && last.tid_text == tid) return s.last_thread;
  }
  std::string key = std::to_string(proc) + '\x1f' + std::string(tid);
  auto [it, added] = s.thread_ix.try_emplace(key, static_cast<uint32_t>(s.threads.size()));
  if (added) s.threads.push_back({proc, std::string(tid), "", false, {}});
  return s.last_thread = it->second;
}

void Merger::Impl::Parse(Source& s) {
  if (s.cls.kind == Kind::kSystem) return ParseMetrics(s);
  std::vector<Diagnostic> diags;
  ScanLimits limits;
  limits.max_depth = opt.max_depth;
  bool ok = ScanTrace(std::string_view(s.data.data(), s.size), limits, &s.top,
                      [&](Span sp) { ParseEvent(s, sp); }, &diags);
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
  if (!s.top.base_time_ns.empty()) s.base_time_ns = std::string(Trim(s.top.base_time_ns));
  s.top = TopLevel{};  // its views point into the input
}

void Merger::Impl::ParseEvent(Source& s, Span sp) {
  EventFields f;
  std::string error;
  Tick("parse", sp.offset, s.size);
  if (cancelled) return;
  s.report.events_read++;
  if (sp.length > UINT32_MAX) {
    s.report.events_dropped++;
    return Warn(s, Code::kTooLarge, sp.offset, "event larger than 4 GB; dropped");
  }
  const size_t mark = s.arena.size();
  if (!parser.Parse(s.data.data() + sp.offset, sp.length, &f, &error, &s.arena, &s.ids)) {
    s.arena.resize(mark);
    s.report.events_dropped++;
    return Warn(s, Code::kBadJson, sp.offset, "event dropped: " + error);
  }
  // From here on, an event that is not kept takes its template back out.
  struct Cut {
    std::string& arena;
    size_t mark;
    bool keep = false;
    ~Cut() {
      if (!keep) arena.resize(mark);
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
  if (ph == 'b' || ph == 'e' || ph == 'S' || ph == 'F') {
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
    auto dur = ParseMicros(f.dur);
    e.has_dur = true;
    if (!dur || *dur < 0) {
      Warn(s, Code::kBadEvent, sp.offset, "\"dur\" is negative or not a number; written as 0");
      e.dur = 0;
    } else {
      e.dur = *dur;
    }
  }
  if (s.have_header) {
    e.ts += s.header_base;
    e.based = true;
  }
  auto idx = static_cast<uint32_t>(s.events.size());
  if (!f.arg_step_num.empty() && s.cls.kind == Kind::kPythonTimeline) {
    if (auto step = ParseScaled(f.arg_step_num, 1)) s.step_marks.push_back({*step, idx});
  }
  constexpr std::string_view kProfilerStep = "ProfilerStep#";
  if (f.name.substr(0, kProfilerStep.size()) == kProfilerStep) {
    if (auto step = ParseScaled(f.name.substr(kProfilerStep.size()), 1)) s.profiler_steps.push_back({*step, idx});
  }
  cut.keep = true;
  s.events.push_back(e);
}

void Merger::Impl::ParseMetrics(Source& s) {
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
    s.arena.append("{\"name\":\"").append(m.name).append("_").append(m.dimension);
    s.arena.append("\",\"ph\":\"C\",\"ts\":").push_back(kTsMark);
    s.arena.append(",\"pid\":").push_back(kPidMark);
    s.arena.append(",\"tid\":").push_back(kTidMark);
    s.arena.append(",\"args\":{\"value\":").append(m.value).append("}}");
    e.length = static_cast<uint32_t>(s.arena.size() - e.offset);
    e.thread = ThreadIndex(s, proc, "");
    e.ph = 'C';
    e.ts = *ts;
    e.has_ts = true;
    e.based = true;
    s.events.push_back(e);
  });
}

// Joins the sources' events in path order (deterministic whatever order the
// files came in), then makes every ts absolute.
void Merger::Impl::Join() {
  std::stable_sort(sources.begin(), sources.end(), [](const Source& a, const Source& b) { return a.path < b.path; });
  size_t total = 0;
  for (const Source& s : sources) total += s.events.size();
  events.reserve(total);
  for (uint32_t i = 0; i < sources.size(); i++) {
    Source& s = sources[i];
    s.first_event = events.size();
    for (auto [step, local] : s.step_marks) step_marks.push_back({step, static_cast<uint32_t>(s.first_event + local)});
    for (auto [step, local] : s.profiler_steps)
      profiler_steps.push_back({step, static_cast<uint32_t>(s.first_event + local)});
    for (Event& e : s.events) {
      e.source = i;
      events.push_back(e);
    }
    std::vector<Event>().swap(s.events);
    if (s.report.included) ApplyClock(i);
  }
  for (Source& s : sources) {  // warnings too, in path order
    for (Diagnostic& d : s.warnings) warnings.push_back(std::move(d));
    s.warnings.clear();
  }
}

void Merger::Impl::ApplyClock(uint32_t index) {
  Source& s = sources[index];
  SourceReport& r = s.report;
  const uint64_t first = s.first_event, end = events.size();
  int64_t base = 0;
  if (s.cls.kind == Kind::kSystem) {
    r.absolute = true;
    r.time_base = "Unix seconds in each line";
  } else if (s.have_header) {
    r.absolute = true;
    r.time_base = "smdebug header start_time_since_epoch_in_micros=" + FormatMicros(s.header_base);
    base = s.header_base;  // for any event before the first header
  } else if (s.cls.kind == Kind::kTfTrace) {
    std::string dir = TfStepDir(s.path);
    for (const Source& o : sources) {
      if (o.cls.kind != Kind::kSidecar) continue;
      auto sc = ParseSidecar(o.path);
      if (sc && sc->step_dir == dir) {
        base = sc->start_us * 1000;
        r.absolute = true;
        r.time_base = "TF sidecar " + std::string(BaseName(o.path));
      }
    }
  } else if (!s.base_time_ns.empty()) {
    if (auto b = ParseScaled(s.base_time_ns, 1)) {
      base = *b;
      r.absolute = true;
      r.time_base = "baseTimeNanoseconds=" + s.base_time_ns;
    } else {
      Warn(s, Code::kBadEvent, 0, "baseTimeNanoseconds is not a number; ignored");
    }
  } else if (s.cls.kind == Kind::kOther) {
    bool all_epoch = end > first;
    for (uint64_t i = first; i < end && all_epoch; i++)
      if (events[i].has_ts && events[i].ts < kEpoch2001Ns) all_epoch = false;
    if (all_epoch) {
      r.absolute = true;
      r.time_base = "Unix µs in the file";
    }
  }
  if (!r.absolute) {
    r.time_base = "none: times stay relative";
    if (end > first)
      Warn(s, Code::kNoClock, 0,
           "no absolute time base (no smdebug header, TF .metadata sidecar or baseTimeNanoseconds); "
           "times stay relative — give an offset to align it");
  }
  for (auto& [pattern, us] : opt.offsets_us)
    if (PathMatches(s.path, pattern)) r.offset_us = us;
  const int64_t shift = r.offset_us * 1000;
  for (uint64_t i = first; i < end; i++) {
    Event& e = events[i];
    if (!e.has_ts) continue;
    if (!e.based) e.ts += base;
    e.ts += shift;
  }
}

// ---- window ----------------------------------------------------------------

// The job as found: its time span and its steps (first ts of each, in time order).
void Merger::Impl::Describe(Report* r) {
  r->job_start_ns = INT64_MAX;
  r->job_end_ns = INT64_MIN;
  for (const Event& e : events) {
    if (e.ph == 'M' || !e.has_ts) continue;
    r->job_start_ns = std::min(r->job_start_ns, e.ts);
    r->job_end_ns = std::max(r->job_end_ns, e.ts + e.dur);
  }
  auto& marks = step_marks.empty() ? profiler_steps : step_marks;
  r->steps_from = step_marks.empty() ? "PyTorch ProfilerStep#N slices" : "pythontimeline step_num";
  std::vector<std::pair<int64_t, int64_t>> all;  // (step, ts)
  for (auto [step, idx] : marks) all.push_back({step, events[idx].ts});
  std::stable_sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.second < b.second; });
  std::set<int64_t> seen;
  for (auto& p : all)
    if (seen.insert(p.first).second) r->steps.push_back(p);
}

bool Merger::Impl::ResolveWindow(Report* r) {
  const int64_t kMaxUs = INT64_MAX / 1000;
  if (opt.unit == Unit::kTime) {
    r->window_start_ns = INT64_MIN;
    r->window_end_ns = INT64_MAX;
    for (auto [bound, out] : {std::pair{opt.start, &r->window_start_ns}, std::pair{opt.end, &r->window_end_ns}}) {
      if (!bound) continue;
      if (*bound > kMaxUs || *bound < -kMaxUs) {
        r->fatal = Diagnostic{Code::kUsage, "", 0, "window bound out of range: " + std::to_string(*bound)};
        return false;
      }
      *out = *bound * 1000;
    }
    r->window_bounded = opt.start || opt.end;
    return true;
  }
  const std::vector<std::pair<int64_t, int64_t>>& steps = r->steps;
  auto first_of = [&](int64_t step) -> std::optional<int64_t> {
    for (auto& p : steps)
      if (p.first == step) return p.second;
    return std::nullopt;
  };
  const std::string& from = r->steps_from;
  r->window_start_ns = INT64_MIN;
  r->window_end_ns = INT64_MAX;
  r->start_step = opt.start;
  r->end_step = opt.end;
  r->window_bounded = true;
  for (auto [bound, is_start] : {std::pair{opt.start, true}, std::pair{opt.end, false}}) {
    if (!bound) continue;
    auto ts = first_of(*bound);
    if (!ts) {
      r->fatal = Diagnostic{Code::kUnknownStep, "", 0,
                            "step " + std::to_string(*bound) + " not found; steps in this job (" + from +
                                "): " + StepList(steps)};
      return false;
    }
    // As the reference: the end step is excluded, the window ends 1 µs before it.
    if (is_start) r->window_start_ns = *ts;
    else r->window_end_ns = *ts - 1000;
  }
  return true;
}

void Merger::Impl::Filter(const Report& r) {
  if (!r.window_bounded) return;
  const int64_t lo = r.window_start_ns, hi = r.window_end_ns;
  auto inside = [&](int64_t ts) { return ts >= lo && ts <= hi; };
  // Begin/end pairs are kept or dropped together: B/E per thread, async
  // b/e and S/F per (category, id).
  std::map<std::tuple<uint32_t, char, uint32_t>, std::vector<uint32_t>> open;
  for (uint32_t i = 0; i < events.size(); i++) {
    Event& e = events[i];
    switch (e.ph) {
      case 'M': break;
      case 'X': e.keep = e.ts <= hi && e.ts + e.dur >= lo; break;
      case 'B': case 'b': case 'S': case 'E': case 'e': case 'F': {
        const char kind = (e.ph == 'B' || e.ph == 'E') ? 'B' : (e.ph == 'b' || e.ph == 'e') ? 'b' : 'S';
        auto& stack = open[{e.source, kind, kind == 'B' ? e.thread : e.pair_key}];
        e.keep = inside(e.ts);
        if (e.ph == 'B' || e.ph == 'b' || e.ph == 'S') {
          stack.push_back(i);
        } else if (!stack.empty()) {
          Event& b = events[stack.back()];
          stack.pop_back();
          bool keep = b.ts <= hi && e.ts >= lo;
          b.keep = e.keep = keep;
        }
        break;
      }
      default: e.keep = inside(e.ts);
    }
  }
}

// ---- tracks ----------------------------------------------------------------

namespace {

// Hands out positive tids within one output pid, preferring the original.
struct TidAllocator {
  std::set<uint32_t> used;
  uint32_t next = 1;
  uint32_t Take(std::string_view original) {
    auto t = ParseScaled(original, 1);
    if (t && *t > 0 && *t < INT32_MAX && !used.count(static_cast<uint32_t>(*t))) {
      used.insert(static_cast<uint32_t>(*t));
      return static_cast<uint32_t>(*t);
    }
    while (used.count(next)) next++;
    used.insert(next);
    return next;
  }
};

bool IsPlainId(std::string_view text) {
  auto v = ParseScaled(text, 1);
  return text.empty() || (v && *v > 0 && *v < INT32_MAX && std::to_string(*v) == text);
}

}  // namespace

void Merger::Impl::AssignTracks(
    std::vector<std::pair<uint32_t, std::string>>* process_names,
    std::vector<std::tuple<uint32_t, uint32_t, std::string>>* thread_names) {
  for (const Event& e : events) {
    if (!e.keep || e.ph == 'M') continue;
    Source& s = sources[e.source];
    s.threads[e.thread].used = true;
    s.procs[s.threads[e.thread].proc].used = true;
  }
  // Output processes and threads. smdebug rotates one stream over many files,
  // so those join by (kind, node, pid); any other file is a source of its own.
  struct OutThread {
    uint32_t pid;
    std::string tid_text, name;
    std::vector<uint32_t> events;  // kept X events, for lanes
    uint8_t lanes = 1;
    std::vector<uint32_t> tids;
  };
  std::vector<OutThread> out_threads;
  std::map<std::string, uint32_t> pid_of, thread_of;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> out_thread_of;  // (source, thread) → out thread
  uint32_t next_pid = 1;
  for (uint32_t si = 0; si < sources.size(); si++) {
    Source& s = sources[si];
    const bool joins = s.cls.kind != Kind::kOther;
    const std::string stream = joins ? std::string(KindName(s.cls.kind)) + '\x1f' + s.cls.node
                                     : "file\x1f" + std::to_string(si);
    const std::string label = JsonEscape(s.cls.node) + " · " + KindName(s.cls.kind);
    for (uint32_t ti = 0; ti < s.threads.size(); ti++) {
      Thread& t = s.threads[ti];
      if (!t.used) continue;
      Proc& p = s.procs[t.proc];
      std::string pname = !p.name.empty() ? p.name : "pid " + JsonEscape(p.pid_text.empty() ? "-" : p.pid_text);
      if (s.cls.kind == Kind::kSystem) pname = "metrics";
      std::string pkey = opt.group == Group::kSource ? stream + '\x1f' + p.pid_text : pname;
      auto [pit, new_pid] = pid_of.try_emplace(pkey, next_pid);
      if (new_pid) {
        std::string full = pname;
        if (opt.group == Group::kSource) {
          full = label + " · " + pname;
          if (!p.name.empty() && !IsPlainId(p.pid_text)) full += " (pid " + JsonEscape(p.pid_text) + ")";
        }
        process_names->push_back({next_pid++, full});
      }
      p.out_pid = pit->second;
      std::string tname = !t.name.empty() ? t.name
                          : t.tid_text.empty() ? std::string("main")
                                               : "tid " + JsonEscape(t.tid_text);
      if (!t.name.empty() && !t.tid_text.empty() && !IsPlainId(t.tid_text))
        tname += " (tid " + JsonEscape(t.tid_text) + ")";
      std::string tkey = pkey + '\x1f' + t.tid_text;
      if (opt.group == Group::kPhase) {
        tname = label + " · " + tname;
        tkey += '\x1f' + stream;
      }
      auto [tit, new_thread] = thread_of.try_emplace(tkey, static_cast<uint32_t>(out_threads.size()));
      if (new_thread) out_threads.push_back({p.out_pid, t.tid_text, tname, {}, 1, {}});
      out_thread_of[{si, ti}] = tit->second;
    }
  }

  // Lanes: X slices of one thread that overlap without nesting go to lane 1, 2, …
  for (uint32_t i = 0; i < events.size(); i++)
    if (events[i].keep && events[i].ph == 'X')
      out_threads[out_thread_of[{events[i].source, events[i].thread}]].events.push_back(i);
  for (OutThread& ot : out_threads) {
    std::stable_sort(ot.events.begin(), ot.events.end(), [&](uint32_t a, uint32_t b) {
      return events[a].ts != events[b].ts ? events[a].ts < events[b].ts : events[a].dur > events[b].dur;
    });
    std::vector<std::vector<int64_t>> lanes;  // per lane: stack of open slice ends
    for (uint32_t i : ot.events) {
      Event& e = events[i];
      const int64_t end = e.ts + e.dur;
      size_t l = 0;
      for (;; l++) {
        if (l == lanes.size()) lanes.emplace_back();
        auto& st = lanes[l];
        while (!st.empty() && st.back() <= e.ts) st.pop_back();
        if (st.empty() || end <= st.back()) {
          st.push_back(end);
          break;
        }
        if (l == 254) break;  // give up splitting further; viewers still get every slice
      }
      e.lane = static_cast<uint8_t>(l);
    }
    ot.lanes = static_cast<uint8_t>(std::max<size_t>(lanes.size(), 1));
  }

  std::map<uint32_t, TidAllocator> tids;
  for (OutThread& ot : out_threads) {
    for (uint8_t l = 0; l < ot.lanes; l++) {
      uint32_t tid = tids[ot.pid].Take(l == 0 && opt.group == Group::kSource ? ot.tid_text : "");
      ot.tids.push_back(tid);
      thread_names->push_back({ot.pid, tid, l == 0 ? ot.name : ot.name + " #" + std::to_string(l + 1)});
    }
  }
  for (auto& [key, index] : out_thread_of) sources[key.first].threads[key.second].lane_tids = out_threads[index].tids;
}

// ---- merge -----------------------------------------------------------------

Report Merger::Merge(const Sink& sink) {
  Impl& m = *impl_;
  Report report;
  m.Join();
  m.Describe(&report);
  bool ok = !m.cancelled && m.ResolveWindow(&report);
  if (m.cancelled) report.fatal = Diagnostic{Code::kCancelled, "", 0, "merge cancelled"};
  if (ok && m.opt.scan_only) {  // the page asks first: what is in these files?
    report.scan_only = true;
    for (Source& s : m.sources) report.sources.push_back(s.report);
    report.warnings = std::move(m.warnings);
    return report;
  }
  if (ok) {
    m.Filter(report);
    bool any = false;
    for (const Source& s : m.sources) any |= s.report.included && s.report.events_read > 0;
    if (!any) {
      report.fatal = Diagnostic{Code::kNotATrace, "", 0, "nothing to merge: no input held trace events"};
      ok = false;
    }
  }
  if (!ok) {
    for (Source& s : m.sources) report.sources.push_back(s.report);
    report.warnings = std::move(m.warnings);
    return report;
  }

  std::vector<std::pair<uint32_t, std::string>> process_names;
  std::vector<std::tuple<uint32_t, uint32_t, std::string>> thread_names;
  m.AssignTracks(&process_names, &thread_names);

  uint64_t id_base = 0;  // ids stay unique across sources, numbered in path order
  for (Source& s : m.sources) {
    s.id_base = id_base;
    id_base += s.ids.size();
  }
  std::vector<uint32_t> meta;
  std::vector<std::pair<int64_t, uint32_t>> order;  // (ts, event): sorts stably by ts
  for (uint32_t i = 0; i < m.events.size(); i++) {
    const Event& e = m.events[i];
    Source& s = m.sources[e.source];
    if (e.ph == 'M') {
      // Process-level metadata follows its process; thread-level its thread.
      const Thread& t = s.threads[e.thread];
      if (t.used || (t.tid_text.empty() && s.procs[t.proc].used)) meta.push_back(i);
      else s.report.metadata_unused++;
    } else if (!e.keep) {
      s.report.events_outside++;
    } else {
      order.push_back({e.ts, i});
      report.last_end_ns = std::max(report.last_end_ns, e.ts + e.dur);
    }
  }
  std::sort(order.begin(), order.end());
  if (order.empty())
    m.warnings.push_back({Code::kEmptyWindow, "", 0, "no event falls in the window; the output has no events"});
  report.warnings = std::move(m.warnings);
  WriteOutput(m.sources, m.events, meta, order, process_names, thread_names, m.opt, &report, sink);
  return report;
}

}  // namespace tracemerge
