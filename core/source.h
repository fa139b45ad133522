// A parsed source: the product of ingest (parse.h), what transfer.cc sends
// between wasm instances, and what the later stages read — clocks, window,
// tracks, order, output (stages.h). Nothing of how it was read (pending
// bytes, the inflater, lookup caches) is left in it.
//
//   {"traceEvents":[{"ph":"X","name":"a","ts":5,"dur":2,"pid":7,"tid":1}]}  as "rank-0.json"
//   → procs [{pid_text "7"}], threads [{proc 0, tid_text "1"}],
//     events [{ts 5000, dur 2000, thread 0, ph 'X', offset 0, length 46}],
//     arena  {"ph":"X","name":"a","ts":<TS>,"dur":2,"pid":<PID>,"tid":<TID>}
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "block_vector.h"
#include "buffer.h"
#include "kinds.h"
#include "merger.h"
#include "status.h"

namespace tracemerge {

struct Proc {  // one original pid of one source
  std::string pid_text;  // original pid as written ("" when absent)
  std::string name;      // from process_name metadata (JSON-escaped text)
  std::string labels;    // from process_labels metadata (Kineto: "GPU 1", "CPU")
};

struct Thread {  // one original (pid, tid) of one source
  uint32_t proc = 0;
  std::string tid_text;
  std::string name;  // from thread_name metadata (JSON-escaped text)
};

// Async begin/end pairs: no duration; the event's dur slot holds its pair key.
inline bool IsPairPhase(char ph) { return ph == 'b' || ph == 'e' || ph == 'S' || ph == 'F'; }

// One input event: 40 bytes (a multi-GB job has tens of millions). The
// window stage sets `keep`, the lanes stage `lane`; the rest is the parse's.
struct Event {
  Event() : keep(true), has_ts(false), based(false) {}
  int64_t ts = 0;  // absolute ns once clocks are applied (relative before, and for sources without a clock)
  union {
    int64_t dur = 0;    // ns; read it through Duration()
    uint32_t pair_key;  // IsPairPhase: which async pair it belongs to
  };
  uint64_t offset = 0;  // of the output template in the source's arena (or store)
  uint32_t length = 0;
  uint32_t thread = 0;
  char ph = 0;
  uint8_t lane = 0;
  bool keep : 1;
  bool has_ts : 1;
  bool based : 1;  // ts already absolute (smdebug header seen before it)
};
static_assert(sizeof(Event) <= 40, "the event grew");

inline int64_t Duration(const Event& e) { return IsPairPhase(e.ph) ? 0 : e.dur; }

using Marks = std::vector<std::pair<int64_t, uint32_t>>;  // (step, event)

// An event that ends at nearly the same instant on every rank that takes
// part: a collective (align.h matches them across sources).
enum class AnchorTier : uint8_t {
  kKernel,    // an NCCL/RCCL kernel on a GPU stream (ncclDevKernel_*, ncclKernel_*)
  kHorovod,   // a Horovod op (ALLREDUCE, …) in an smdebug or raw Horovod timeline; ends at its E
  kHostOp,    // Kineto's record_param_comms / nccl:* on the CPU (they end when launched: rougher)
};
struct Anchor {
  uint32_t event = 0;
  AnchorTier tier = AnchorTier::kKernel;
  std::string key;  // what names the collective across ranks (group, name, Seq when given)
};

struct ParsedSource {
  std::string path;
  uint32_t arrival = 0;  // order among sources of the same path
  Classification cls;
  SourceReport report;
  std::vector<Proc> procs;
  std::vector<Thread> threads;
  BlockVector<Event> events;  // in file order, or in time order (layout.h)
  ByteBuffer arena;           // output templates of the events (event_parser.h)
  bool stored = false;        // templates moved to Options.store (arena empty)
  uint64_t stored_bytes = 0;
  uint64_t id_count = 0;      // distinct flow/async ids (output id = base + local number)
  std::string base_time_ns;   // Kineto's baseTimeNanoseconds, as written
  Marks step_marks, profiler_steps;  // pythontimeline step_num / ProfilerStep#N
  std::vector<Anchor> anchors;       // collectives, in file order
  int64_t rank = -1;                 // Kineto's distributedInfo.rank (-1: not said)
  std::string host;                  // Kineto's host_name (JSON-escaped text)
  bool merged_output = false;        // an earlier merge's output (its metadata says tracemerge)
  bool has_pairs = false;            // B/E, b/e or S/F events
  bool based_events = false, relative_events = false;  // has_ts events with based set / not
  bool have_header = false;  // smdebug clock header seen
  int64_t header_base = 0;
  std::vector<Diagnostic> warnings;

  void Warn(Code code, uint64_t offset, std::string msg) { warnings.push_back({code, path, offset, std::move(msg)}); }
};

constexpr size_t kTemplateSlack = 16;  // readable slack after every template arena (output.cc's Expand)

}  // namespace tracemerge
