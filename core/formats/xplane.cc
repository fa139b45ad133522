// TensorFlow's (≥ 2.11) and JAX's profiler output: one XSpace (xplane.proto) per host,
//   <logdir>/plugins/profile/<session>/<host>.xplane.pb
// read with the wire reader of protobuf.h. As xprof's trace viewer shows it: a
// process per plane ("/host:CPU", "/device:GPU:0"), a thread per line (its
// display_id, else its id; its display name, else its name), and every XEvent an X
// event at line.timestamp_ns + offset_ps lasting duration_ps — start and end each
// rounded to the nanosecond the output keeps, so nested events stay nested. Its
// stats (its metadata's, then its own, which win) become args; a ref_value names
// the stat it refers to. Aggregated events (num_occurrences: a count, no time)
// are counted in a NOTE, not placed.
// Time: line times are relative to the profile's start; the "Task Environment"
// plane's profile_start_time (ns since the epoch) is the time base — older files
// have none (NO_CLOCK), or absolute line times (Unix ns).
// Steps: a device plane's "Steps" line, one event per step (its name, or its
// step_num / group_id stat, the number). Collectives: NCCL/RCCL kernels on the
// device planes, as Kineto's (anchors); XLA collective ops ("all-reduce.3" on
// "XLA Ops") where a plane has no such kernels (TPU).
// Host: XSpace.hostnames, else the file's name ("10.0.0.7_6003.xplane.pb").
#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <vector>

#include "formats/format.h"
#include "formats/protobuf.h"
#include "formats/tf_profiler.h"
#include "formats/xplane.h"
#include "event_parser.h"
#include "numbers.h"
#include "source.h"
#include "stages.h"

namespace tracemerge {
namespace {

constexpr std::string_view kSuffix = ".xplane.pb";

// ps → ns, to the nearest (halves up), for any int64.
int64_t RoundPs(int64_t ps) {
  const int64_t q = ps / 1000, r = ps % 1000;
  return r >= 500 ? q + 1 : r < -500 ? q - 1 : q;
}

// Line facts each of its events needs.
struct LineFacts {
  uint32_t thread;
  int64_t ns;     // timestamp_ns
  bool absolute;  // Unix ns, not relative to the profile's start
  bool steps;     // a device's "Steps" line
  bool device;    // on a device plane
};

// An XSpace is a run of top-level fields, each read alone (format.h RecordReader):
// its planes (1) and host names (4).
class Reader final : public RecordReader {
 public:
  Reader(ParsedSource& s, LineContext& cx) : s_(s), cx_(cx) {}

  size_t Read(std::string_view bytes, uint64_t at) override {
    size_t done = 0;
    while (!stopped_ && done < bytes.size()) {
      const size_t n = FieldSize(bytes.substr(done));
      if (n == 0) break;  // (it goes on past what has come)
      Top(WireReader(bytes.substr(done, n), at + done), Code::kBadEvent);
      done += n;
    }
    return stopped_ ? bytes.size() : done;  // (once stopped, the rest is not read)
  }

  bool Stopped() const override { return stopped_; }

  void End(std::string_view rest, uint64_t at) override {
    if (!stopped_ && !rest.empty()) Top(WireReader(rest, at), Code::kTruncated);  // a field the file's end cuts
    // Steps as each device's Steps line marks them (xprof's: each device a source of its own, its
    // collectives in its steps), else as the host marked them (step_num: the host's source only).
    if (!step_nums_.empty() || !line_steps_.empty()) {
      s_.step_kind = StepKind::kXPlaneSteps;
      s_.steps = line_steps_.empty() ? std::move(step_nums_) : std::move(line_steps_);
    }
    if (aggregated_)
      s_.Warn(Code::kNote, aggregated_at_,
              std::to_string(aggregated_) + " aggregated event" + (aggregated_ == 1 ? "" : "s") +
                  " (num_occurrences: a count without a time of its own) counted here, not placed on the timeline");
    if (!any_ && !damaged_) s_.Warn(Code::kNotATrace, 0, "no plane in this XSpace");
  }

 private:
  // One top-level field; damage there is `code`'s (the file's end cut it, or its bytes are wrong).
  void Top(WireReader r, Code code) {
    if (!r.Next()) return Damaged(r, code), void(stopped_ = true);
    if (r.field() == 1 && r.wire() == kWireBytes) {
      any_ = true;
      stopped_ = !Plane(r.Message(), r.field_at());  // (damaged or cancelled: what was read stays, steps too)
    } else if (r.field() == 4 && r.wire() == kWireBytes && s_.said.host.empty()) {
      s_.said.host = std::string(r.bytes());  // (raw text, as source.h keeps it)
    }
  }

