// The merge: (path, bytes) sources + options → one trace, streamed through a
// sink in chunks, and a report. Used unchanged by the CLI, the tests and wasm.
//
//   Options opt;  opt.start = 1594662618874598; opt.end = 1594662623418701;
//   Merger m(opt);
//   m.AddSource("job/framework/pevents/…/1_node_pythontimeline.json", bytes);
//   Report r = m.Merge([&](std::string_view chunk) { fwrite(…); });
//   r.fatal → nothing was written;  r.warnings → problems with file + offset
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "buffer.h"
#include "formats/format.h"
#include "gzip.h"
#include "kinds.h"
#include "status.h"

namespace tracemerge {

// The CMake project's version (CMakeLists.txt: project(… VERSION …)), the one of every artifact.
constexpr const char* kVersion = TRACEMERGE_VERSION;

enum class Unit { kTime, kStep };

struct Progress {
  // "parse" (done/total = input bytes), "plan" (the stages between the last source
  // parsed and the first byte written: done of total) or "write" (events)
  const char* stage = "";
  uint64_t done = 0, total = 0;
};
enum class Group { kSource, kPhase };
// --align: move sources once, so that they line up — by their collectives
// (each host's clock shifted by its estimate) or by a step they share.
enum class Align { kNone, kClocks, kSteps };

// Where output templates go when a job outgrows memory (Options.memory_budget).
// Each source's templates are appended once, in pieces, right after the source
// is parsed; the writer reads them back in ~256 KB windows, mostly forward.
// Implementations: FileStore (a temporary file, store.h), the JS glue (outside
// the wasm heap: ArrayBuffers in Node, Blobs in the page).
class TemplateStore {
 public:
  virtual ~TemplateStore() = default;
  // Appends bytes to those of `key`; false when they could not be stored.
  virtual bool Put(uint32_t key, std::string_view bytes) = 0;
  // Copies bytes [offset, offset + length) of `key` to out; false on failure.
  virtual bool Get(uint32_t key, uint64_t offset, uint64_t length, char* out) = 0;
};

struct Options {
  std::optional<int64_t> start, end;  // Unix µs (unit=time) or step numbers (unit=step)
  Unit unit = Unit::kTime;
  unsigned kinds = kAllKinds;  // suffix filter: KindBit() of the kinds to merge
  Group group = Group::kSource;
  // Manual clock offsets in µs, by path: exact path, a folder prefix, or a
  // path suffix ("rank-1.json") selects sources.
  std::vector<std::pair<std::string, int64_t>> offsets_us;
  Align align = Align::kNone;
  bool gzip = false;
  bool event_array = false;  // a bare JSON array of events, smdebug's shape (no metadata: the report apart)
  std::string name_tag;      // the default output name's middle: "<end_us>_<tag>_merged_timeline.json" (smdebug's node id)
  uint64_t max_inflated_bytes = uint64_t{4} << 30;  // per file
  std::string max_inflated_why;  // why that limit, said after it in TOO_LARGE (" (…)"), or ""
  // One source at a time may hold an inflated input larger than this; the
  // others wait for it to be parsed (the native CLI: a quarter of its budget
  // shared by the threads' inputs; see cli/run.cc).
  uint64_t big_input_bytes = UINT64_MAX;
  int max_depth = 256;                              // JSON nesting per event
  uint64_t max_string_bytes = uint64_t{64} << 20;  // one JSON string (name, arg, …)
  // Called now and then during Merge(); return false to cancel. A cancelled
  // merge reports CANCELLED; bytes already sent to the sink are incomplete.
  std::function<bool(const Progress&)> progress;
  // Output templates (about the input, compacted) stay in memory while they and
  // the event index (~44 bytes an event) fit in this many bytes; the templates
  // of the sources beyond it go to `store` (when set) as they are parsed.
  uint64_t memory_budget = UINT64_MAX;
  std::shared_ptr<TemplateStore> store;
  // Threads the merge may use, the caller's included (the same output
  // whatever the number). Beyond 1: sources are inflated and parsed on
  // threads - 1 workers too — a source that ends while none of them is free
  // and one already waits is parsed by the caller, so at most 2 × threads
  // sources' inputs are in memory (a gzip one still compressed while it
  // waits); "parse" progress is not reported then, and Options.store must
  // take Put() from any thread (one at a time). The stages after the last
  // source share their loops, and the output's time slices are rendered on
  // all threads in turn (not with a store). The native CLI sets --threads
  // (default: the machine's cores).
  unsigned threads = 1;
  // Parse and resolve the window only: the report describes the job (span,
  // steps, sources, warnings); nothing is written.
  bool scan_only = false;
};

// Parses "--only" style names and "time"/"step", "source"/"phase", "clocks"/"steps"/"none".
Result<Unit> ParseUnit(std::string_view s);
Result<Group> ParseGroup(std::string_view s);
Result<Align> ParseAlign(std::string_view s);
const char* AlignName(Align a);  // "none", "clocks", "steps"

struct SourceReport {
  std::string path;
  Kind kind = Kind::kSkipped;
  std::string node;
  bool included = true;  // false: skipped, filtered out, or failed
  std::string note;      // why not included, or what it contributes
  uint64_t bytes = 0;           // as given (compressed if gzipped)
  uint64_t inflated_bytes = 0;  // after inflate
  uint32_t piece = 0, pieces = 1;  // a file of several ranks is one source per rank (SplitRanks): which, of how many
  uint64_t events_read = 0;     // event records found in the file
  uint64_t events_kept = 0;     // written to the output
  uint64_t events_dropped = 0;  // invalid, reported in warnings
  uint64_t metadata_merged = 0; // process/thread names and clock headers folded into tracks
  uint64_t metadata_unused = 0; // metadata of processes with no event in the window
  uint64_t events_outside = 0;  // valid events outside the time window
  std::string time_base;        // how ts became absolute Unix µs
  BaseKind time_base_kind = BaseKind::kNone;
  std::string time_base_value;  // what it was read from: "1594662597687738", a sidecar's name, "" 
  std::string time_base_why;    // why that one, where there was a choice (a TF trace's sidecar), else ""
  bool absolute = false;        // false: relative times (NO_CLOCK)
  Identity identity;            // who recorded it (identity.h)
  int64_t offset_us = 0;        // manual offset applied
  int32_t clock_host = -1;      // its host in Report::clock_hosts (the clock check), or -1
  // Moves beyond its time base and --offset, each recorded:
  int64_t aligned_ns = 0;  // by --align (clocks or steps)
  int64_t placed_ns = 0;   // a clockless source placed at the job's start (or a relative job moved to 0)
};

// The clock check's result for one clock domain (clock_check.h) (a host within a run, or a source whose host
// nothing says).
struct HostClock {
  enum class Verdict : uint8_t {
    kReference,  // the run's reference: the others are measured against it
    kChecked,    // measured; offset (and rate) stand
    kUnchecked,  // could not be told (reason)
  };
  std::string run, host;          // host: identity's, else (not known) "rank 3" or the source's node
  bool host_known = true;         // a host was said (else it is a rank's or a file's clock, not a host's)
  std::vector<uint32_t> sources;  // job.sources indices, in path order
  Verdict verdict = Verdict::kUnchecked;
  bool collectives = false;       // it has collectives to compare (else, unchecked, there was nothing to check)
  std::string reason;             // why unchecked
  std::string from;               // what was matched: "NCCL kernels", "Horovod ops", "host-side collectives"
  std::string reference;          // the reference host
  uint32_t anchors = 0;           // matched collective ends that agree (inliers)
  uint32_t matched = 0;           // matched collective ends in all
  // Its clock minus the reference's, at at_ns (ns on its own clock): offset +
  // rate × (t − at_ns). Add the negative to its times to line them up.
  int64_t offset_ns = 0, uncertainty_ns = 0, at_ns = 0;
  bool drift = false;  // a rate was fitted
  double rate_ppm = 0, rate_uncertainty_ppm = 0;
  int64_t first_ns = 0, last_ns = 0;  // the span of its matched collectives
  bool skew = false;                  // off beyond chance (3σ: Student's t, clock_check.cc) and 5 µs, somewhere in that span
  bool relative = false;              // its times are relative (no clock) and the reference's absolute: the offset
                                      // is where its collectives place it, not a clock's error (NO_CLOCK says so)

