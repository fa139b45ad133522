// The stages after ingest, in pipeline order. Each is a function from the
// products before it to its own; Merger::Merge() (merger.cc) calls them:
//
//   parsed sources ─ JoinSources ─→ Job ─ ApplyClocks ─→ Job (absolute times)
//     ─ AlignSources (align.h) ─→ Job (clocks checked; moved by --align; clockless placed)
//     ─ DescribeJob ─→ JobShape ─ ResolveWindow ─→ Window ─ ApplyWindow ─→ Job (keep)
//     ─ AssignTracks ─→ TrackPlan (+ lanes) ─ OrderOutput ─→ OutputOrder ─ WriteOutput ─→ sink
//
// Each is tested alone (tests/unit/<stage>_test.cc) on jobs made of a few parsed sources.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gzip.h"
#include "merger.h"
#include "source.h"

namespace tracemerge {

// ---- join (merger.cc) ----------------------------------------------------------------------
// The sources of one merge in path order, ties in arrival order: the order of
// the output's ties, whatever order the files arrived in.
struct Job {
  std::vector<ParsedSource> sources;
  int threads = 1;  // the stages may share their loops with this many threads (ForEach)
  JobFacts facts;   // what the formats know of the job's files (identity.h)
  size_t runs = 0;  // runs among the included sources (identity.h)
  uint32_t domains = 0;  // clock domains (Identity::domain)
};
Job JoinSources(std::deque<ParsedSource> parsed, int threads);
// The sources' warnings, in path order (taken out of them).
std::vector<Diagnostic> TakeWarnings(Job& job);

// ---- identity (identity.h): who recorded each source, the job's clock domains ----------------

// ---- clocks (clocks.cc) --------------------------------------------------------------------
// Every included source's times made absolute Unix ns: its time base, as its
// format says (smdebug header, TF sidecar, Kineto baseTimeNanoseconds, or Unix
// µs already), plus its manual offset (by path: PathMatches). A source with no
// time base stays relative (align.h then places it and warns NO_CLOCK). Sets
// report.time_base(_kind), absolute, offset_us. After IdentifySources. An offset
// whose PATH names no source (a typo, not an offset quietly dropped): the USAGE
// error it returns.
//   {ts 5 µs, baseTimeNanoseconds 1e18} → ts 1e18 + 5000 ns
Status ApplyClocks(Job& job, const std::vector<std::pair<std::string, int64_t>>& offsets_us);
// Moves every timed event of s by ns (saturating; durations kept; metadata not before 0):
// the one way an offset, --align or a clockless placement moves a source.
void ShiftSource(ParsedSource& s, int64_t ns);

// "rank-1.json" matches "job/rank-1.json"; "job/system" matches everything under it.
bool PathMatches(std::string_view path, std::string_view pattern);

// ---- window (window.cc) --------------------------------------------------------------------
// The job as found: its span and its steps.
struct JobShape {
  int64_t start_ns = INT64_MAX, end_ns = INT64_MIN;  // of all events read (start > end: none)
  std::vector<std::pair<int64_t, int64_t>> steps;    // (step, first ts), in time order
  std::string steps_from;                            // where the steps came from
};
JobShape DescribeJob(const Job& job);

struct Window {
  int64_t start_ns = INT64_MIN, end_ns = INT64_MAX;  // absolute ns, ends included
  bool bounded = false;
  std::optional<int64_t> start_step, end_step;
};
// The window options ask for, in ns: time bounds, or steps by the reference's
// rule (start = the start step's first event; end = 1 µs before the end
// step's). A fatal problem (a bound out of range, an unknown step) instead, with the
// window as far as it was resolved (the report shows it).
Result<Window> ResolveWindow(const Options& options, const JobShape& shape);
// Sets Event::keep: X slices overlapping the window, B/E (per thread) and
// async pairs (per category and id) kept or dropped together, other events by ts.
void ApplyWindow(const Window& window, Job& job);

// {(3,t),(1,t),(2,t),(7,t)} → "1-3, 7"
std::string StepList(const std::vector<std::pair<int64_t, int64_t>>& steps);

// What the page draws before merging (overview.cc), as JSON: per source its
// events counted in `bins` over the job's span, its steps (first and last
// moment of each) and its system metrics (each dimension's mean per bin).
//   → {"bins":256,"start_us":…,"end_us":…,"lanes":[{"source":0,"density":[…],"steps":[[1,t0,t1],…],
//       "counters":[{"name":"GPUUtilization","values":[12.5,null,…]}]}, …]}
std::string OverviewJson(const Job& job, const JobShape& shape, size_t bins);

// ---- tracks (tracks.cc, lanes.cc) ----------------------------------------------------------
struct SourceTracks {
  std::vector<uint32_t> pid;                // by proc: output pid; 0 = no kept event
  std::vector<std::vector<uint32_t>> tids;  // by thread: output tid of lane 0, 1, …; empty = no kept event
};
struct TrackPlan {
  std::vector<SourceTracks> sources;                                      // as job.sources
  std::vector<std::pair<uint32_t, std::string>> process_names;            // (pid, JSON-escaped name)
  std::vector<std::tuple<uint32_t, uint32_t, std::string>> thread_names;  // (pid, tid, name)
  std::vector<Diagnostic> warnings;  // threads whose overlaps need more lanes than there are
};
// Output pids and tids (positive, below 2^31) for the processes and threads
// with kept events: one process per (source, original pid) with group=source
// — smdebug's rotated files of one node and kind join — or per process name
// with group=phase; X slices that overlap without nesting get lanes (Event::lane),
// each lane a thread "<name> #2", ….
TrackPlan AssignTracks(Job& job, Group group);

// One X slice of a thread, for the lane rule.
struct LaneSlice {
  int64_t ts, dur;  // ns
  uint64_t canon;   // place in the canonical order: ties in time go by it
};
// The lane of each slice (0, 1, …; at most 254): slices of one lane nest or
// follow each other whether read exactly, as Perfetto reads them or as JS
// doubles (viewer_time.h). Returns the number of lanes used (≥ 1); *capped
// when some slices had to share the last lane all the same.
constexpr size_t kMaxLanes = 255;
size_t AssignLanes(const LaneSlice* slices, size_t n, std::vector<uint8_t>* lanes, bool* capped = nullptr);
inline size_t AssignLanes(const std::vector<LaneSlice>& slices, std::vector<uint8_t>* lanes, bool* capped = nullptr) {
  return AssignLanes(slices.data(), slices.size(), lanes, capped);
}

// ---- order (order.cc) ----------------------------------------------------------------------
struct EventRef {
  uint32_t source, index;  // job.sources[source].events[index]
};

// The kept events in output order — by time, ties by source (path order),
// then the source's own order — merged lazily from one sorted run per source:
// 4 bytes an event instead of a global 16-byte sort key.
class TimeOrder {
 public:
  TimeOrder() = default;
  // Sorts a run (indices into events, ascending) by time, ties in index
  // order. Const: runs of different sources may be sorted on different threads.
  static void SortRun(const BlockVector<Event>& events, std::vector<uint32_t>& run);
  // Adds the next run (run r is source r's), sorted by SortRun.
  void AddRun(const BlockVector<Event>& events, std::vector<uint32_t> run);
  // Adds the next run as the events [first, first + n), in time order already
  // (a source laid out in time order: no list of indices).
  void AddRange(const BlockVector<Event>& events, uint32_t first, uint32_t n);
  uint64_t size() const { return size_; }

