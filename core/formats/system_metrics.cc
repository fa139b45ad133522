// SageMaker Debugger's system metrics: JSON lines under
// "<job>/system/incremental/<hour>/<epoch_s>.<node>.json", one sample a line,
//   {"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":4.76,"NodeId":"algo-1","Timestamp":1591160699.45}
// with the time in Unix seconds and the host in NodeId (the file name's node
// when a line has none). A broken last line is normal: the writer appends.
// Each sample becomes a counter event "<Name>_<Dimension>" on its node's track.
#include <cstdlib>

#include "event_parser.h"
#include "formats/format.h"
#include "numbers.h"
#include "source.h"
#include "tokenizer.h"

namespace tracemerge {
namespace {

// The fields of a line the merge reads, and what they say.
constexpr std::string_view kKey[] = {"Name", "Dimension", "NodeId", "Value", "Timestamp"};
constexpr size_t kKeys = sizeof kKey / sizeof kKey[0];
struct Metric {
  std::string_view name, dimension, node;  // string contents, quotes stripped
  std::string_view value, timestamp;       // raw tokens
};

// The first line of JSON-lines system metrics names these fields.
bool LooksLikeMetrics(std::string_view head) {
  const std::string_view line = head.substr(0, head.find('\n'));
  return !line.empty() && line.front() == '{' && line.find("\"Dimension\"") != std::string_view::npos &&
         line.find("\"Timestamp\"") != std::string_view::npos;
}

class SystemMetrics final : public Format {
 public:
  FormatId id() const override { return FormatId::kSystemMetrics; }

  bool Recognise(std::string_view path, std::string_view head, Classification* c) const override {
    if (!LooksLikeMetrics(head)) return false;
    const std::string_view base = BaseName(path);
    c->kind = Kind::kSystem;
    const size_t dot = base.find('.'), json = base.find(".json");
    c->node = (dot != std::string_view::npos && json != std::string_view::npos && json > dot)
                  ? std::string(base.substr(dot + 1, json - dot - 1))
                  : FileLabel(base);
    return true;
  }

  bool ReadLines(ParsedSource& s, std::string_view data, LineContext& cx) const override {
    ScanLines(data, [&](Span sp) {
      if (!cx.Tick(sp.offset)) return;
      std::string_view t[kKeys];
      std::string error;
      s.report.events_read++;
      const bool last = sp.offset + sp.length >= data.size();
      const bool parsed = cx.parser().ParseRecord(data.data() + sp.offset, sp.length, kKey, kKeys, t, &error);
      const Metric m{Unquote(t[0]), Unquote(t[1]), Unquote(t[2]), t[3], t[4]};
      if (!parsed || m.timestamp.empty() || m.value.empty() || !IsPortableNumber(m.value)) {
        s.report.events_dropped++;
        if (last) return s.Warn(Code::kNote, sp.offset, "last line is incomplete (writer was still appending); skipped");
        return s.Warn(Code::kBadJson, sp.offset,
                      "metrics line dropped: " + (error.empty() ? std::string("missing or bad Timestamp/Value") : error));
      }
      const auto ts = ParseScaled(m.timestamp, 1000000000);
      if (!ts) {
        s.report.events_dropped++;
        return s.Warn(Code::kBadEvent, sp.offset, "Timestamp is not a number in range; line dropped");
      }
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
      e.length = static_cast<uint32_t>(a.size() - e.offset);
      e.thread = cx.Thread(m.node.empty() ? std::string_view(s.cls.node) : m.node, "");
      e.ph = 'C';
      e.ts = *ts;
      e.has_ts = true;
      e.based = true;
      s.events.push_back(e);
    });
    return true;
  }

  // Its value and dimension, from the template ReadLines wrote
  // ({"name":"<Name>_<Dimension>","ph":"C",…,"args":{"value":V}}).
  bool Sample(const ParsedSource& s, const Event& e, std::string* dimension, double* value) const override {
    if (s.stored) return false;
    const std::string_view t = s.arena.view().substr(e.offset, e.length);
    const size_t name = t.find("\"name\":\""), under = t.find('_', name + 8), quote = t.find('"', name + 8);
    const size_t v = t.rfind("\"value\":");
    if (name == std::string_view::npos || v == std::string_view::npos || quote == std::string_view::npos) return false;
    *dimension = std::string(under < quote ? t.substr(under + 1, quote - under - 1) : t.substr(name + 8, quote - name - 8));
    *value = std::strtod(std::string(t.substr(v + 8)).c_str(), nullptr);
    return true;
  }

  std::string_view ProcessName(const ParsedSource&) const override { return "metrics"; }

  TimeBase Clock(const ParsedSource&, const JobFacts&) const override { return {BaseKind::kUnixSeconds, 0, "", "", ""}; }

  Identity Identify(const ParsedSource& s, const JobFacts&) const override {
    Identity id;
    id.run = SmdebugRun(s.path, s.in_folder);
    id.node = s.cls.node;
    // The node its lines name (they all name one), else its file's.
    const bool said = !s.procs.empty() && !s.procs[0].pid_text.empty();
    id.host = said ? s.procs[0].pid_text : s.cls.node;
    id.host_from = said ? "NodeId" : "file name";
    id.stream = "system " + s.cls.node;
    id.label = s.cls.node + " · system";
    return id;
  }
};

}  // namespace

const Format& SystemMetricsFormat() {
  static const SystemMetrics format;
  return format;
}

}  // namespace tracemerge
