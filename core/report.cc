// Report rendering: the human summary (CLI stderr, the page) and the JSON
// object embedded as metadata.tracemerge in every output.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "merger.h"
#include "stages.h"
#include "numbers.h"

namespace tracemerge {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kTruncated: return "TRUNCATED";
    case Code::kBadJson: return "BAD_JSON";
    case Code::kBadEvent: return "BAD_EVENT";
    case Code::kBadGzip: return "BAD_GZIP";
    case Code::kNotATrace: return "NOT_A_TRACE";
    case Code::kTooLarge: return "TOO_LARGE";
    case Code::kTooDeep: return "TOO_DEEP";
    case Code::kNoClock: return "NO_CLOCK";
    case Code::kClockSkew: return "CLOCK_SKEW";
    case Code::kUnknownStep: return "UNKNOWN_STEP";
    case Code::kEmptyWindow: return "EMPTY_WINDOW";
    case Code::kSkipped: return "SKIPPED";
    case Code::kNote: return "NOTE";
    case Code::kUsage: return "USAGE";
    case Code::kIo: return "IO";
    case Code::kCancelled: return "CANCELLED";
    case Code::kOutOfMemory: return "OUT_OF_MEMORY";
    case Code::kAbort: return "ABORT";
    case Code::kUnsureClock: return "UNSURE_CLOCK";
  }
  return "?";
}

Severity SeverityOf(Code code) {
  switch (code) {
    case Code::kOk: case Code::kSkipped: case Code::kNote: return Severity::kNote;
    case Code::kTruncated: case Code::kBadEvent: case Code::kNoClock: case Code::kClockSkew: case Code::kEmptyWindow:
    case Code::kUnsureClock:
      return Severity::kWarning;
    case Code::kBadJson: case Code::kBadGzip: case Code::kNotATrace: case Code::kTooLarge: case Code::kTooDeep:
    case Code::kUnknownStep: case Code::kUsage: case Code::kIo: case Code::kCancelled: case Code::kOutOfMemory:
    case Code::kAbort:
      return Severity::kError;
  }
  return Severity::kError;
}

OffsetIs OffsetOf(Code code) {
  switch (code) {
    case Code::kTruncated: case Code::kBadJson: case Code::kBadEvent: case Code::kBadGzip: case Code::kTooLarge:
    case Code::kTooDeep:
      return OffsetIs::kByte;
    case Code::kNote: case Code::kNotATrace: case Code::kOutOfMemory: return OffsetIs::kByteWhenSet;
    default: return OffsetIs::kNothing;
  }
}

const char* SeverityName(Severity s) {
  return s == Severity::kError ? "error" : s == Severity::kWarning ? "warning" : "note";
}

std::string Diagnostic::ToString() const {
  std::string s;
  if (!file.empty()) s += file + (AtByte() ? " @" + std::to_string(offset) : "") + ": ";
  return s + CodeName(code) + ": " + message;
}

