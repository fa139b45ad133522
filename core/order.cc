// Order: what the output carries, in output order — a lazy k-way merge of
// one sorted run per source.
#include <algorithm>
#include <functional>

#include "radix_sort.h"
#include "worker_pool.h"
#include "stages.h"

namespace tracemerge {

void TimeOrder::SortRun(const BlockVector<Event>& events, std::vector<uint32_t>& run) {
  // By time, then index; traces are often nearly sorted already.
  auto before = [&](uint32_t a, uint32_t b) { return events[a].ts != events[b].ts ? events[a].ts < events[b].ts : a < b; };
  if (std::is_sorted(run.begin(), run.end(), before)) return;
  std::vector<std::pair<int64_t, uint32_t>> keyed(run.size());
  for (size_t k = 0; k < run.size(); k++) keyed[k] = {events[run[k]].ts, run[k]};
  RadixSortByKey(keyed);  // stable: ties stay in index order
  for (size_t k = 0; k < run.size(); k++) run[k] = keyed[k].second;
}

void TimeOrder::AddRun(const BlockVector<Event>& events, std::vector<uint32_t> run) {
  size_ += run.size();
  events_.push_back(&events);
  const auto n = static_cast<uint32_t>(run.size());
  runs_.push_back({std::move(run), 0, n});
}

void TimeOrder::AddRange(const BlockVector<Event>& events, uint32_t first, uint32_t n) {
  size_ += n;
  events_.push_back(&events);
  runs_.push_back({{}, first, n});
}

TimeOrder::Cursor::Cursor(const TimeOrder& order, const std::vector<uint32_t>& from, std::vector<uint32_t> to)
    : order_(&order), end_(std::move(to)) {
  for (uint32_t r = 0; r < end_.size(); r++) {
    if (from[r] == end_[r]) continue;
    heap_.push_back({order.Ts(r, from[r]), r, from[r]});
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
    for (uint32_t r = 0; r < runs_.size(); r++)
      for (size_t k = 0; k < runs_[r].size; k += step) sample.push_back(Ts(r, static_cast<uint32_t>(k)));
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
      const Run& run = runs_[r];
      const BlockVector<Event>& events = *events_[r];
      uint32_t lo = from[r], hi = run.size;  // the first position at or after the cut
      while (k < cuts.size() && lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (events[run[mid]].ts < cuts[k]) lo = mid + 1;
        else hi = mid;
      }
      to[r] = k == cuts.size() ? run.size : lo;
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

size_t TimeOrder::Cursor::Next(EventRef* out, size_t n) {
  size_t got = 0;
  while (got < n && !heap_.empty()) {
    Head& h = heap_.front();
    const Run& run = order_->runs_[h.run];
    const BlockVector<Event>& events = *order_->events_[h.run];
    const uint32_t end = end_[h.run];
    // Take this run's events while they stay first (no other run starts
    // earlier): the next run up is the smaller of the top's two children.
    const size_t size = heap_.size();
    const Head* next = size < 2 ? nullptr : size > 2 && heap_[1] > heap_[2] ? &heap_[2] : &heap_[1];
    do {
      // Sorted runs of unsorted files jump around in their events: load ahead.
      if (h.pos + 8 < end) __builtin_prefetch(&events[run[h.pos + 8]]);
      out[got++] = {h.run, run[h.pos++]};
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

OutputOrder OrderOutput(Job& job, const TrackPlan& tracks) {
  // A source's run: its kept events in time order — a range of them while they
  // follow one another in time order (a source laid out so, layout.h), else a list.
  struct Run {
    std::vector<uint32_t> list;
    uint32_t first = 0, count = 0;
    bool listed = false;
  };
  const size_t n = job.sources.size();
  std::vector<Run> runs(n);
  std::vector<std::vector<uint32_t>> metas(n);
  std::vector<int64_t> last_end(n, 0);
  ForEach(n, job.threads, [&](size_t k) {
    ParsedSource& s = job.sources[k];
    const SourceTracks& st = tracks.sources[k];
    Run run;           // (runs[k] and last_end[k] written once: neighbours in one cache
    int64_t last = 0;  // line, written by two threads for every event, would share it)
    for (uint32_t i = 0; i < s.events.size(); i++) {
      const Event& e = s.events[i];
      if (e.ph == 'M') {
        // Process-level metadata follows its process; thread-level its thread.
        const Thread& t = s.threads[e.thread];
        if (!st.tids[e.thread].empty() || (t.tid_text.empty() && st.pid[t.proc] != 0)) metas[k].push_back(i);
        else s.report.metadata_unused++;
      } else if (!e.keep) {
        s.report.events_outside++;
      } else {
        if (!run.listed && run.count && (run.first + run.count != i || s.events[i - 1].ts > e.ts)) {
          run.listed = true;  // no longer a range: listed from here on
          run.list.reserve(s.events.size());
          for (uint32_t j = run.first; j < run.first + run.count; j++) run.list.push_back(j);
        }
        if (run.listed) run.list.push_back(i);
        else if (run.count++ == 0) run.first = i;
        last = std::max(last, e.ts + Duration(e));
      }
    }
    if (run.listed) TimeOrder::SortRun(s.events, run.list);
    runs[k] = std::move(run);
    last_end[k] = last;
  });
  OutputOrder out;
  for (uint32_t k = 0; k < n; k++) {  // in path order
    for (uint32_t i : metas[k]) out.meta.push_back({k, i});
    out.last_end_ns = std::max(out.last_end_ns, last_end[k]);
    if (runs[k].listed) out.order.AddRun(job.sources[k].events, std::move(runs[k].list));
    else out.order.AddRange(job.sources[k].events, runs[k].first, runs[k].count);
  }
  return out;
}

}  // namespace tracemerge
