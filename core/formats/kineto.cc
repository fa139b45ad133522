// PyTorch's profiler (Kineto) traces: Chrome JSON with top-level keys of its
// own — baseTimeNanoseconds (the clock), distributedInfo.rank, host_name —,
// ProfilerStep#N slices (the steps), and collectives: NCCL/RCCL kernels on GPU
// streams, record_param_comms and nccl:* ops on the CPU (PyTorch records the
// process group, the collective's name and its sequence number on them).
// PyTorch's trace handler names a file "<host>_<pid>.<ns>.pt.trace.json[.gz]"
// (its worker name, then time.time_ns()): the host when the trace does not
// say it — and the trace agrees (its pid is one of the trace's, its stamp a
// nanosecond one, not before the trace); else the host is not known.
//
//   "ranks/ip-10-0-0-7_4242.1700000000123456789.pt.trace.json.gz", {"distributedInfo":{"rank":3},…} with pid 4242
//     → host "ip-10-0-0-7" (file name), rank 3, label "rank 3 · ip-10-0-0-7"
//   "job/worker0_step_12.1694128201545.pt.trace.json" (pids 59811…; a ms stamp) → host not known, rank 0
//   {"ph":"X","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(…)",…}  → an anchor (kernel, allreduce)
//   {"ph":"X","name":"record_param_comms","args":{"Collective name":"allreduce","Seq":7,
//    "Process Group Name":"0"}}  → an anchor (host op) whose key holds its Seq
#include <algorithm>
#include <vector>

#include "event_parser.h"
#include "formats/collectives.h"
#include "formats/format.h"
#include "numbers.h"
#include "source.h"
#include "tokenizer.h"

namespace tracemerge {

std::optional<KinetoName> ParseKinetoName(std::string_view base) {
  constexpr std::string_view kExt = ".pt.trace.json";
  if (EndsWith(base, ".gz")) base.remove_suffix(3);
  if (!EndsWith(base, kExt)) return std::nullopt;
  base.remove_suffix(kExt.size());
  const size_t dot = base.rfind('.');
  if (dot == std::string_view::npos || !AllDigits(base.substr(dot + 1)) || base.size() - dot - 1 < 10 ||
      base.size() - dot - 1 > 19)
    return std::nullopt;
  const std::string_view worker = base.substr(0, dot);
  const size_t under = worker.rfind('_');
  if (under == std::string_view::npos || under == 0 || !AllDigits(worker.substr(under + 1)) ||
      worker.size() - under - 1 > 10)
    return std::nullopt;
  return KinetoName{std::string(worker.substr(0, under)), std::string(worker.substr(under + 1)),
                    std::string(base.substr(dot + 1))};
}

namespace {

// A top-level string as text; "" when it is not one (or is too long for a name).
std::string StringText(std::string_view token) {
  token = Trim(token);
  if (token.size() < 2 || token.front() != '"' || token.size() > 4096) return {};
  simdjson::dom::parser parser;
  std::string_view text;
  if (parser.parse(simdjson::padded_string(token)).get_string().get(text)) return {};
  return std::string(text);
}

class Kineto final : public Format {
 public:
  FormatId id() const override { return FormatId::kKineto; }

  bool Recognise(std::string_view path, std::string_view head, Classification* c) const override {
    if (!LooksLikeJson(head)) return false;
    const std::string_view base = BaseName(path);
    bool said = base.find(".pt.trace.json") != std::string_view::npos;
    for (std::string_view key : {"\"schemaVersion\"", "\"deviceProperties\"", "\"distributedInfo\"", "\"baseTimeNanoseconds\""})
      said |= head.find(key) != std::string_view::npos;
    if (!said) return false;
    c->kind = Kind::kOther;
    c->node = FileLabel(base);
    return true;
  }

  void ReadEvent(ParsedSource& s, uint32_t index, char ph, const EventFields& f) const override {
    if (!f.arg(ArgKey::kRank).empty()) {  // a merge of ranks' files (TraceLens): each event says its rank
      Proc& p = s.procs[s.threads[s.events[index].thread].proc];
      const std::optional<int64_t> rank = ParseScaled(f.arg(ArgKey::kRank), 1);
      const int64_t r = rank && *rank >= 0 && *rank < (int64_t{1} << 31) ? *rank : kRanksDisagree;
      if (p.rank == kNoRank) p.rank = r;
      else if (p.rank != r) p.rank = kRanksDisagree;
    }
    constexpr std::string_view kProfilerStep = "ProfilerStep#";
    if (f.name.substr(0, kProfilerStep.size()) == kProfilerStep && s.step_kind != StepKind::kStepNum) {
      if (auto step = ParseScaled(f.name.substr(kProfilerStep.size()), 1)) {
        s.step_kind = StepKind::kProfilerStep;
        s.steps.push_back({*step, index});
      }
    }
    if (ph != 'X') return;
    const std::string_view collective = Unquote(f.arg(ArgKey::kCollective));
    Anchor a;
    a.event = index;
    std::string_view op, name = f.name;
    if (IsNcclKernel(f.name)) {
      a.tier = AnchorTier::kKernel;
      op = SymmetricOp(collective.empty() ? f.name : collective);
    } else if (f.name == "record_param_comms") {
      a.tier = AnchorTier::kHostOp;
      op = SymmetricOp(collective);
      name = "host";
    } else if (f.name.rfind("nccl:", 0) == 0) {
      a.tier = AnchorTier::kHostOp;
      op = SymmetricOp(f.name);
      name = "host";
    }
    if (op.empty()) {
      if (IsNcclKernel(f.name)) s.anchors.push_back({index, AnchorTier::kExchange, false, false, ""});
      return;
    }
    // With a sequence number the collective is named by its group and number
    // (the same on every rank); without, by its group, op and name, and place.
    a.seq = !f.arg(ArgKey::kSeq).empty();
    a.key = std::string(Unquote(f.arg(ArgKey::kGroup))) + '\x1f' + std::string(op) + '\x1f' +
            (a.seq ? "seq " + std::string(Unquote(f.arg(ArgKey::kSeq))) : std::string(name));
    s.anchors.push_back(std::move(a));
  }

