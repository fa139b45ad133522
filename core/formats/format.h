// Input formats: what one producer's files mean. Each format is one module
// (core/formats/<name>.cc, one test file each: tests/unit/<name>_test.cc)
// behind this small interface — recognise a file, read its clock header,
// steps and collectives while it is parsed, say its time base and who
// recorded it. The stages ask a source (its Identity, TimeBase, steps,
// anchors) and never look at its kind or path themselves; adding a format is
// one new file here, one line in registry.h, and its tests.
//
//   "job/framework/pevents/2020071317/1594662624718694_0-algo-1_pythontimeline.json"
//     → smdebug: run "job", host "algo-1" (node id <rank|pid>-<host>), steps from args.step_num
//   "ranks/ip-10-0-0-7_4242.1700000000123456789.pt.trace.json.gz" without host_name
//     → kineto: run "ranks" (the dropped folder), host "ip-10-0-0-7" (PyTorch's default file name)
//   "job/system/incremental/2020060500/1591160699.algo-1.json" → system_metrics: host "algo-1" (NodeId)
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kinds.h"
#include "status.h"

namespace tracemerge {

struct ParsedSource;
struct Event;
struct EventFields;
struct TopLevel;
class EventParser;

// Who recorded a source (README.md, "Who recorded what"), decided by its
// format once every source is read (a TF trace learns its node from its
// sidecar), by IdentifySources (identity.h). Text is raw (not JSON-escaped).
struct Identity {
  FormatId format = FormatId::kNone;  // the module that read it (Kineto's once the trace says so)
  std::string run;             // an smdebug job's root, else the dropped folder; "" for files given by themselves
  std::string host;            // the machine whose clock wrote it; "" when nothing says
  const char* host_from = "";  // what says so: "host_name", "file name", "node id", "NodeId", "TF sidecar"
  std::string host_note;       // why a name that says a host was not believed ("" when none was): a NOTE
  int64_t rank = -1;           // the rank it says it is (-1: not said)
  std::string device;          // the device it says it recorded ("GPU 0"), or ""
  std::string node;            // the name its tracks carry: smdebug's node id, the file's label
  std::string stream;          // files that continue one another (smdebug rotates a node's stream) share it
  std::string process;         // the process that recorded it, across its files and kinds (a row of the steps):
                               // smdebug's node id; else its stream
  std::string label;           // its processes' names start with it: "rank 3 · host-b", "monday · 0-algo-1 · pythontimeline"
  std::string group;           // what the page groups it under: "rank 3 · host-b", the node id ("0-algo-1")
  uint32_t domain = 0;         // its clock domain in the job: one per (run, host); a source of its own when no host is known
  std::string clock_name;      // what the clock check calls that domain: the host, else "rank N", else its node