namespace {

std::string WindowText(const Report& r) {
  if (!r.window_bounded) return "everything";
  auto bound = [](int64_t ns) {
    return ns == INT64_MIN || ns == INT64_MAX ? std::string("open") : FormatMicros(ns);
  };
  std::string s = bound(r.window_start_ns) + " .. " + bound(r.window_end_ns) + " µs";
  if (r.start_step || r.end_step)
    s += " (steps " + (r.start_step ? std::to_string(*r.start_step) : "first") + " .. " +
         (r.end_step ? std::to_string(*r.end_step) : "last") + ", end step excluded)";
  return s;
}

// {"format":"kineto","run":"job","host":"host-b","host_from":"host_name","host_note":"","rank":3,"device":"","domain":2}
std::string IdentityJson(const Identity& id) {
  return "{\"format\":" + JsonQuote(FormatName(id.format)) + ",\"run\":" + JsonQuote(id.run) + ",\"host\":" + JsonQuote(id.host) +
         ",\"host_from\":" + JsonQuote(id.host_from) + ",\"host_note\":" + JsonQuote(id.host_note) + ",\"rank\":" + std::to_string(id.rank) +
         ",\"device\":" + JsonQuote(id.device) + ",\"domain\":" + std::to_string(id.domain) + "}";
}

const char* VerdictName(HostClock::Verdict st) {
  return st == HostClock::Verdict::kReference ? "reference" : st == HostClock::Verdict::kChecked ? "checked" : "unchecked";
}

std::string HostClockJson(const HostClock& h) {
  std::string s = "{\"run\":" + JsonQuote(h.run) + ",\"host\":" + JsonQuote(h.host) +
                  ",\"host_known\":" + (h.host_known ? "true" : "false") + ",\"label\":" + JsonQuote(h.Label()) + ",\"sources\":" +
                  std::to_string(h.sources.size()) + ",\"status\":" + JsonQuote(VerdictName(h.verdict)) +
                  ",\"reference\":" + JsonQuote(h.reference) + ",\"collectives\":" + (h.collectives ? "true" : "false");
  if (h.verdict == HostClock::Verdict::kUnchecked) return s + ",\"reason\":" + JsonQuote(h.reason) + "}";
  if (h.verdict != HostClock::Verdict::kChecked) return s + "}";
  s += ",\"from\":" + JsonQuote(h.from) + ",\"anchors\":" + std::to_string(h.anchors) + ",\"matched\":" +
       std::to_string(h.matched) + ",\"offset_us\":" + FormatMicros(h.offset_ns) +
       ",\"uncertainty_us\":" + FormatMicros(h.uncertainty_ns) + ",\"at_us\":" + FormatMicros(h.at_ns) +
       ",\"first_us\":" + FormatMicros(h.first_ns) + ",\"last_us\":" + FormatMicros(h.last_ns) +
       ",\"worst_us\":" + FormatMicros(h.Worst()) + ",\"skew\":" + (h.skew ? "true" : "false");
  if (h.relative) s += ",\"relative\":true";
  if (h.drift) {
    char rate[64];
    std::snprintf(rate, sizeof rate, ",\"rate_ppm\":%.3f,\"rate_uncertainty_ppm\":%.3f", h.rate_ppm,
                  h.rate_uncertainty_ppm);
    s += rate;
  }
  return s + "}";
}

// What the clock check found, host by host (when there was something to compare).
// Hosts that had no collectives are counted, not listed.
std::string ClockSummary(const std::vector<HostClock>& hosts) {
  std::string s = "clock check:\n";
  std::set<std::string> runs;
  for (const HostClock& h : hosts) runs.insert(h.run);
  size_t quiet = 0;
  for (const HostClock& h : hosts) {
    if (h.verdict == HostClock::Verdict::kUnchecked && !h.collectives) {
      quiet++;
      continue;
    }
    s += "  " + (runs.size() > 1 ? h.run + " · " : "") + h.Label() + ": ";
    if (h.verdict == HostClock::Verdict::kReference) {
      s += "the reference\n";
    } else if (h.verdict == HostClock::Verdict::kUnchecked) {
      s += "not checked — " + h.reason + "\n";
    } else {
      s += (h.offset_ns > 0 ? "+" : "") + FormatMicros(h.offset_ns) + " ± " + FormatMicros(h.uncertainty_ns) + " µs against " + h.reference;
      if (h.drift) {
        char rate[80];
        std::snprintf(rate, sizeof rate, ", %+.3f ± %.3f ppm", h.rate_ppm, h.rate_uncertainty_ppm);
        s += rate + std::string(" (") + SignedMicros(h.OffsetAt(h.first_ns)) + " .. " + SignedMicros(h.OffsetAt(h.last_ns)) + ")";
      }
      s += ", from " + std::to_string(h.anchors) + " of " + std::to_string(h.matched) + " matched ends of " + h.from +
           (h.relative ? " — no clock of its own: where its collectives place it (--align clocks)"
                       : h.skew ? " — CLOCK_SKEW" : "") + "\n";
    }
  }
  if (quiet) s += "  " + std::to_string(quiet) + " more with no collectives to compare: not checked\n";
  return s;
}

std::string WaitsJson(const Waits& w) {
  std::string s = "{\"from\":" + JsonQuote(w.from) + ",\"collectives\":" + std::to_string(w.collectives) + ",\"ranks\":[";
  for (size_t i = 0; i < w.ranks.size(); i++) {
    const RankWaits& r = w.ranks[i];
    s += std::string(i ? "," : "") + "{\"label\":" + JsonQuote(r.label) + ",\"run\":" + JsonQuote(r.run) +
         ",\"path\":" + JsonQuote(r.path) + ",\"clock_checked\":" + (r.clock_checked ? "true" : "false") +
         ",\"wait_us\":" + FormatMicros(r.wait_ns) + ",\"collectives\":" + std::to_string(r.collectives) +
         ",\"comm_us\":" + FormatMicros(r.comm_ns) +
         ",\"held\":" + std::to_string(r.held) + "}";
  }
  s += "],\"steps\":[";
  for (size_t i = 0; i < w.steps.size(); i++) {
    const StepWaits& st = w.steps[i];
    s += std::string(i ? ",\n" : "\n") + "{\"run\":" + JsonQuote(st.run) + ",\"step\":" + std::to_string(st.step) +
         ",\"start_us\":" + FormatMicros(st.start_ns) + ",\"collectives\":" + std::to_string(st.collectives) +
         ",\"held_by\":[";
    for (size_t k = 0; k < st.held_by.size(); k++) s += (k ? "," : "") + std::to_string(st.held_by[k]);
    s += "],\"late_count\":" + std::to_string(st.late_count) + ",\"lost_us\":" + FormatMicros(st.lost_ns) + ",\"others\":" + std::to_string(st.others) +
         ",\"why\":" + JsonQuote(st.why);
    // Per rank (null: no such step there): its length, its waiting, its time in communication.
    for (auto [name, field] : {std::pair{"span_us", &StepRank::span_ns}, {"wait_us", &StepRank::wait_ns}, {"comm_us", &StepRank::comm_ns}}) {
      s += std::string(",\"") + name + "\":[";
      for (size_t r = 0; r < st.ranks.size(); r++)
        s += (r ? "," : "") + (st.ranks[r].span_ns < 0 ? std::string("null") : FormatMicros(st.ranks[r].*field));
      s += "]";
    }
    s += "}";
  }
  return s + "]}";
}

// "870.5 µs", "103.959 ms": a length of time in the unit that reads best.
std::string Span(int64_t ns) { return ns >= 10000000 || ns <= -10000000 ? FormatMicros(ns / 1000) + " ms" : FormatMicros(ns) + " µs"; }

// Who waits for whom: the steps in which some ranks held the others back, or that none did.
std::string WaitsSummary(const Waits& w) {
  std::string s = "who waits for whom (" + w.from + ", " + std::to_string(w.ranks.size()) + " ranks, " +
                  std::to_string(w.collectives) + " collectives matched across them):\n";
  size_t shown = 0, named = 0;
  for (const StepWaits& st : w.steps) {
    if (st.held_by.empty()) continue;
    named++;
    if (shown++ == 20) s += "  …\n";
    if (shown > 20) continue;
    std::string who;
    int64_t busy = INT64_MAX;
    for (int32_t r : st.held_by) {
      who += (who.empty() ? "" : ", ") + w.ranks[r].label;
      busy = std::min(busy, st.ranks[r].span_ns - st.ranks[r].wait_ns);
    }
    s += "  step " + std::to_string(st.step) + (st.run.empty() ? "" : " of " + st.run) + ": the others waited for " + who +
         " (each among the last to arrive at " + (st.late_count < st.collectives ? "at least " : "") +
         std::to_string(st.late_count) + " of " + std::to_string(st.collectives) + " collectives, busy " + Span(busy) +
         " or more); the " + std::to_string(st.others) + " other rank" + (st.others == 1 ? "" : "s") + " lost " + Span(st.lost_ns) +
         " in all\n";
  }
  if (!named) s += "  no rank held the others back beyond chance in any step\n";
  else s += "  in " + std::to_string(named) + " of " + std::to_string(w.steps.size()) + " steps some ranks held the others back\n";
  return s;
}

}  // namespace

