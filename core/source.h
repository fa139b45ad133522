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
#include "formats/format.h"
#include "kinds.h"
#include "merger.h"
#include "status.h"

namespace tracemerge {

constexpr int64_t kNoRank = -1, kRanksDisagree = -2;
struct Proc {  // one original pid of one source
  std::string pid_text;  // original pid as written ("" when absent)
  std::string name;      // from process_name metadata (JSON-escaped text)
  std::string labels;    // from process_labels metadata (Kineto: "GPU 1", "CPU")
  int64_t rank = kNoRank;  // the rank its events' args.rank say (a file of merged ranks): kNoRank, or
                           // kRanksDisagree when they say two
};

struct Thread {  // one original (pid, tid) of one source
  uint32_t proc = 0;
  std::string tid_text;
  std::string name;  // from thread_name metadata (JSON-escaped text)
};

// Async begin/end pairs: no duration; the event's dur slot holds its pair key.
inline bool IsPairPhase(char ph) { return ph == 'b' || ph == 'e' || ph == 'S' || ph == 'F'; }

// One input event: 32 bytes (a multi-GB job has tens of millions, held
// until written: every byte held is a page touched). The window stage sets
// `keep`, the lanes stage `lane`; the rest is the parse's.
constexpr uint64_t kMaxTemplateBytes = uint64_t{1} << 40;  // a source's templates (Event::offset)
struct Event {
  Event() : offset(0), ph(0), lane(0), keep(true), has_ts(false), based(false) {}
  int64_t ts = 0;  // absolute ns once clocks are applied (relative before, and for sources without a clock)
  union {
    int64_t dur = 0;    // ns; read it through Duration()
    uint32_t pair_key;  // IsPairPhase: which async pair it belongs to
  };
  // (one word; no two threads write fields of one event at once)
  uint64_t offset : 40;  // of the output template in the source's arena (or store), < kMaxTemplateBytes
  uint64_t ph : 8;       // its phase, a char
  uint64_t lane : 8;
  uint64_t keep : 1;
  uint64_t has_ts : 1;
  uint64_t based : 1;  // ts already absolute (smdebug header seen before it)
  uint32_t length = 0;
  uint32_t thread = 0;
};
static_assert(sizeof(Event) == 32, "the event grew");

inline int64_t Duration(const Event& e) { return IsPairPhase(e.ph) ? 0 : e.dur; }

using Marks = std::vector<std::pair<int64_t, uint32_t>>;  // (step, event)

// A symmetric collective (formats/collectives.h): it ends at nearly the same
// instant on every rank that takes part (clock_check.cc matches them across
// hosts by their key — and, without a sequence number, by their place).
enum class AnchorTier : uint8_t {
  kKernel,    // an NCCL/RCCL kernel on a GPU stream (ncclDevKernel_*, ncclKernel_*)
  kHorovod,   // a Horovod op (ALLREDUCE, …) in an smdebug timeline; ends at its E
  kHostOp,    // record_param_comms / nccl:* on the CPU (they end when launched: used only when they agree)
  kTfOp,      // a TF trace's own record of a Horovod op ("<tensor>:HorovodAllreduce"): ties the trace to its
              // host's Horovod timeline (tf_profiler.cc), not a collective the clock check compares
  kExchange,  // an NCCL/RCCL kernel of a collective that is not symmetric (send/recv, all-to-all, broadcast):
              // time in communication (waits.h), never matched
};
// How the clock check and the waits name a tier they matched ("NCCL kernels", …).
inline const char* AnchorTierName(AnchorTier tier) {
  switch (tier) {
    case AnchorTier::kKernel: return "NCCL kernels";
    case AnchorTier::kHorovod: return "Horovod ops";
    case AnchorTier::kHostOp: return "host-side collectives";
    case AnchorTier::kTfOp: return "TF records of Horovod ops";
    case AnchorTier::kExchange: return "NCCL exchanges";
  }
  return "";
}
struct Anchor {
  uint32_t event = 0;
  AnchorTier tier = AnchorTier::kKernel;
  bool seq = false;  // the key holds the collective's sequence number: its identity, not just its name
  bool begin = false;  // a B event: it ends at its thread's matching E (else an X: at ts + dur)
  std::string key;   // what names the collective across ranks: group, op, name, Seq when given
};

// What a file says of itself, read by its format (formats/format.h).
struct Said {
  std::string base_time;  // a time base as written (Kineto's baseTimeNanoseconds)
  std::string host;       // the host it names (Kineto's host_name), raw text
  int64_t rank = -1;      // the rank it says (Kineto's distributedInfo.rank; -1: not said)
  bool header = false;    // a clock header was seen (smdebug's): the events after it are based on it
  int64_t header_base = 0;
};

// What a scan keeps of a source's events beyond the events themselves
// (summary.h ThinSource): the counts the stages would take from the events
// dropped, and each kept event's share of the overview.
struct Thinned {
  bool thinned = false;  // the source holds only the events the scan's stages read
  uint64_t events = 0;   // events of the file (events.size() before)
  uint64_t timed = 0, dated = 0;  // of them with a ts, and those at Unix times (ts ≥ kEpoch2001Ns), as read
  uint64_t early = 0;             // timed before 2001 as read, the earliest at early_ts
  int64_t early_ts = INT64_MAX;
  struct Weight {  // kept event `event` stands for `count` events (the overview's density)
    uint32_t event = 0, count = 0;
  };
  std::vector<Weight> weights;
  struct Samples {  // and for n samples of dimensions[dimension] summing to sum (its counters)
    uint32_t event = 0, dimension = 0, n = 0;
    double sum = 0;
  };
  std::vector<std::string> dimensions;
  std::vector<Samples> samples;
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
  Said said;                  // what the file says of itself
  StepKind step_kind = StepKind::kNone;
  Marks steps;                  // its step marks, of step_kind (formats/format.h)
  std::vector<Anchor> anchors;  // symmetric collectives, in file order
  bool in_folder = false;       // found in a folder (dropped or walked), not named by itself
  bool merged_output = false;   // an earlier merge's output (its metadata says tracemerge)
  bool has_pairs = false;       // B/E, b/e or S/F events
  bool based_events = false, relative_events = false;  // has_ts events with based set / not
  Identity identity;            // who recorded it (identity.h: set once every source is read)
  Thinned thin;                 // a scan's source: what its dropped events said (summary.h)
  std::vector<Diagnostic> warnings;

  void Warn(Code code, uint64_t offset, std::string msg) { warnings.push_back({code, path, offset, std::move(msg)}); }
};

constexpr size_t kTemplateSlack = 16;  // readable slack after every template arena (output.cc's Expand)

}  // namespace tracemerge
