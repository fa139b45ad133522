// The scan's map (ThinSource, SummarizeSource) and its summary files.
#include "summary.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>

#include "identity.h"
#include "match.h"
#include "numbers.h"
#include "transfer.h"

namespace tracemerge {
namespace {

// The fine stretch of ts among `bins` over [lo, hi].
size_t FineBinOf(int64_t ts, int64_t lo, int64_t hi, size_t bins) {
  const auto span = static_cast<unsigned __int128>(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) + 1;
  return static_cast<size_t>(static_cast<unsigned __int128>(static_cast<uint64_t>(ts) - static_cast<uint64_t>(lo)) *
                             bins / span);
}

bool Spans(const Event& e) { return e.has_ts && e.ph != 'M'; }  // (what a span and the overview count)

// s with only the events marked in keep, in their order, every index into them renumbered; t
// its thinned record (t's indices are s's before).
void KeepOnly(ParsedSource& s, const std::vector<uint8_t>& keep, Thinned t) {
  const size_t n = s.events.size();
  // The kept events, in their order; every index into them renumbered.
  std::vector<uint32_t> renumber(n, UINT32_MAX);
  BlockVector<Event> kept;
  for (uint32_t i = 0; i < n; i++) {
    if (!keep[i]) continue;
    renumber[i] = static_cast<uint32_t>(kept.size());
    Event e = s.events[i];
    e.offset = 0, e.length = 0;  // (no templates)
    kept.push_back(e);
  }
  for (auto& m : s.steps) m.second = renumber[m.second];
  for (Anchor& a : s.anchors) a.event = renumber[a.event];
  for (auto& w : t.weights) w.event = renumber[w.event];
  std::sort(t.weights.begin(), t.weights.end(), [](const auto& a, const auto& b) { return a.event < b.event; });
  for (auto& x : t.samples) x.event = renumber[x.event];
  s.events = std::move(kept);
  s.events.ShrinkToFit();
  ByteBuffer().swap(s.arena);
  s.stored = false, s.stored_bytes = 0;
  s.thin = std::move(t);
}

}  // namespace

void ThinSource(ParsedSource& s) {
  if (s.thin.thinned) return;
  Thinned t;
  t.thinned = true;
  const size_t n = s.events.size();
  t.events = n;
  std::vector<uint8_t> keep(n, 0);
  if (n) keep[0] = 1;
  for (auto& [step, i] : s.steps) keep[i] = 1;
  for (const Anchor& a : s.anchors) keep[a.event] = 1;
  // The earliest and the latest (by both ends the stages read), each time base apart:
  // based events are absolute already, the others get the source's base.
  uint32_t first[2] = {UINT32_MAX, UINT32_MAX}, last[2] = {UINT32_MAX, UINT32_MAX}, last_dur[2] = {UINT32_MAX, UINT32_MAX};
  int64_t lo[2] = {INT64_MAX, INT64_MAX}, hi[2] = {INT64_MIN, INT64_MIN}, end[2] = {INT64_MIN, INT64_MIN},
          end_dur[2] = {INT64_MIN, INT64_MIN};
  size_t spanned[2] = {0, 0};
  for (uint32_t i = 0; i < n; i++) {
    const Event& e = s.events[i];
    if (!e.has_ts) continue;
    t.timed++;
    if (e.ts >= kEpoch2001Ns) t.dated++;
    else t.early++, t.early_ts = std::min(t.early_ts, e.ts);
    if (!Spans(e)) continue;
    const int c = e.based;
    spanned[c]++;
    if (e.ts < lo[c]) lo[c] = e.ts, first[c] = i;
    hi[c] = std::max(hi[c], e.ts);
    if (AddNs(e.ts, Duration(e)) > end[c]) end[c] = AddNs(e.ts, Duration(e)), last[c] = i;
    if (AddNs(e.ts, e.dur) > end_dur[c]) end_dur[c] = AddNs(e.ts, e.dur), last_dur[c] = i;
  }
  for (int c = 0; c < 2; c++)
    for (uint32_t i : {first[c], last[c], last_dur[c]})
      if (i != UINT32_MAX) keep[i] = 1;
  // Each fine stretch's first event stands for the stretch: its count and its samples
  // (a source of no more events than stretches: each event its own, exactly where it is).
  const size_t bins[2] = {std::min(spanned[0], kFineBins), std::min(spanned[1], kFineBins)};
  size_t ordinal[2] = {0, 0};
  const Format& format = FormatOf(s.cls.format);
  std::vector<uint32_t> rep[2], count[2];
  std::map<std::tuple<int, size_t, uint32_t>, size_t> sample_at;  // (base, stretch, dimension) → t.samples
  std::unordered_map<std::string, uint32_t> dimension_of;
  for (uint32_t i = 0; i < n; i++) {
    const Event& e = s.events[i];
    if (!Spans(e)) continue;
    const int c = e.based;
    if (rep[c].empty()) rep[c].assign(bins[c], UINT32_MAX), count[c].assign(bins[c], 0);
    const size_t b = spanned[c] <= kFineBins ? ordinal[c]++ : FineBinOf(e.ts, lo[c], hi[c], bins[c]);
    if (rep[c][b] == UINT32_MAX) rep[c][b] = i, keep[i] = 1;
    count[c][b]++;
    std::string dimension;
    double value = 0;
    if (!format.Sample(s, e, &dimension, &value)) continue;
    auto [d, fresh] = dimension_of.try_emplace(dimension, static_cast<uint32_t>(t.dimensions.size()));
    if (fresh) t.dimensions.push_back(dimension);
    auto [at, added] = sample_at.try_emplace({c, b, d->second}, t.samples.size());
    if (added) t.samples.push_back({rep[c][b], d->second, 0, 0});
    t.samples[at->second].n++;
    t.samples[at->second].sum += value;
  }
  for (int c = 0; c < 2; c++)
    for (size_t b = 0; b < rep[c].size(); b++)
      if (count[c][b]) t.weights.push_back({rep[c][b], count[c][b]});
  // A kept B or E keeps its match (the stages pair B and E on what is kept: the same pairs).
  if (s.has_pairs) {
    for (auto [b, e] : MatchingEnds(s))
      if (keep[b] || keep[e]) keep[b] = keep[e] = 1;
  }
  KeepOnly(s, keep, std::move(t));
}

std::vector<ParsedSource> SummarizeSource(ParsedSource s) {
  std::vector<ParsedSource> pieces;
  pieces.push_back(std::move(s));
  SplitRanks(pieces);
  for (ParsedSource& p : pieces) ThinSource(p);
  return pieces;
}

std::string SummaryBytes(std::vector<ParsedSource> pieces) {
  std::string out(kSummaryMagic);
  auto u64 = [&](uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); };
  u64(kSummaryVersion);
  u64(pieces.size());
  for (ParsedSource& p : pieces) {
    std::string tail;
    const ByteBuffer head = SourceToBytes(std::move(p), &tail);
    u64(head.size() + tail.size());
    out.append(head.view());
    out.append(tail);
  }
  return out;
}