  int64_t OffsetAt(int64_t t) const;  // its clock minus the reference's at t (ns, its clock)
  int64_t Worst() const;              // the largest |offset| over its matched span
  std::string Label() const;          // what to call it: "algo-2", "rank 3 (host not known)"
};

// Who waits for whom (waits.h): per rank and step, how long the step took
// there, the time spent waiting in collectives matched across ranks for the
// last to arrive, the time in communication kernels of any kind — and per
// step the ranks the others waited for, only when the data shows it.
struct RankWaits {
  std::string label;          // its group: "rank 3 · host-b", the node id "0-algo-1"
  std::string run;            // its run ("" for files given by themselves)
  std::string path;           // its (first) source
  bool clock_checked = true;  // its host's clock checked: its arrival times are sure (its waits are anyway)
  int64_t wait_ns = 0;        // in all matched collectives
  uint32_t collectives = 0;   // matched collectives it took part in
  int64_t comm_ns = 0;        // in communication kernels (matched or not: send/recv, all-to-all, …)
  uint32_t held = 0;          // steps in which the others waited for it
};
struct StepRank {
  int64_t span_ns = -1;  // first to last moment of the step there (-1: the rank has no such step)
  int64_t wait_ns = 0;   // waiting in the step's matched collectives
  int64_t comm_ns = 0;   // in communication kernels that began in the step
};
struct StepWaits {
  std::string run;
  int64_t step = 0;
  int64_t start_ns = 0;          // its first moment on any rank (absolute)
  uint32_t collectives = 0;      // matched across ranks in this step
  std::vector<StepRank> ranks;   // by rank (Waits::ranks)
  std::vector<int32_t> held_by;  // the ranks the others waited for: last consistently, beyond chance
  uint32_t late_count = 0;       // collectives at which each of them was among the last (the fewest of them)
  int64_t lost_ns = 0;           // what the other ranks together waited in the step's collectives
  uint32_t others = 0;           // those other ranks (that took part in them)
  std::string why;               // held_by empty: why no rank is named
};
struct Waits {
  std::string from;  // "NCCL kernels", "Horovod ops"; "" when no collective is matched across ranks
  uint32_t collectives = 0;
  std::vector<RankWaits> ranks;  // by run, rank number, name (natural order)
  std::vector<StepWaits> steps;  // by run, then step
};

struct Report {
  std::optional<Diagnostic> fatal;  // set: the merge did not produce output
  int64_t window_start_ns = 0, window_end_ns = 0;  // resolved window (absolute)
  bool window_bounded = false;
  std::optional<int64_t> start_step, end_step;
  Align align = Align::kNone;
  std::optional<int64_t> align_step;  // the step that --align steps lined up
  std::vector<SourceReport> sources;
  std::vector<HostClock> clock_hosts;  // the clock check, per host (SourceReport::clock_host)
  bool clock_attempted = false;        // some run had hosts with collectives to compare
  double clock_check_seconds = 0;      // how long the clock check took (TRACEMERGE_STATS)
  // How long each stage of Merge() took, in order (TRACEMERGE_STATS): "tail"
  // (sources still being parsed when the reading ended), then the plan's
  // stages up to the first byte written: "identity+clocks",
  // "clock-check+align", "waits", "describe", "window+tracks", "order".
  std::vector<std::pair<std::string, double>> plan_seconds;
  Waits waits;                         // who waits for whom at the collectives
  std::vector<Diagnostic> warnings;  // soft problems and notes, file + offset
  uint64_t events_written = 0;
  uint64_t bytes_written = 0;
  int64_t last_end_ns = 0;  // latest kept event end (default output name)
  int64_t job_start_ns = 0, job_end_ns = 0;         // span of all events read
  std::vector<std::pair<int64_t, int64_t>> steps;   // (step, first ts), in time order
  std::string steps_from;                           // where the steps came from
  bool scan_only = false;                           // described, not merged
  uint32_t threads_out_of_lanes = 0;  // threads with more overlapping slices than lanes (a NOTE each)
  std::string overview_json;          // a scan's overview (stages.h OverviewJson), for the page

