// An XPlane's dictionaries and stats (xplane.h).
#include <cmath>
#include <cstdio>
#include <cstring>

#include "formats/collectives.h"
#include "formats/xplane.h"
#include "stages.h"

namespace tracemerge {

void EventMetaEntry(WireReader entry, Dicts* d) {
  int64_t key = 0;
  EventMeta m;
  while (entry.Next()) {
    if (entry.field() == 1 && entry.wire() == kWireVarint) key = static_cast<int64_t>(entry.varint());
    if (entry.field() != 2 || entry.wire() != kWireBytes) continue;
    m.stats = entry.bytes();  // (its stats, field 5, read once the plane's stat names are known)
    WireReader value = entry.Message();
    while (value.Next()) {
      if (value.wire() != kWireBytes) continue;
      if (value.field() == 2) m.name = value.bytes();
      else if (value.field() == 4) m.display_name = value.bytes();
    }
  }
  d->events[key] = m;
}

void StatMetaEntry(WireReader entry, Dicts* d) {
  int64_t key = 0;
  std::string_view name;
  while (entry.Next()) {
    if (entry.field() == 1 && entry.wire() == kWireVarint) key = static_cast<int64_t>(entry.varint());
    if (entry.field() == 2 && entry.wire() == kWireBytes) {
      WireReader value = entry.Message();
      while (value.Next())
        if (value.field() == 2 && value.wire() == kWireBytes) name = value.bytes();
    }
  }
  d->stats[key] = {name, ""};
}

void Prepare(Dicts* d, bool device) {
  d->stats.Freeze();
  d->events.Freeze();
  for (auto& [id, m] : d->stats.all()) m.json = JsonEscape(m.name);
  bool kernels = false;
  for (auto& [id, m] : d->events.all()) {
    m.name_json = JsonEscape(m.name);
    if (!m.display_name.empty() && m.display_name != m.name) m.long_name = JsonQuote(m.display_name);
    WireReader ms(m.stats, 0);
    while (ms.Next())
      if (ms.field() == 5 && ms.wire() == kWireBytes) m.own.push_back(ReadStat(ms.Message(), *d));
    kernels |= device && IsNcclKernel(m.name);
  }
  if (!device) return;
  for (auto& [id, m] : d->events.all()) {
    std::string_view op;
    if (IsNcclKernel(m.name)) {
      op = SymmetricOp(m.name);
      m.anchor = op.empty() ? AnchorKind::kExchange : AnchorKind::kKernel;
    } else if (!kernels) {
      op = XlaCollectiveOp(m.name);
      m.anchor = op.empty() ? AnchorKind::kNone : AnchorKind::kKernel;
    }
    // By name and place, as every rank runs the same program.
    if (m.anchor == AnchorKind::kKernel) m.anchor_key = std::string(op) + '\x1f' + std::string(m.name);
  }
}

Stat ReadStat(WireReader st, const Dicts& d) {
  Stat v;
  int64_t mid = 0;
  while (st.Next()) {
    const WireType w = st.wire();
    switch (st.field()) {
      case 1: mid = static_cast<int64_t>(st.varint()); break;
      case 2: if (w == kWireFixed64) v.kind = Stat::kDouble, v.bits = st.fixed(); break;
      case 3:
        if (w != kWireVarint) break;
        v.kind = Stat::kUint, v.bits = st.varint();
        if (v.bits <= uint64_t{INT64_MAX}) v.integer = static_cast<int64_t>(v.bits);
        break;
      case 4: if (w == kWireVarint) v.kind = Stat::kInt, v.bits = st.varint(), v.integer = static_cast<int64_t>(v.bits); break;
      case 5: if (w == kWireBytes) v.kind = Stat::kStr, v.text = st.bytes(); break;
      case 6: if (w == kWireBytes) v.kind = Stat::kBytes, v.text = st.bytes(); break;
      case 7: if (w == kWireVarint) v.kind = Stat::kRef, v.bits = st.varint(); break;
      default: break;
    }
  }
  v.meta = d.stats.Find(mid);
  return v;
}

void AppendValue(ByteBuffer& out, const Stat& v, const Dicts& d) {
  auto digits = [&](uint64_t u, bool negative) {
    if (negative) out.push_back('-'), u = 0 - u;
    out.AppendUint(u);
  };
  switch (v.kind) {
    case Stat::kNone: break;
    case Stat::kDouble: {
      double x;
      std::memcpy(&x, &v.bits, sizeof x);
      if (!std::isfinite(x)) {
        out.append(std::isnan(x) ? "\"NaN\"" : x > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        break;
      }
      char buf[32];
      out.append(buf, static_cast<size_t>(std::snprintf(buf, sizeof buf, "%.17g", x)));
      break;
    }
    case Stat::kUint: {
      const bool quoted = v.bits > uint64_t{INT64_MAX};  // (beyond what a JSON reader keeps exact as an int64)
      if (quoted) out.push_back('"');
      digits(v.bits, false);
      if (quoted) out.push_back('"');
      break;
    }
    case Stat::kInt: digits(v.bits, static_cast<int64_t>(v.bits) < 0); break;
    case Stat::kStr:
      out.push_back('"');
      AppendJsonEscaped(out, v.text);
      out.push_back('"');
      break;
    case Stat::kBytes:
      out.append("\"(");
      digits(v.text.size(), false);
      out.append(" bytes)\"");
      break;
    case Stat::kRef: {
      const StatMeta* ref = d.stats.Find(static_cast<int64_t>(v.bits));
      out.push_back('"');
      if (ref) out.append(ref->json);
      out.push_back('"');
      break;
    }
  }
}

std::string Json(const Stat& v, const Dicts& d) {
  ByteBuffer b;
  AppendValue(b, v, d);
  return std::string(b.view());
}

}  // namespace tracemerge