std::string Report::Summary() const {
  std::string s;
  if (fatal) s += "error: " + fatal->ToString() + "\n";
  if (job_start_ns <= job_end_ns) {
    s += "job: " + FormatMicros(job_start_ns) + " .. " + FormatMicros(job_end_ns) + " µs";
    if (!steps.empty())
      s += ", " + std::to_string(steps.size()) + " steps (" + steps_from + "): " + StepList(steps);
    s += "\n";
  }
  s += "window: " + WindowText(*this) + "\n";
  for (const SourceReport& src : sources) {
    s += "  " + src.path + "\n    " + KindName(src.kind);
    if (!src.included) {
      s += " — " + src.note + "\n";
      continue;
    }
    const Identity& id = src.identity;  // who recorded it
    s += ", " + (id.rank >= 0 ? id.group : "node " + (id.node.empty() ? src.node : id.node));
    if (!id.host.empty() && (id.rank < 0 || id.group.find(id.host) == std::string::npos)) s += " on " + id.host;
    s += ": " + std::to_string(src.events_read) + " events read";
    if (!scan_only) s += ", " + std::to_string(src.events_kept) + " kept";
    if (src.events_dropped) s += ", " + std::to_string(src.events_dropped) + " dropped (see warnings)";
    if (src.events_outside) s += ", " + std::to_string(src.events_outside) + " outside the window";
    if (src.metadata_merged) s += ", " + std::to_string(src.metadata_merged) + " names/headers merged into tracks";
    if (src.metadata_unused) s += ", " + std::to_string(src.metadata_unused) + " metadata of empty processes left out";
    s += "\n    time base: " + src.time_base;
    if (src.offset_us) s += ", offset " + std::to_string(src.offset_us) + " µs";
    if (src.aligned_ns) s += ", aligned by --align " + std::string(AlignName(align)) + " " + SignedMicros(src.aligned_ns);
    if (src.placed_ns) s += ", placed " + SignedMicros(src.placed_ns);
    s += "\n";
  }
  if (clock_attempted) s += ClockSummary(clock_hosts);
  if (!waits.from.empty()) s += WaitsSummary(waits);
  std::map<Code, size_t> counts;
  for (const Diagnostic& d : warnings) counts[d.code]++;
  size_t shown = 0;
  for (const Diagnostic& d : warnings) {
    if (d.code == Code::kSkipped) continue;
    if (shown++ == 50) {
      s += "  … " + std::to_string(warnings.size() - 50) + " more warnings in the report\n";
      break;
    }
    s += "  " + std::string(SeverityOf(d.code) == Severity::kNote ? "note: " : "warning: ") + d.ToString() + "\n";
  }
  if (!fatal && bytes_written > 0)
    s += std::to_string(events_written) + " events written, " + std::to_string(bytes_written) + " bytes\n";
  return s;
}