  // Reads one stretch of the order (the runs stay shared and unchanged, so
  // cursors may be read on different threads).
  class Cursor {
   public:
    // Fills out with up to n next events; 0 at the end.
    size_t Next(EventRef* out, size_t n);
    uint64_t size() const { return size_; }

   private:
    friend class TimeOrder;
    struct Head {
      int64_t ts;
      uint32_t run, pos;
      bool operator>(const Head& o) const { return ts != o.ts ? ts > o.ts : run > o.run; }
    };
    Cursor(const TimeOrder& order, const std::vector<uint32_t>& from, std::vector<uint32_t> to);
    void SiftTop();
    const TimeOrder* order_;
    std::vector<uint32_t> end_;  // per run: where this stretch ends
    std::vector<Head> heap_;
    uint64_t size_ = 0;
  };
  // The order in consecutive slices, by time: every event of a slice comes
  // before those of the next. About `pieces` slices of similar size (fewer
  // when many events share a time); Slices(1) is the whole order.
  std::vector<Cursor> Slices(size_t pieces) const;

 private:
  // One run: its events' indices, or (none listed) the range from `first`.
  struct Run {
    std::vector<uint32_t> index;
    uint32_t first = 0, size = 0;
    uint32_t operator[](uint32_t pos) const { return index.empty() ? first + pos : index[pos]; }
  };
  int64_t Ts(uint32_t run, uint32_t pos) const { return (*events_[run])[runs_[run][pos]].ts; }
  std::vector<const BlockVector<Event>*> events_;  // by run
  std::vector<Run> runs_;                           // added in source order: ties go to the earlier
  uint64_t size_ = 0;
};

struct OutputOrder {
  std::vector<EventRef> meta;  // metadata events to carry (of used processes and threads), source by source
  TimeOrder order;             // the kept events
  int64_t last_end_ns = 0;     // latest end among them (the default output name)
};
// Counts each source's events outside the window and metadata of unused
// processes in its report.
OutputOrder OrderOutput(Job& job, const TrackPlan& tracks);

// ---- output (output.cc) --------------------------------------------------------------------
// Writes the merged JSON — track names, carried metadata, the events in
// order, then report->ToJson() — to sink in ~1 MB chunks (gzipped with
// options.gzip), rendering time slices on options.threads threads in turn
// (not with a store). Adds events_kept to each
// source's report and events/bytes written to *report; sets report->fatal to
// CANCELLED (options.progress said stop) or IO (the store failed).
void WriteOutput(Job& job, const TrackPlan& tracks, const OutputOrder& order, const Options& options, Report* report,
                 const Sink& sink);

std::string JsonEscape(std::string_view s);
// As a JSON string: JsonQuote("a\"b") → "\"a\\\"b\"".
std::string JsonQuote(std::string_view s);
// The same appended to out (a ByteBuffer, a string), with no copy when nothing needs it.
template <class Out>
void AppendJsonEscaped(Out& out, std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return void(out.append(JsonEscape(s)));
  out.append(s);
}

}  // namespace tracemerge