  // Its stream in the job ("<run>\x1f<stream>"): the files of one stream join (tracks, matching).
  std::string StreamKey() const { return run + '\x1f' + stream; }
};

// Times from here on are Unix times (a trace's Unix µs); before, relative ones (chrome.cc, clocks.cc).
constexpr int64_t kEpoch2001Ns = int64_t{1000000000} * 1000000000;  // 1e18 ns ≈ 2001-09-09

// How a source's times become absolute Unix time (registry.h).
#define TRACEMERGE_BASE_ID(id, ...) id,
enum class BaseKind : uint8_t { TRACEMERGE_BASE_KINDS(TRACEMERGE_BASE_ID) };
const char* BaseKindName(BaseKind kind);   // "none", "smdebug_header", "tf_sidecar", "kineto_base", "unix_us", "unix_s", …
const char* BaseKindLabel(BaseKind kind);  // what the page's table shows: "smdebug header", "TF .metadata", …
struct TimeBase {
  BaseKind kind = BaseKind::kNone;
  int64_t base_ns = 0;  // added to the times read relative
  std::string value;    // what it was read from: "1594662597687738", the sidecar's name, …
  std::string why;      // why that one, where there was a choice (what the page's table says): "algo-2's: its Horovod ops line up"
  std::string detail;   // and in full, with what was measured (the report's time_base)
};
// What the CLI's summary says of it (registry.h's said, filled in):
//   {kSmdebugHeader, …, "1594662597687738"} → "smdebug header start_time_since_epoch_in_micros=1594662597687738"
std::string TimeBaseText(const TimeBase& tb);

// Which marks are steps (registry.h): every source's own kind; the job takes
// the first kind (in this order) any source has.
enum class StepKind : uint8_t { TRACEMERGE_STEP_KINDS(TRACEMERGE_BASE_ID) };
constexpr StepKind kLastStepKind = StepKind(0 TRACEMERGE_STEP_KINDS(TRACEMERGE_ONE) - 1);
const char* StepKindText(StepKind kind);  // "pythontimeline step_num", "PyTorch ProfilerStep#N slices", …

// A TF trace's clock: the sidecar chosen among its step folder's, and why
// (tf_profiler.h ChooseTfClocks; README.md "Who recorded what").
struct TfClock {
  std::string sidecar;         // its file's name
  int64_t start_us = 0;        // the start it names: the trace's time 0
  std::string host;            // the host it ties the trace to; "" when nothing does
  const char* host_from = "";  // "TF sidecar": its node is the trace's host, or the folder's only one; "Horovod ops": they line up
  std::string why;             // in short: "its own host's", "algo-2's: its Horovod ops line up", "a guess (smdebug's rule)…"
  std::string detail;          // in full, with what was measured: "its Horovod ops line up with algo-2's timeline: …"
  Code code = Code::kOk;       // kNote (host unknown) or kUnsureClock (a guess): said once, on the trace
};

// What the formats need to know of the other files of the job.
struct JobFacts {
  std::multimap<std::string, std::string> sidecars;  // TF step folder → its .metadata files' paths (one per node)
  std::map<std::string, TfClock> tf_clocks;          // TF trace path → its clock, when its folder has sidecars
};

// What a format that reads its lines itself gets from the parse (parse.cc).
class LineContext {
 public:
  virtual ~LineContext() = default;
  virtual EventParser& parser() = 0;
  // The source's thread of (pid, tid) text, added when new.
  virtual uint32_t Thread(std::string_view pid, std::string_view tid) = 0;
  // Progress at a byte offset; false once the merge is cancelled.
  virtual bool Tick(uint64_t offset) = 0;
};

// A format whose files are runs of records that read alone (an XSpace's planes)
// reads them with one of these: over the whole file, or as its bytes come where
// the file is too large to hold whole (parse.h ReadInPieces: one record held at a
// time). Read gets the bytes not yet read, from file offset `at`, and returns how
// many it is done with (whole records only); End, once the file has ended, the
// rest (a record cut off, or nothing).
class RecordReader {
 public:
  virtual ~RecordReader() = default;
  virtual size_t Read(std::string_view bytes, uint64_t at) = 0;
  virtual void End(std::string_view rest, uint64_t at) = 0;
  // Once true (damaged, cancelled), what follows is not read.
  virtual bool Stopped() const = 0;
};

// Whether an event the format reads is a clock header.
enum class Header { kNo, kTaken, kBad };

class Format {
 public:
  virtual ~Format() = default;
  virtual FormatId id() const = 0;
  // A file by its name and first (inflated) bytes: true, with c's kind and
  // node set, when it is this format's.
  virtual bool Recognise(std::string_view path, std::string_view head, Classification* c) const = 0;

  // While its events are parsed (parse.cc). A clock header that re-bases the
  // events after it (kTaken: not an event; kBad: dropped, with the warning).
  virtual Header ReadHeader(ParsedSource&, const EventFields&, uint64_t /*offset*/) const { return Header::kNo; }
  // Each event indexed: its step mark, its collective (source.h Anchor).
  virtual void ReadEvent(ParsedSource&, uint32_t /*index*/, char /*ph*/, const EventFields&) const {}
  // The top-level keys, once the events are read.
  virtual void ReadTop(ParsedSource&, const TopLevel&) const {}
  // A format of JSON lines rather than trace events (system metrics) reads
  // its lines itself, into events with their templates: true when it did.
  virtual bool ReadLines(ParsedSource&, std::string_view /*data*/, LineContext&) const { return false; }
  // A format of records (above) reads them with this; null for the others.
  virtual std::unique_ptr<RecordReader> Records(ParsedSource&, LineContext&) const { return nullptr; }