  void Damaged(const WireReader& r, Code code = Code::kBadEvent) {
    damaged_ = true;
    s_.Warn(code, r.error_at(), r.error() + "; kept the events before it");
  }

  // Read twice: its name and dictionaries first (they may come after its lines), then its lines.
  // Returns false once the file is found damaged or the merge cancelled (nothing more is read).
  bool Plane(const WireReader& whole, uint64_t at) {
    if (!cx_.Tick(at)) return false;
    Dicts d;
    std::string_view name;
    std::vector<WireReader> stats;
    WireReader plane = whole;
    while (plane.Next()) {
      const bool bytes = plane.wire() == kWireBytes;
      switch (plane.field()) {
        case 2: if (bytes) name = plane.bytes(); break;
        case 4: if (bytes) EventMetaEntry(plane.Message(), &d); break;
        case 5: if (bytes) StatMetaEntry(plane.Message(), &d); break;
        case 6: if (bytes) stats.push_back(plane.Message()); break;
        default: break;
      }
    }
    if (plane.failed()) return Damaged(plane), false;
    const bool device = name.rfind("/device:", 0) == 0;
    Prepare(&d, device);
    if (name == "Task Environment") {
      for (const WireReader& st : stats) {
        Stat v = ReadStat(st, d);
        if (v.name() == "profile_start_time" && v.integer) s_.said.base_time = std::to_string(*v.integer);
      }
      return true;
    }
    const std::string pid(name);  // (plane ids repeat: the host's and GPU 0's are both 0 in some files)
    plane = whole;
    while (plane.Next())
      if (plane.field() == 3 && plane.wire() == kWireBytes && !Line(plane.Message(), d, pid, name, device)) return false;
    return true;
  }

  // Read twice, as a plane is: its facts, then its events.
  bool Line(const WireReader& whole, const Dicts& d, const std::string& pid, std::string_view plane, bool device) {
    int64_t id = 0, display_id = 0, timestamp_ns = 0;
    std::string_view name, display_name;
    WireReader line = whole;
    while (line.Next()) {
      const bool bytes = line.wire() == kWireBytes;
      switch (line.field()) {
        case 1: id = static_cast<int64_t>(line.varint()); break;
        case 2: if (bytes) name = line.bytes(); break;
        case 3: timestamp_ns = static_cast<int64_t>(line.varint()); break;
        case 10: display_id = static_cast<int64_t>(line.varint()); break;
        case 11: if (bytes) display_name = line.bytes(); break;
        default: break;
      }
    }
    if (line.failed()) return Damaged(line), false;
    if (!cx_.Tick(line.field_at())) return false;
    const uint32_t thread = cx_.Thread(pid, std::to_string(display_id ? display_id : id));
    Thread& t = s_.threads[thread];
    if (t.name.empty()) t.name = JsonEscape(display_name.empty() ? name : display_name);
    Proc& p = s_.procs[t.proc];
    if (p.name.empty()) p.name = JsonEscape(plane);
    // A device is a source of its own (ranks.cc splits the file by it): its collectives and waits are its own.
    if (auto ordinal = DeviceOrdinal(plane)) p.rank = *ordinal, p.labels = std::string(plane.substr(8));
    const LineFacts facts{thread, timestamp_ns, timestamp_ns >= kEpoch2001Ns, device && name == "Steps", device};
    line = whole;
    while (line.Next())
      if (line.field() == 4 && line.wire() == kWireBytes && !Event(line.Message(), line.field_at(), d, facts)) return false;
    return true;
  }

