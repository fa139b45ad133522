// PyTorch's profiler (Kineto) traces: Chrome JSON with top-level keys of its
// own — baseTimeNanoseconds (the clock), distributedInfo.rank, host_name —,
// ProfilerStep#N slices (the steps), and collectives: NCCL/RCCL kernels on GPU
// streams, record_param_comms and nccl:* ops on the CPU (PyTorch records the
// process group, the collective's name and its sequence number on them).
// PyTorch's trace handler names a file "<host>_<pid>.<ns>.pt.trace.json[.gz]"
// (its worker name, then the time): the host when the trace does not say it.
//
//   "ranks/ip-10-0-0-7_4242.1700000000123456789.pt.trace.json.gz", {"distributedInfo":{"rank":3},…}
//     → host "ip-10-0-0-7" (file name), rank 3, label "rank 3 · ip-10-0-0-7"
//   {"ph":"X","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(…)",…}  → an anchor (kernel, allreduce)
//   {"ph":"X","name":"record_param_comms","args":{"Collective name":"allreduce","Seq":7,
//    "Process Group Name":"0"}}  → an anchor (host op) whose key holds its Seq
#include "event_parser.h"
#include "formats/collectives.h"
#include "formats/format.h"
#include "numbers.h"
#include "source.h"
#include "tokenizer.h"

namespace tracemerge {
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
    constexpr std::string_view kProfilerStep = "ProfilerStep#";
    if (f.name.substr(0, kProfilerStep.size()) == kProfilerStep && s.step_kind != StepKind::kStepNum) {
      if (auto step = ParseScaled(f.name.substr(kProfilerStep.size()), 1)) {
        s.step_kind = StepKind::kProfilerStep;
        s.steps.push_back({*step, index});
      }
    }
    if (ph != 'X') return;
    const std::string_view collective = Unquote(f.arg_collective);
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
    if (op.empty()) return;
    // With a sequence number the collective is named by its group and number
    // (the same on every rank); without, by its group, op and name, and place.
    a.seq = !f.arg_seq.empty();
    a.key = std::string(Unquote(f.arg_group)) + '\x1f' + std::string(op) + '\x1f' +
            (a.seq ? "seq " + std::string(Unquote(f.arg_seq)) : std::string(name));
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

  TimeBase Clock(const ParsedSource& s, const JobFacts& job) const override {
    if (s.said.base_time.empty()) return ChromeFormat().Clock(s, job);
    return {BaseKind::kKinetoBase, ParseScaled(s.said.base_time, 1).value_or(0), s.said.base_time};
  }

  Identity Identify(const ParsedSource& s, const JobFacts& job) const override {
    Identity id = ChromeFormat().Identify(s, job);
    id.rank = s.said.rank;
    if (!s.said.host.empty()) {
      id.host = s.said.host;
      id.host_from = "host_name";
    } else if (std::string host = HostOfFileName(BaseName(s.path)); !host.empty()) {
      id.host = std::move(host);
      id.host_from = "file name";
    }
    if (id.rank >= 0) id.label = "rank " + std::to_string(id.rank) + (id.host.empty() ? "" : " · " + id.host);
    // The device: the one GPU its processes' labels name ("GPU 1"), if one.
    for (const Proc& p : s.procs) {
      if (p.labels.rfind("GPU", 0) != 0 || p.labels == id.device) continue;
      if (!id.device.empty()) return id.device.clear(), id;  // (several: none said)
      id.device = p.labels;
    }
    return id;
  }

  // "<host>_<pid>.<time>.pt.trace.json[.gz]", as PyTorch's trace handler names
  // files (its default worker name is "<host>_<pid>") → "<host>"; else "".
  static std::string HostOfFileName(std::string_view base) {
    constexpr std::string_view kExt = ".pt.trace.json";
    if (EndsWith(base, ".gz")) base.remove_suffix(3);
    if (!EndsWith(base, kExt)) return "";
    base.remove_suffix(kExt.size());
    const size_t dot = base.rfind('.');
    if (dot == std::string_view::npos || !AllDigits(base.substr(dot + 1)) || base.size() - dot - 1 < 10) return "";
    const std::string_view worker = base.substr(0, dot);
    const size_t under = worker.rfind('_');
    if (under == std::string_view::npos || under == 0 || !AllDigits(worker.substr(under + 1)) ||
        worker.size() - under - 1 > 10)
      return "";
    return std::string(worker.substr(0, under));
  }
};

}  // namespace

const Format& KinetoFormat() {
  static const Kineto format;
  return format;
}

std::string KinetoHostOfFileName(std::string_view base) { return Kineto::HostOfFileName(base); }

}  // namespace tracemerge
