// SageMaker Debugger's framework files: pythontimeline, model_timeline and
// horovod_timeline, named "<end_us>_<node id>_<kind>.json" under
// "<job>/framework/pevents/<hour>/". Each starts with a clock header (a
// process_name event whose args.start_time_since_epoch_in_micros the later
// times are relative to; it may repeat and re-base what follows). A node id is
// "<rank or pid>-<host>" (smdebug's get_node_id); a node's files of one kind
// are one stream rotated over files.
//
//   "job/framework/pevents/2020091312/1600000000_0-algo-1_horovod_timeline.json"
//     → kind horovod, node "0-algo-1": run "job", host "algo-1", stream "horovod 0-algo-1"
//   {"name":"Step:ModeKeys.TRAIN","ph":"X","ts":5,"args":{"step_num":"3"}}  (pythontimeline) → step 3
//   {"name":"ALLREDUCE","ph":"B","pid":4,…} … its E  → an anchor (Horovod op, tensor of pid 4)
#include "event_parser.h"
#include "formats/collectives.h"
#include "formats/format.h"
#include "numbers.h"
#include "source.h"
#include "tokenizer.h"

namespace tracemerge {
namespace {

// "1594662624718694_905-b88ab1bb8259_pythontimeline.json" → "905-b88ab1bb8259"
std::string NodeOf(std::string_view base, std::string_view suffix) {
  std::string_view s = base.substr(0, base.size() - suffix.size());
  if (!s.empty() && s.back() == '_') s.remove_suffix(1);
  const size_t us = s.find('_');
  if (us != std::string_view::npos && AllDigits(s.substr(0, us))) s.remove_prefix(us + 1);
  return std::string(s.empty() ? base : s);
}

class Smdebug final : public Format {
 public:
  FormatId id() const override { return FormatId::kSmdebug; }

  bool Recognise(std::string_view path, std::string_view head, Classification* c) const override {
    const std::string_view base = BaseName(path);
    if (!LooksLikeJson(head)) return false;
    struct Suffix {
      std::string_view text;
      Kind kind;
    };
    for (const Suffix& s : {Suffix{"pythontimeline.json", Kind::kPythonTimeline},
                            Suffix{"model_timeline.json", Kind::kModelTimeline},
                            Suffix{"horovod_timeline.json", Kind::kHorovod}})
      if (EndsWith(base, s.text)) {
        c->kind = s.kind;
        c->node = NodeOf(base, s.text);
        return true;
      }
    return false;
  }

  Header ReadHeader(ParsedSource& s, const EventFields& f, uint64_t offset) const override {
    if (f.ph != "M" || f.name != "process_name" || f.arg(ArgKey::kStartTime).empty()) return Header::kNo;
    const auto base = ParseMicros(f.arg(ArgKey::kStartTime));
    if (!base) {
      s.Warn(Code::kBadEvent, offset, "start_time_since_epoch_in_micros is not a number");
      return Header::kBad;
    }
    if (s.said.header && *base != s.said.header_base)
      s.Warn(Code::kNote, offset, "clock header repeated with a new start time; later events re-based");
    s.said.header = true;
    s.said.header_base = *base;
    return Header::kTaken;
  }

  void ReadEvent(ParsedSource& s, uint32_t index, char ph, const EventFields& f) const override {
    if (s.cls.kind == Kind::kPythonTimeline && !f.arg(ArgKey::kStepNum).empty()) {
      if (auto step = ParseScaled(f.arg(ArgKey::kStepNum), 1)) {
        s.step_kind = StepKind::kStepNum;
        s.steps.push_back({*step, index});
      }
    }
    // Horovod's op per tensor, from its B to its E (the tensor is its pid's name:
    // clock_check.cc adds it); the framework's host-side collective (model_timeline).
    const bool horovod = f.name == "ALLREDUCE" || f.name == "ALLGATHER" || f.name == "REDUCESCATTER";
    const bool host_op = ph == 'X' && f.name.rfind("nccl:", 0) == 0;
    if (!(horovod && ph == 'B') && !host_op) return;  // (before SymmetricOp: most events are neither)
    const std::string_view op = SymmetricOp(f.name);
    if (op.empty()) return;
    s.anchors.push_back({index, horovod ? AnchorTier::kHorovod : AnchorTier::kHostOp, false, ph == 'B',
                         std::string(op) + '\x1f' + std::string(f.name)});
  }

  TimeBase Clock(const ParsedSource& s, const JobFacts&) const override {
    if (!s.said.header) return {};
    return {BaseKind::kSmdebugHeader, s.said.header_base, FormatMicros(s.said.header_base), "", ""};
  }

  Identity Identify(const ParsedSource& s, const JobFacts&) const override {
    Identity id;
    id.run = SmdebugRun(s.path, s.in_folder);
    id.node = s.cls.node;
    id.host = HostOfNodeId(s.cls.node);
    id.host_from = "node id";
    id.stream = std::string(KindName(s.cls.kind)) + ' ' + s.cls.node;
    id.process = s.cls.node;
    id.label = s.cls.node + " · " + KindName(s.cls.kind);
    return id;
  }
};

}  // namespace

const Format& SmdebugFormat() {
  static const Smdebug format;
  return format;
}

}  // namespace tracemerge
