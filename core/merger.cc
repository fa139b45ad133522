// The merge pipeline: ingest (ingest.cc: inflate, classify, parse) → join and
// clock → window (timeline.cc) → tracks and lanes (tracks.cc) → sort → write
// (output.cc). Merge() runs the stages after the last source.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "merger_internal.h"
#include "numbers.h"

namespace tracemerge {

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

// ---- merge -----------------------------------------------------------------

Report Merger::Merge(const Sink& sink) {
  Impl& m = *impl_;
  Report report;
  std::string().swap(m.spare_input);
  m.scratch_arena.Free();
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
  std::vector<std::pair<int64_t, uint64_t>> order;  // (ts, canonical place): a stable sort by ts
  uint64_t kept = 0;
  for (const Event& e : m.events) kept += e.ph != 'M' && e.keep;
  order.reserve(kept);
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
      order.push_back({e.ts, m.Canon(i)});
      report.last_end_ns = std::max(report.last_end_ns, e.ts + Duration(e));
    }
  }
  std::sort(meta.begin(), meta.end(), [&](uint32_t a, uint32_t b) { return m.Canon(a) < m.Canon(b); });
  std::sort(order.begin(), order.end());
  for (auto& [ts, place] : order)  // back to event indices for the writer
    place = m.sources[place >> 40].first_event + (place & ((uint64_t{1} << 40) - 1));
  if (order.empty())
    m.warnings.push_back({Code::kEmptyWindow, "", 0, "no event falls in the window; the output has no events"});
  report.warnings = std::move(m.warnings);
  WriteOutput(m.sources, m.events, meta, order, process_names, thread_names, m.opt, &report, sink);
  return report;
}

}  // namespace tracemerge
