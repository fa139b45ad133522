// The merge pipeline: ingest (ingest.cc: inflate, classify, parse) → join and
// clock → window (timeline.cc) → tracks and lanes (tracks.cc) → sort → write
// (output.cc). Merge() runs the stages after the last source.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "merger_internal.h"
#include "numbers.h"
#include "radix_sort.h"

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

// ---- order -----------------------------------------------------------------

void TimeOrder::SortRun(std::vector<uint32_t>& run) const {
  // By time, then file order; traces are often nearly sorted already.
  auto before = [&](uint32_t a, uint32_t b) { return events_[a].ts != events_[b].ts ? events_[a].ts < events_[b].ts : a < b; };
  if (std::is_sorted(run.begin(), run.end(), before)) return;
  std::vector<std::pair<int64_t, uint32_t>> keyed(run.size());
  for (size_t k = 0; k < run.size(); k++) keyed[k] = {events_[run[k]].ts, run[k]};
  RadixSortByKey(keyed);  // stable: ties stay in file order
  for (size_t k = 0; k < run.size(); k++) run[k] = keyed[k].second;
}

void TimeOrder::AddRun(std::vector<uint32_t> run) {
  size_ += run.size();
  runs_.push_back(std::move(run));
}

TimeOrder::Cursor::Cursor(const TimeOrder& order, const std::vector<uint32_t>& from, std::vector<uint32_t> to)
    : order_(&order), end_(std::move(to)) {
  for (uint32_t r = 0; r < end_.size(); r++) {
    if (from[r] == end_[r]) continue;
    heap_.push_back({order.events_[order.runs_[r][from[r]]].ts, r, from[r]});
    size_ += end_[r] - from[r];
  }
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
}

std::vector<TimeOrder::Cursor> TimeOrder::Slices(size_t pieces) const {
  // Cut times: quantiles of a sample of every run's times. A slice holds the
  // events from one cut (inclusive) to the next, so equal times stay together.
  std::vector<int64_t> sample, cuts;
  const uint64_t step = std::max<uint64_t>(1, size_ / (std::max<size_t>(pieces, 1) * 16));
  if (pieces > 1)
    for (const auto& run : runs_)
      for (size_t k = 0; k < run.size(); k += step) sample.push_back(events_[run[k]].ts);
  std::sort(sample.begin(), sample.end());
  for (size_t k = 1; k < pieces && !sample.empty(); k++) {
    const int64_t t = sample[k * sample.size() / pieces];
    if (t > sample.front() && (cuts.empty() || t > cuts.back())) cuts.push_back(t);
  }
  std::vector<Cursor> slices;
  std::vector<uint32_t> from(runs_.size(), 0);
  for (size_t k = 0; k <= cuts.size(); k++) {
    std::vector<uint32_t> to(runs_.size());
    for (uint32_t r = 0; r < runs_.size(); r++) {
      const auto& run = runs_[r];
      to[r] = k == cuts.size() ? static_cast<uint32_t>(run.size())
                               : static_cast<uint32_t>(std::lower_bound(run.begin() + from[r], run.end(), cuts[k],
                                                                        [&](uint32_t i, int64_t t) { return events_[i].ts < t; }) -
                                                       run.begin());
    }
    slices.push_back(Cursor(*this, from, to));
    from = std::move(to);
  }
  return slices;
}

// Moves the heap's top down to its place after its key grew: one pass down,
// where pop_heap + push_heap would take two.
void TimeOrder::Cursor::SiftTop() {
  const size_t n = heap_.size();
  const Head top = heap_[0];
  size_t i = 0;
  for (size_t c; (c = 2 * i + 1) < n; i = c) {
    if (c + 1 < n && heap_[c] > heap_[c + 1]) c++;
    if (!(top > heap_[c])) break;
    heap_[i] = heap_[c];
  }
  heap_[i] = top;
}

size_t TimeOrder::Cursor::Next(uint32_t* out, size_t n) {
  const BlockVector<Event>& events = order_->events_;
  size_t got = 0;
  while (got < n && !heap_.empty()) {
    Head& h = heap_.front();
    const std::vector<uint32_t>& run = order_->runs_[h.run];
    const uint32_t end = end_[h.run];
    // Take this run's events while they stay first (no other run starts
    // earlier): the next run up is the smaller of the top's two children.
    const size_t size = heap_.size();
    const Head* next = size < 2 ? nullptr : size > 2 && heap_[1] > heap_[2] ? &heap_[2] : &heap_[1];
    do {
      // Sorted runs of unsorted files jump around in the index: load ahead.
      if (h.pos + 8 < end) __builtin_prefetch(&events[run[h.pos + 8]]);
      out[got++] = run[h.pos++];
    } while (got < n && h.pos < end && (!next || !(Head{events[run[h.pos]].ts, h.run, 0} > *next)));
    if (h.pos < end) {
      h.ts = events[run[h.pos]].ts;
    } else {
      h = heap_.back();
      heap_.pop_back();
    }
    if (!heap_.empty()) SiftTop();
  }
  return got;
}

// ---- merge -----------------------------------------------------------------

Report Merger::Merge(const Sink& sink) {
  Impl& m = *impl_;
  Report report;
  if (m.worker) {  // sources still waiting for the worker are parsed here meanwhile
    Source* waiting;
    while (m.worker->TakeBack(&waiting)) m.Finish(*waiting, m.parser);
  }
  m.worker.reset();  // once the last source is parsed
  m.spare_input.Free();
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
    id_base += s.id_count;
  }
  // Each source's metadata to carry and its kept events in time order (a run).
  TimeOrder order(m.events);
  std::vector<std::vector<uint32_t>> runs(m.sources.size()), metas(m.sources.size());
  std::vector<int64_t> last_end(m.sources.size(), 0);
  ForEach(m.sources.size(), m.Two(), [&](size_t k) {
    Source& s = m.sources[k];
    for (uint64_t i = s.first_event; i < s.first_event + s.event_count; i++) {
      const Event& e = m.events[i];
      if (e.ph == 'M') {
        // Process-level metadata follows its process; thread-level its thread.
        const Thread& t = s.threads[e.thread];
        if (t.used || (t.tid_text.empty() && s.procs[t.proc].used)) metas[k].push_back(static_cast<uint32_t>(i));
        else s.report.metadata_unused++;
      } else if (!e.keep) {
        s.report.events_outside++;
      } else {
        runs[k].push_back(static_cast<uint32_t>(i));
        last_end[k] = std::max(last_end[k], e.ts + Duration(e));
      }
    }
    order.SortRun(runs[k]);
  });
  std::vector<uint32_t> meta;
  for (size_t k = 0; k < m.sources.size(); k++) {  // in path order
    meta.insert(meta.end(), metas[k].begin(), metas[k].end());
    report.last_end_ns = std::max(report.last_end_ns, last_end[k]);
    order.AddRun(std::move(runs[k]));
  }
  if (order.size() == 0)
    m.warnings.push_back({Code::kEmptyWindow, "", 0, "no event falls in the window; the output has no events"});
  report.warnings = std::move(m.warnings);
  WriteOutput(m.sources, m.events, meta, order, process_names, thread_names, m.opt, &report, sink);
  return report;
}

}  // namespace tracemerge