std::string Report::ToJson() const {
  std::string s = "{\"version\":" + JsonQuote(kVersion) + ",\"window\":{";
  if (window_bounded) {
    if (window_start_ns != INT64_MIN) s += "\"start_us\":" + FormatMicros(window_start_ns) + ",";
    if (window_end_ns != INT64_MAX) s += "\"end_us\":" + FormatMicros(window_end_ns) + ",";
    if (start_step) s += "\"start_step\":" + std::to_string(*start_step) + ",";
    if (end_step) s += "\"end_step\":" + std::to_string(*end_step) + ",";
  }
  s += "\"text\":" + JsonQuote(WindowText(*this)) + "},\"align\":" + JsonQuote(AlignName(align));
  if (align_step) s += ",\"align_step\":" + std::to_string(*align_step);
  s += ",\"events\":" + std::to_string(events_written) + ",\"job\":{";
  if (job_start_ns <= job_end_ns)
    s += "\"start_us\":" + FormatMicros(job_start_ns) + ",\"end_us\":" + FormatMicros(job_end_ns) + ",";
  // Whether its times are dates: some source has a clock (else all are relative, placed at 0).
  const bool clock = std::any_of(sources.begin(), sources.end(), [](const SourceReport& r) { return r.included && r.absolute; });
  s += std::string("\"clock\":") + (clock ? "true" : "false") + ",";
  s += "\"steps_from\":" + JsonQuote(steps.empty() ? "" : steps_from) + ",\"steps\":[";
  for (size_t i = 0; i < steps.size() && i < 100000; i++)
    s += (i ? ",[" : "[") + std::to_string(steps[i].first) + "," + FormatMicros(steps[i].second) + "]";
  s += "]},";
  if (!overview_json.empty()) s += "\n\"overview\":" + overview_json + ",";
  s += "\n\"sources\":[";
  bool first = true;
  for (const SourceReport& r : sources) {
    s += first ? "\n" : ",\n";
    first = false;
    s += "{\"path\":" + JsonQuote(r.path) + ",\"kind\":" + JsonQuote(KindName(r.kind)) + ",\"node\":" + JsonQuote(r.node) +
         ",\"included\":" + (r.included ? "true" : "false") + ",\"note\":" + JsonQuote(r.note) +
         ",\"bytes\":" + std::to_string(r.bytes) + ",\"inflated_bytes\":" + std::to_string(r.inflated_bytes) +
         ",\"events\":" + std::to_string(r.events_read) + ",\"kept\":" + std::to_string(r.events_kept) +
         ",\"dropped\":" + std::to_string(r.events_dropped) +
         ",\"outside_window\":" + std::to_string(r.events_outside) +
         ",\"metadata_merged\":" + std::to_string(r.metadata_merged) +
         ",\"metadata_unused\":" + std::to_string(r.metadata_unused) + ",\"time_base\":" + JsonQuote(r.time_base) +
         ",\"time_base_kind\":" + JsonQuote(BaseKindName(r.time_base_kind)) +
         ",\"time_base_label\":" + JsonQuote(BaseKindLabel(r.time_base_kind)) +
         ",\"time_base_value\":" + JsonQuote(r.time_base_value) + ",\"time_base_why\":" + JsonQuote(r.time_base_why) + ",\"identity\":" + (r.included ? IdentityJson(r.identity) : "null") +
         ",\"absolute\":" + (r.absolute ? "true" : "false") + ",\"offset_us\":" + std::to_string(r.offset_us) +
         ",\"aligned_us\":" + FormatMicros(r.aligned_ns) + ",\"placed_us\":" + FormatMicros(r.placed_ns) +
         ",\"clock_host\":" + std::to_string(r.clock_host);
    s += ",\"label\":" + JsonQuote(r.identity.group);  // what the page groups sources by
    if (r.pieces > 1) s += ",\"piece\":" + std::to_string(r.piece) + ",\"pieces\":" + std::to_string(r.pieces);
    s += "}";
  }
  s += "],\n\"clock_check\":{\"attempted\":" + std::string(clock_attempted ? "true" : "false") + ",\"hosts\":[";
  for (size_t i = 0; i < clock_hosts.size(); i++) s += (i ? ",\n" : "\n") + HostClockJson(clock_hosts[i]);
  s += "]},\n\"waits\":" + WaitsJson(waits) + ",\n\"warnings\":[";
  first = true;
  for (const Diagnostic& d : warnings) {
    s += first ? "\n" : ",\n";
    first = false;
    s += "{\"code\":" + JsonQuote(CodeName(d.code)) + ",\"severity\":" + JsonQuote(SeverityName(SeverityOf(d.code))) +
         ",\"file\":" + JsonQuote(d.file) + ",\"offset\":" + std::to_string(d.offset) +
         ",\"at_byte\":" + (d.AtByte() ? "true" : "false") + ",\"message\":" + JsonQuote(d.message) + "}";
  }
  s += "]}";
  return s;
}

}  // namespace tracemerge