  bool Event(WireReader ev, uint64_t at, const Dicts& d, const LineFacts& l) {
    int64_t mid = 0, offset_ps = 0, duration_ps = 0;
    bool timed = false, aggregated = false;
    args_.clear();
    while (ev.Next()) {
      switch (ev.field()) {
        case 1: mid = static_cast<int64_t>(ev.varint()); break;
        case 2: offset_ps = static_cast<int64_t>(ev.varint()), timed = true; break;
        case 3: duration_ps = static_cast<int64_t>(ev.varint()); break;
        case 4: if (ev.wire() == kWireBytes) args_.push_back(ReadStat(ev.Message(), d)); break;
        case 5: aggregated = true; break;
        default: break;
      }
    }
    if (ev.failed()) return Damaged(ev), false;
    if (aggregated && !timed) {
      if (!aggregated_++) aggregated_at_ = at;
      return true;
    }
    static const EventMeta kUnknown;
    const EventMeta* found = d.events.Find(mid);
    const EventMeta& meta = found ? *found : kUnknown;
    for (const Stat& v : meta.own) {  // the metadata's, unless the event says the same stat
      bool own = false;
      for (const Stat& a : args_) own |= a.name() == v.name();
      if (!own) args_.push_back(v);
    }
    const auto index = static_cast<uint32_t>(s_.events.size());
    Write(meta, d, l, offset_ps, duration_ps);
    if (l.steps) Step(meta, d, index, &line_steps_);
    for (const Stat& v : args_)  // a step marker of the host (JAX's StepTraceAnnotation: "train", step_num)
      if (!l.device && v.name() == "step_num" && v.integer) step_nums_.push_back({*v.integer, index});
    if (meta.anchor != AnchorKind::kNone)
      s_.anchors.push_back({index, meta.anchor == AnchorKind::kExchange ? AnchorTier::kExchange : AnchorTier::kKernel,
                            false, false, meta.anchor_key});
    return true;
  }

  // The event (args_: its stats) and its template.
  void Write(const EventMeta& meta, const Dicts& d, const LineFacts& l, int64_t offset_ps, int64_t duration_ps) {
    tracemerge::Event e;
    e.offset = s_.arena.size();
    e.thread = l.thread;
    e.ph = 'X';
    e.ts = AddNs(l.ns, RoundPs(offset_ps));
    e.dur = std::max<int64_t>(0, AddNs(l.ns, RoundPs(AddNs(offset_ps, duration_ps))) - e.ts);
    e.has_ts = true;
    e.based = l.absolute;
    (l.absolute ? s_.based_events : s_.relative_events) = true;
    ByteBuffer& a = s_.arena;
    a.append("{\"name\":\"");
    a.append(meta.name_json);
    a.append("\",\"ph\":\"X\",\"ts\":");
    a.push_back(kTsMark);
    a.append(",\"dur\":");
    AppendMicros(a, e.dur);
    a.append(",\"pid\":");
    a.push_back(kPidMark);
    a.append(",\"tid\":");
    a.push_back(kTidMark);
    bool first = true;
    auto key = [&](std::string_view json) {
      a.append(first ? ",\"args\":{\"" : ",\"");
      first = false;
      a.append(json);
      a.append("\":");
    };
    if (!meta.long_name.empty()) key("long_name"), a.append(meta.long_name);
    for (const Stat& v : args_)
      if (v.kind != Stat::kNone) key(v.meta ? std::string_view(v.meta->json) : std::string_view()), AppendValue(a, v, d);
    a.append(first ? "}" : "}}");
    e.length = static_cast<uint32_t>(a.size() - e.offset);
    s_.events.push_back(e);
    s_.report.events_read++;
  }

  // A "Steps" line's event (xprof's, derived: named by its group id, with a group_id stat and
  // the host's step_name, "train 12"): the step the name's number says, else the group's.
  void Step(const EventMeta& meta, const Dicts& d, uint32_t index, Marks* marks) const {
    std::optional<int64_t> step, group;
    for (const Stat& v : args_) {
      if (v.name() == "group_id" && v.integer) group = v.integer;
      if (v.name() != "step_name") continue;
      const std::string json = Json(v, d);
      if (json.size() <= 2) continue;
      const std::string_view text = std::string_view(json).substr(1, json.size() - 2);
      const size_t digits = text.find_last_not_of("0123456789") + 1;
      if (digits < text.size() && text.size() - digits <= 12) step = ParseScaled(text.substr(digits), 1);
    }
    if (!group && AllDigits(meta.name) && meta.name.size() <= 12) group = ParseScaled(meta.name, 1);
    if (step || group) marks->push_back({step ? *step : *group, index});
  }

  // "/device:GPU:3" → 3; not a device plane, or one of an odd name ("/device:\"x:3") → nullopt
  // (so a device's name, "GPU:3", is plain text: the same raw and JSON-escaped).
  static std::optional<int64_t> DeviceOrdinal(std::string_view plane) {
    if (plane.rfind("/device:", 0) != 0) return std::nullopt;
    const size_t colon = plane.rfind(':');
    const std::string_view kind = plane.substr(8, colon - 8), n = plane.substr(colon + 1);
    if (kind.empty() || !std::all_of(kind.begin(), kind.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; }))
      return std::nullopt;
    if (!AllDigits(n) || n.size() > 9) return std::nullopt;
    return ParseScaled(n, 1);
  }