  std::string Summary() const;  // human-readable, for stderr / the page
  std::string ToJson() const;   // the "tracemerge" object embedded in the output
};

// A gzip file's last 4 bytes hold its inflated size modulo 2^32: a good
// allocation hint when it is not smaller than the file (then it wrapped).
//   GzipSizeHint(first_two_bytes, last_four_bytes, file_size) → bytes, or file_size; a hint, no
//   more than deflate can inflate file_size bytes to (1032×: a forged or cut file's tail says anything)
uint64_t GzipSizeHint(std::string_view head, std::string_view tail4, uint64_t file_size);

// The order of a merge's sources, whoever lists them (the merge itself, the CLIs' folders,
// the page's file table): by name, byte for byte (UTF-8: by code point), ties as given.
//   FileOrder({"job/b.json", "job/a/x.json"}) → {1, 0}
std::vector<uint32_t> FileOrder(const std::vector<std::string>& names);

class Merger {
 public:
  explicit Merger(Options options);
  ~Merger();
  Merger(const Merger&) = delete;
  Merger& operator=(const Merger&) = delete;

  // Streams one source in chunks of any size (gzip is inflated as it comes).
  // size_hint: the expected (inflated) size, if known, so that the buffer is
  // allocated once; see GzipSizeHint(). in_folder: found in a folder walk (a
  // dropped folder), not named by itself — an earlier merge's output found so
  // is skipped (merged again, it would count its events twice); named by
  // itself it is merged, with a note.
  void BeginSource(std::string path, uint64_t size_hint = 0, bool in_folder = false);
  void AppendChunk(std::string_view bytes);
  // The same without a copy: ChunkRoom(n) is where the next n bytes may be
  // written (a plain file's go straight where they are parsed), valid until
  // AppendRoom(k) says how many were.
  char* ChunkRoom(size_t n);
  void AppendRoom(size_t k);
  // How many bytes to ask ChunkRoom for next, at most max (stream.h: no more
  // than the size hint leaves, so that the source's buffer is not regrown).
  size_t ChunkSize(size_t max) const;
  void EndSource();
  // The open source let go, neither parsed nor reported: its reading was stopped (Ctrl-C), and
  // what came of it is not a file cut short.
  void DropSource();
  void AddSource(std::string path, std::string_view bytes) {
    BeginSource(std::move(path));
    AppendChunk(bytes);
    EndSource();
  }