Result<std::vector<ParsedSource>> ReadSummary(std::string_view bytes, const std::string& name) {
  auto damaged = [&](size_t at, const std::string& what) {
    return Diagnostic{Code::kNotATrace, name, at, "a damaged tracemerge summary: " + what};
  };
  size_t at = kSummaryMagic.size();
  auto u64 = [&](uint64_t* v) {
    if (bytes.size() - at < 8) return false;
    std::memcpy(v, bytes.data() + at, 8);
    at += 8;
    return true;
  };
  uint64_t version = 0, count = 0;
  if (!LooksLikeSummary(bytes) || !u64(&version)) return damaged(0, "no header");
  if (version != kSummaryVersion)
    return Diagnostic{Code::kUsage, name, 0,
                      "a tracemerge summary of format version " + std::to_string(version) + "; this tracemerge reads version " +
                          std::to_string(kSummaryVersion) + " only (make the summaries again with this version)"};
  if (!u64(&count) || count > bytes.size()) return damaged(at, "cut in its header");
  std::vector<ParsedSource> pieces;
  for (uint64_t k = 0; k < count; k++) {
    uint64_t size = 0;
    const size_t start = at;
    if (!u64(&size) || size > bytes.size() - at) return damaged(start, "cut in source " + std::to_string(k + 1));
    ByteBuffer copy;
    copy.reserve(size + kTemplateSlack);
    copy.append(bytes.substr(at, size));
    std::optional<ParsedSource> s = SourceFromBytes(std::move(copy));
    if (!s || !s->thin.thinned) return damaged(start, "source " + std::to_string(k + 1) + " does not hang together");
    pieces.push_back(std::move(*s));
    at += size;
  }
  if (at != bytes.size()) return damaged(at, "bytes after its last source");
  return pieces;
}

}  // namespace tracemerge
