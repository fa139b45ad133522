// Parse: one source's bytes → a ParsedSource (source.h). Classifies the file
// (kinds.h), then parses its trace events (tokenizer.h finds them,
// event_parser.h reads each in one pass) or its JSON lines of system metrics,
// into events, processes, threads, marks and output templates. Problems are
// warnings with byte offsets; a file that is not a trace is not included.
//
//   SourceBytes in = …("rank-0.json": {"traceEvents":[{"ph":"X","ts":5,"dur":2,"pid":7,"tid":1}]});
//   ParsedSource s = ParseSource(in, limits, parser, nullptr);
//   → s.report.included, s.report.events_read == 1, s.events[0].ts == 5000 (ns, relative)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "event_parser.h"
#include "merger.h"
#include "source.h"
#include "stream.h"

namespace tracemerge {

// Progress from a long stage, passed on every 16384th call; remembers a cancel.
// Framed, a source's parse (done of total bytes of it) is said as the job's: base +
// its share of the input bytes so far, of total.
class Ticker {
 public:
  explicit Ticker(const std::function<bool(const Progress&)>* progress) : progress_(progress) {}
  void Tick(const char* stage, uint64_t done, uint64_t total) {
    if (!progress_ || !*progress_ || cancelled_ || ++n_ % 16384 != 0) return;
    if (total_) done = base_ + (total ? static_cast<uint64_t>(static_cast<double>(done) / total * share_) : 0), total = total_;
    Say(stage, done, total);
  }
  void Frame(uint64_t base, uint64_t share, uint64_t total) { base_ = base, share_ = share, total_ = total; }
  // Progress now (not counted): false once cancelled.
  bool Say(const char* stage, uint64_t done, uint64_t total) {
    if (progress_ && *progress_ && !cancelled_ && !(*progress_)(Progress{stage, done, total})) cancelled_ = true;
    return !cancelled_;
  }
  bool cancelled() const { return cancelled_; }
  void Cancel() { cancelled_ = true; }

 private:
  const std::function<bool(const Progress&)>* progress_;
  uint64_t n_ = 0, base_ = 0, share_ = 0, total_ = 0;
  bool cancelled_ = false;
};

struct ParseLimits {
  unsigned kinds = kAllKinds;  // Options.kinds: the others are filtered out, not parsed
  int max_depth = 256;
};

// in.Inflate() must have run. The parser carries the string and depth limits
// (one per thread). ticker: progress and cancel ("parse", bytes of this
// source), or null. in.data is left for the layout stage (layout.h).
// A source read in pieces (in.pieces) is finished here: what it left in in.data read.
ParsedSource ParseSource(SourceBytes& in, const ParseLimits& limits, EventParser& parser, Ticker* ticker);

// A step number far from the file's others (a stray "ProfilerStep#999999" among steps 0–5)
// is one event's word against the rest: dropped from s.steps with a NOTE, kept as an event
// (marks.cc; the parse calls it once a source is read).
void DropStraySteps(ParsedSource& s);

// A source of a format of records (formats/format.h RecordReader) read as its bytes
// come (SourceStream::SetPieces): its records taken as each is whole, so that it
// holds one record, not the file — and, beyond the budget's memory, one record's
// templates (the rest moved to its store as they are read). null when its format
// reads whole files, or the source is not to be parsed (skipped, filtered out).
// Its head: in.data, from byte 0.
class Budget;
std::unique_ptr<Pieces> ReadInPieces(const SourceBytes& in, const ParseLimits& limits, EventParser& parser, Ticker* ticker,
                                     Budget* budget);

}  // namespace tracemerge
