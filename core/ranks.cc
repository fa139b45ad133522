// A file that holds several ranks — a merge of ranks' traces, as TraceLens's
// TraceFusion writes one: every event's args.rank says its rank, each rank's
// processes renumbered apart — is read as one source per rank, so that every
// later stage (identity, clock check, waits, tracks) sees ranks, not files.
//
//   fused.json: pids 1000, 0 with args.rank 0; pids 101001, 100001 with args.rank 1
//   → two sources of fused.json: piece 0 "rank 0" (pids 1000, 0), piece 1 "rank 1" (pids 101001, 100001)
//
// A process whose events say two ranks leaves the file whole (a NOTE says so);
// processes whose events say none are a piece of their own (no rank claimed).
#include <algorithm>
#include <map>
#include <set>

#include "identity.h"
#include "numbers.h"

namespace tracemerge {
namespace {

// Which piece each of a file's processes goes to: one per rank its processes
// say (rank order), one more for the processes whose events say none.
struct Partition {
  std::vector<int64_t> ranks;     // the pieces' ranks
  bool rankless = false;          // and the last piece the rankless processes'
  std::vector<uint32_t> piece_of; // [proc] → piece
  uint32_t pieces() const { return static_cast<uint32_t>(ranks.size() + (rankless ? 1 : 0)); }
};

// s's partition; none (no pieces) when it says fewer than two ranks or a process says two.
Partition PartitionOf(ParsedSource& s) {
  std::set<int64_t> ranks;
  Partition part;
  std::vector<uint32_t> used(s.procs.size(), 0);  // its events per process
  for (const Event& e : s.events) used[s.threads[e.thread].proc]++;
  for (size_t p = 0; p < s.procs.size(); p++) {
    const int64_t r = s.procs[p].rank;
    if (r == kRanksDisagree) {
      s.Warn(Code::kNote, 0, "the events of pid " + s.procs[p].pid_text +
                                 " say different ranks (args.rank): the file is read as one source, not one per rank");
      return {};
    }
    if (r >= 0) ranks.insert(r);
    else part.rankless |= used[p] > 0;
  }
  if (ranks.size() < 2) return {};
  part.ranks.assign(ranks.begin(), ranks.end());
  const uint32_t n = part.pieces();
  part.piece_of.resize(s.procs.size());
  for (size_t p = 0; p < s.procs.size(); p++) {
    const int64_t r = s.procs[p].rank;
    // (a process with no event and no rank — its name only — stays with the first)
    part.piece_of[p] = r >= 0 ? static_cast<uint32_t>(std::lower_bound(part.ranks.begin(), part.ranks.end(), r) -
                                                      part.ranks.begin())
                              : used[p] ? n - 1 : 0;
  }
  return part;
}

// Piece k of n of s, before its processes, threads and events: what the file says of itself.
ParsedSource EmptyPiece(const ParsedSource& s, uint32_t k, const Partition& part) {
  ParsedSource p;
  p.path = s.path;
  p.arrival = s.arrival;
  p.cls = s.cls;
  p.report = s.report;
  p.report.piece = k;
  p.report.pieces = part.pieces();
  p.stored = s.stored;
  p.stored_bytes = s.stored_bytes;  // (its templates stay in the store under the file's arrival)
  p.id_count = k == 0 ? s.id_count : 0;  // (the pieces share the file's ids: output.cc)
  p.said = s.said;
  p.said.rank = k < part.ranks.size() ? part.ranks[k] : kNoRank;
  p.step_kind = s.step_kind;
  p.in_folder = s.in_folder;
  p.merged_output = s.merged_output;
  p.has_pairs = s.has_pairs;
  p.based_events = s.based_events;
  p.relative_events = s.relative_events;
  if (k > 0) p.report.bytes = p.report.inflated_bytes = p.report.events_dropped = p.report.metadata_merged = 0;
  return p;
}

// s's events into their pieces in the file's order, with their templates (unless
// stored), its steps and collectives after them; the events that left piece 0.
uint64_t MoveEvents(ParsedSource& s, const Partition& part, const std::vector<uint32_t>& thread_to,
                    std::vector<ParsedSource>& pieces) {
  std::vector<uint64_t> arena_bytes(pieces.size(), 0);
  for (const Event& e : s.events) arena_bytes[part.piece_of[s.threads[e.thread].proc]] += e.length;
  if (!s.stored)
    for (size_t k = 0; k < pieces.size(); k++) pieces[k].arena.reserve(arena_bytes[k] + kTemplateSlack);
  std::vector<std::pair<uint32_t, uint32_t>> where(s.events.size());  // event → (piece, index there)
  uint64_t moved = 0;
  for (size_t i = 0; i < s.events.size(); i++) {
    Event e = s.events[i];
    const uint32_t k = part.piece_of[s.threads[e.thread].proc];
    ParsedSource& p = pieces[k];
    if (!s.stored) {
      const uint64_t at = p.arena.size();
      p.arena.append(s.arena.data() + e.offset, e.length);
      e.offset = at;
    }
    e.thread = thread_to[e.thread];
    where[i] = {k, static_cast<uint32_t>(p.events.size())};
    p.events.push_back(e);
    moved += k > 0;
  }
  for (auto [step, ev] : s.steps) pieces[where[ev].first].steps.push_back({step, where[ev].second});
  for (Anchor& a : s.anchors) {
    const auto [k, index] = where[a.event];
    a.event = index;
    pieces[k].anchors.push_back(std::move(a));
  }
  return moved;
}

// The pieces of s, or none: its processes' piece (rank order; the rankless last).
std::vector<ParsedSource> Split(ParsedSource& s) {
  const Partition part = PartitionOf(s);
  const uint32_t n = part.pieces();
  if (n == 0) return {};
  std::vector<ParsedSource> pieces;
  for (uint32_t k = 0; k < n; k++) pieces.push_back(EmptyPiece(s, k, part));
  std::vector<uint32_t> proc_to(s.procs.size()), thread_to(s.threads.size());
  for (size_t i = 0; i < s.procs.size(); i++) {
    std::vector<Proc>& procs = pieces[part.piece_of[i]].procs;
    proc_to[i] = static_cast<uint32_t>(procs.size());
    procs.push_back(std::move(s.procs[i]));
  }
  for (size_t i = 0; i < s.threads.size(); i++) {
    Thread t = std::move(s.threads[i]);
    std::vector<Thread>& threads = pieces[part.piece_of[t.proc]].threads;
    t.proc = proc_to[t.proc];
    thread_to[i] = static_cast<uint32_t>(threads.size());
    threads.push_back(std::move(t));
  }
  const uint64_t moved = MoveEvents(s, part, thread_to, pieces);
  for (uint32_t k = 0; k < n; k++) {
    pieces[k].arena.ShrinkToFit(kTemplateSlack);
    pieces[k].events.ShrinkToFit();
    pieces[k].report.events_read = k == 0 ? s.report.events_read - moved : pieces[k].events.size();
  }
  pieces[0].warnings = std::move(s.warnings);
  std::string said;
  for (size_t k = 0; k < part.ranks.size(); k++) said += (k ? ", " : "") + std::to_string(part.ranks[k]);
  pieces[0].Warn(Code::kNote, 0, FormatOf(s.cls.format).SplitNote(part.ranks.size(), said, part.rankless));
  return pieces;
}

}  // namespace

void SplitRanks(std::vector<ParsedSource>& sources) {
  bool any = false;
  for (const ParsedSource& s : sources)
    for (const Proc& p : s.procs) any |= p.rank != kNoRank;
  if (!any) return;  // (the common case: nothing moves)
  std::vector<ParsedSource> out;
  out.reserve(sources.size());
  for (ParsedSource& s : sources) {
    std::vector<ParsedSource> pieces;
    if (s.report.included && s.report.pieces == 1 && !s.thin.thinned) pieces = Split(s);  // (a scan's: split before it was thinned)
    if (pieces.empty()) out.push_back(std::move(s));
    for (ParsedSource& p : pieces) out.push_back(std::move(p));
  }
  sources = std::move(out);
}

}  // namespace tracemerge