  void ReadTop(ParsedSource& s, const TopLevel& top) const override {
    if (!top.base_time_ns.empty()) {
      if (ParseScaled(top.base_time_ns, 1)) s.said.base_time = std::string(Trim(top.base_time_ns));
      else s.Warn(Code::kBadEvent, 0, "baseTimeNanoseconds is not a number; ignored");
    }
    if (auto rank = ParseScaled(FieldOf(top.distributed_info, "rank"), 1); rank && *rank >= 0) s.said.rank = *rank;
    s.said.host = StringText(top.host_name);
  }

  bool StreamsRepeat() const override { return true; }

  TimeBase Clock(const ParsedSource& s, const JobFacts& job) const override {
    if (s.said.base_time.empty()) return ChromeFormat().Clock(s, job);
    return {BaseKind::kKinetoBase, ParseScaled(s.said.base_time, 1).value_or(0), s.said.base_time, "", ""};
  }

  Identity Identify(const ParsedSource& s, const JobFacts& job) const override {
    Identity id = ChromeFormat().Identify(s, job);
    id.rank = s.said.rank;
    if (!s.said.host.empty()) {
      id.host = s.said.host;
      id.host_from = "host_name";
    } else if (std::optional<KinetoName> name = ParseKinetoName(BaseName(s.path))) {
      // A name is evidence: believed only when the trace agrees with it.
      std::string why_not = WhyNotBelieved(*name, s, Clock(s, job));
      if (why_not.empty()) {
        id.host = name->host;
        id.host_from = "file name";
      } else {
        id.host_note = "the file name reads as PyTorch's default <host>_<pid>.<ns> (host \"" + name->host +
                       "\"), but " + why_not + ": its host is not known";
      }
    }
    if (id.rank >= 0) id.label = "rank " + std::to_string(id.rank) + (id.host.empty() ? "" : " · " + id.host);
    // One process's files of one rank (PyTorch's handler writes one per profiled step) continue
    // one another: one stream — one track per process and thread, one row of the steps —
    // unless their times overlap (IdentifySources).
    if (id.rank >= 0)
      for (const Proc& p : s.procs)
        if (p.labels == "CPU" && !p.pid_text.empty()) id.stream = id.label + " · pid " + p.pid_text;
    // The device: the one GPU its processes' labels name ("GPU 1"), if one.
    for (const Proc& p : s.procs) {
      if (p.labels.rfind("GPU", 0) != 0 || p.labels == id.device) continue;
      if (!id.device.empty()) return id.device.clear(), id;  // (several: none said)
      id.device = p.labels;
    }
    return id;
  }

  // What in the trace contradicts its PyTorch-style name, or "": its pid must
  // be a pid of its events, its stamp a nanosecond one (time.time_ns(), 19
  // digits), written once the trace was recorded (not before its first event).
  static std::string WhyNotBelieved(const KinetoName& name, const ParsedSource& s, const TimeBase& tb) {
    std::vector<std::string> why;
    bool pid_seen = false;
    for (const Proc& p : s.procs) pid_seen |= p.pid_text == name.pid;
    if (!pid_seen) why.push_back(name.pid + " is no pid of its events");
    if (name.stamp.size() != 19) {
      why.push_back(name.stamp + " is not a nanosecond stamp (" + std::to_string(name.stamp.size()) + " digits, not 19)");
    } else if (tb.kind != BaseKind::kNone) {
      int64_t first = INT64_MAX;
      for (const Event& e : s.events)
        if (e.has_ts && e.ph != 'M') first = std::min(first, e.based ? e.ts : AddNs(e.ts, tb.base_ns));
      const int64_t stamp = ParseScaled(name.stamp, 1).value_or(0);
      if (first != INT64_MAX && stamp < SubNs(first, 1000000000))
        why.push_back("its stamp " + name.stamp + " is before the trace's first event");
    }
    std::string text;
    for (size_t i = 0; i < why.size(); i++) text += (i ? " and " : "") + why[i];
    return text;
  }
};

}  // namespace

const Format& KinetoFormat() {
  static const Kineto format;
  return format;
}

}  // namespace tracemerge