  ParsedSource& s_;
  LineContext& cx_;
  bool any_ = false, stopped_ = false, damaged_ = false;
  uint64_t aggregated_ = 0, aggregated_at_ = 0;
  Marks step_nums_, line_steps_;
  std::vector<Stat> args_;  // the event's stats (kept between events: no allocation per event)
};

std::string Spaced(std::string_view device) {  // "GPU:1" → "GPU 1"
  std::string d(device);
  std::replace(d.begin(), d.end(), ':', ' ');
  return d;
}

class XPlane final : public Format {
 public:
  FormatId id() const override { return FormatId::kXPlane; }

  bool Recognise(std::string_view path, std::string_view head, Classification* c) const override {
    const std::string_view base = BaseName(path);
    if (!EndsWith(base, kSuffix) && !EndsWith(base, std::string(kSuffix) + ".gz")) return false;
    // An XSpace starts with a plane (field 1) or its host names (field 4), length-delimited.
    if (!head.empty() && head[0] != '\x0a' && head[0] != '\x22') return false;
    c->kind = Kind::kXPlane;
    c->node = std::string(base.substr(0, base.find(kSuffix)));
    return true;
  }

  std::unique_ptr<RecordReader> Records(ParsedSource& s, LineContext& cx) const override {
    return std::make_unique<Reader>(s, cx);
  }

  // A device's plane: its own collectives, its own waits (ranks.cc).
  std::string SplitNote(size_t pieces, const std::string&, bool rankless) const override {
    return "holds " + std::to_string(pieces) + " devices' planes: read as one source per device" +
           (rankless ? ", and one for the host's planes" : "");
  }

  // In smdebug's TF step folder: placed among its sidecars as a TF trace is (tf_profiler.cc).
  bool IdentifiedSecond(const ParsedSource& s) const override { return SidecarPlaced(s); }

  // Its Task Environment's start; else, in smdebug's TF step folder, the sidecar
  // the TF profiler's rules choose (tf_profiler_clock.cc), as for a TF trace.
  TimeBase Clock(const ParsedSource& s, const JobFacts& job) const override {
    if (auto base = ParseScaled(s.said.base_time, 1); base && !s.said.base_time.empty())
      return {BaseKind::kXPlaneStart, *base, s.said.base_time, "", ""};
    if (auto it = job.tf_clocks.find(s.path); it != job.tf_clocks.end())
      return {BaseKind::kTfSidecar, MicrosToNs(it->second.start_us), it->second.sidecar, it->second.why, it->second.detail};
    if (s.based_events && !s.relative_events) return {BaseKind::kUnixMicros, 0, "", "", ""};
    return {};
  }

  Identity Identify(const ParsedSource& s, const JobFacts& job) const override {
    Identity id;
    id.run = SmdebugRun(s.path, s.in_folder);  // (in smdebug's job: the job's; else the dropped folder)
    // The host it names ("34.83.195.179:6003"), which its file's name says too ("34.83.195.179_6003");
    // in smdebug's TF step folder, the node of the sidecar that ties it to one (SageMaker's algo-N).
    std::string named = s.said.host;
    if (auto it = job.tf_clocks.find(s.path); it != job.tf_clocks.end() && !it->second.host.empty()) {
      id.host = it->second.host;
      id.host_from = it->second.host_from;
    } else if (named.empty()) {
      id.host = s.cls.node;
      id.host_from = "file name";
    } else {
      id.host = named;
      id.host_from = "hostnames";
    }
    id.node = s.cls.node;
    // A device's piece of the file (ranks.cc): "host-a · GPU 1"; the host's planes: "host-a".
    for (const Proc& p : s.procs)
      if (p.rank >= 0 && !p.labels.empty()) id.device = p.labels;
    id.label = id.group = id.device.empty() ? id.host : id.host + " · " + Spaced(id.device);
    id.stream = id.process = s.cls.node + (id.device.empty() ? "" : " " + id.device);
    return id;
  }
};

}  // namespace

const Format& XPlaneFormat() {
  static const XPlane format;
  return format;
}

}  // namespace tracemerge