  // Sources parsed elsewhere — by another Merger with the same options, in a
  // second wasm instance (a Worker) — come in as bytes: ExportSource() takes
  // the last source, once ended, out of its merger (its templates move into
  // the bytes, with its events, tables and report; empty with
  // parse_in_background, or when its templates went to the store), and
  // ImportSource() adds it to this merge as if it had been read here (false:
  // not such bytes; they must come from ExportSource of this build — checked
  // for shape, not content). `arrival` places it among sources of the same
  // path, as BeginSource's order does: ReserveArrival() numbers one whose
  // bytes come later.
  ByteBuffer ExportSource();
  // The same bytes in two parts, the first ending with the templates (whose
  // buffer then need not grow): ExportSource(&tail) + tail == ExportSource().
  ByteBuffer ExportSource(std::string* tail);
  uint32_t ReserveArrival();
  // No more sources are read here (imports may still come): frees the input
  // buffer kept for a next one, so that the imports can use its room.
  void DoneReading();
  bool ImportSource(std::string_view bytes, uint32_t arrival);
  bool ImportSource(ByteBuffer bytes, uint32_t arrival);  // its templates stay in this buffer

  // Runs the merge once. Output bytes (gzipped if options.gzip) go to sink.
  // A scan (options.scan_only) first thins every source as Summarize does:
  // the same map, here (summary.h).
  Report Merge(const Sink& sink);

  // The scan's map instead of a merge: the sources read, each thinned, as a
  // summary file's bytes (summary.h) — for a scan's reduce elsewhere.
  std::string Summarize();
  // The sources of a summary file (named `name`) join this scan as if read
  // here; its error (another version, damaged) otherwise, nothing added.
  Status ImportSummary(std::string_view bytes, const std::string& name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tracemerge