  // Once every file is read, the sources are identified in two rounds: those whose
  // clock or host is chosen among the others' (a TF trace in smdebug's step folder, by
  // its sidecars and the hosts' Horovod ops) in the second, after every format has
  // learnt what the first round's identities tell it (identity.cc IdentifySources).
  virtual bool IdentifiedSecond(const ParsedSource&) const { return false; }
  virtual void LearnJob(std::vector<ParsedSource>& /*sources*/, JobFacts* /*job*/) const {}

  // Once every file is read: its time base and who recorded it.
  virtual TimeBase Clock(const ParsedSource& s, const JobFacts& job) const = 0;
  virtual Identity Identify(const ParsedSource& s, const JobFacts& job) const = 0;

  // Whether the files of one stream (Identity::stream) that overlap in time or
  // mark the same steps are runs of their own (Kineto: a rank's traces of two
  // jobs), not one stream rotated into files (identity.cc SplitStreamsIntoSeries).
  virtual bool StreamsRepeat() const { return false; }
  // What the report says of a file split into sources by its processes' ranks
  // (ranks.cc): "holds 4 ranks (its events' args.rank: 0, 1, 2, 3), …".
  virtual std::string SplitNote(size_t pieces, const std::string& ranks, bool rankless) const;

  // What its processes are called in the output instead of their own names
  // ("metrics": system metrics'), or "" to keep theirs (tracks.cc ProcessName).
  virtual std::string_view ProcessName(const ParsedSource&) const { return {}; }

  // A sample the page's overview plots beside the density (system metrics): its event's
  // dimension ("CPUUtilization") and value; false for an event of no such sample.
  virtual bool Sample(const ParsedSource&, const Event&, std::string* /*dimension*/, double* /*value*/) const {
    return false;
  }
};

// The format of a source (Classification::format).
const Format& FormatOf(FormatId id);
// Every format, in the registry's order (the order they are asked).
#define TRACEMERGE_FORMAT_ID(id, ...) FormatId::id,
constexpr FormatId kFormatOrder[] = {TRACEMERGE_FORMATS(TRACEMERGE_FORMAT_ID)};

// The parts of identities the formats share.
// "job/framework/pevents/…" → "job" (an smdebug job's root: what holds framework/ or system/), else "".
std::string SmdebugRoot(std::string_view path);
// A file given by itself: ""; found in a folder: the folder dropped (the path's first part).
std::string DroppedFolder(std::string_view path, bool in_folder);
// The run of an smdebug job's file: its job's root, else (a file away from its job) the dropped folder.
std::string SmdebugRun(std::string_view path, bool in_folder);
// "1594662624718694" → true; "", "12a" → false.
bool AllDigits(std::string_view s);
// smdebug's node id "<rank or pid>-<host>" (smdebug's get_node_id) → "<host>"; else the id itself.
std::string HostOfNodeId(std::string_view node);
// "rank-0.json.gz" → "rank-0": a file's name as a label.
std::string FileLabel(std::string_view base);

// The modules, one file each (registry.h TRACEMERGE_FORMATS): SmdebugFormat()
// (pythontimeline, model_timeline, horovod_timeline), TfProfilerFormat() (TF traces
// and their .metadata sidecars), SystemMetricsFormat() (smdebug's JSON lines),
// KinetoFormat() (PyTorch profiler traces), ChromeFormat() (any other trace-event
// JSON), XPlaneFormat() (TF/JAX profiler XSpaces, .xplane.pb).
#define TRACEMERGE_FACTORY(id, name, factory) const Format& factory();
TRACEMERGE_FORMATS(TRACEMERGE_FACTORY)
// PyTorch's default trace name, "<host>_<pid>.<stamp>.pt.trace.json[.gz]", read (kineto.cc believes it
// only when the trace agrees): "ip-10-0-0-7_4242.1700000000123456789.pt.trace.json.gz"
// → {"ip-10-0-0-7", "4242", "1700000000123456789"}; a name not of that pattern → nullopt.
struct KinetoName {
  std::string host, pid, stamp;
};
std::optional<KinetoName> ParseKinetoName(std::string_view base);

}  // namespace tracemerge
