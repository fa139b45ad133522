// The moves: --align clocks and steps, clockless sources placed (align.h).
#include <algorithm>
#include <chrono>
#include <map>

#include "align.h"
#include "clock_check.h"
#include "identity.h"
#include "numbers.h"

namespace tracemerge {
namespace {

// --align steps: per host, the shift that starts `step` (or the first step
// every host with steps has) where the reference host starts it.
std::vector<int64_t> StepShifts(const Job& job, std::optional<int64_t> step, Report* report,
                                std::vector<Diagnostic>* warnings) {
  const StepKind kind = JobStepKind(job);
  std::map<uint32_t, std::map<int64_t, int64_t>> host_starts;  // host (domain) → step → its first ts (the job's marks)
  std::vector<uint32_t> host_order;                            // (path order of their first source)
  for (const ParsedSource& s : job.sources) {
    if (!s.report.included) continue;
    const uint32_t host = s.identity.domain;
    if (!host_starts.count(host)) host_order.push_back(host);
    auto& m = host_starts[host];
    for (auto [step, event] : StepsOf(s, kind)) {
      auto [it, added] = m.try_emplace(step, s.events[event].ts);
      if (!added) it->second = std::min(it->second, s.events[event].ts);
    }
  }
  std::vector<int64_t> shifts(job.sources.size(), 0);
  if (!step) {  // the first step every host with steps has
    const std::map<int64_t, int64_t>* first = nullptr;
    for (uint32_t h : host_order)
      if (!host_starts[h].empty() && !first) first = &host_starts[h];
    if (first)
      for (auto [st, ts] : *first) {
        bool all = true;
        for (auto& [h, m] : host_starts) all &= m.empty() || m.count(st);
        if (all) {
          step = st;
          break;
        }
      }
  }
  if (!step) {
    warnings->push_back({Code::kNote, "", 0, "--align steps: no step is in every source with steps; nothing moved"});
    return shifts;
  }
  report->align_step = step;
  std::optional<int64_t> at;  // where the reference host starts it
  std::map<uint32_t, int64_t> host_shift;
  for (uint32_t h : host_order) {
    auto it = host_starts[h].find(*step);
    if (it == host_starts[h].end()) continue;
    if (!at) at = it->second;
    host_shift[h] = SubNs(*at, it->second);
  }
  for (size_t i = 0; i < job.sources.size(); i++) {
    const ParsedSource& s = job.sources[i];
    auto it = host_shift.find(s.identity.domain);
    if (it != host_shift.end()) shifts[i] = it->second;
    else if (s.report.included && !s.events.empty())
      warnings->push_back({Code::kNote, s.path, 0,
                           "--align steps: neither this file nor another of its host has step " +
                               std::to_string(*step) + "; not moved"});
  }
  return shifts;
}

// Whether an included source has no clock (PlaceClockless moves it).
bool AnyClockless(const Job& job) {
  for (const ParsedSource& s : job.sources)
    if (s.report.included && !s.report.absolute) return true;
  return false;
}

// Clockless sources that nothing placed move where the sources with a clock
// start — the sources of one recording together (identity.h RecordingOf), by
// one shift, so that their times stay as they were to each other; a job of
// relative times only that would start before 0 is moved to start at 0
// (viewers drop times before 0). One NO_CLOCK per recording.
void PlaceClockless(Job& job, const std::vector<HostClock>& hosts) {
  if (!AnyClockless(job)) return;  // (most jobs have none: no pass over their events)
  auto first_ts = [](const ParsedSource& s) {
    std::optional<int64_t> t;
    for (const Event& e : s.events)
      if (e.has_ts && e.ph != 'M') t = std::min(t.value_or(INT64_MAX), e.ts);
    return t;
  };
  std::optional<int64_t> job_start, relative_start;  // of the sources with a clock, without one
  struct Recording {
    std::vector<size_t> sources;
    std::optional<int64_t> start;
  };
  std::map<std::string, Recording> recordings;  // the clockless ones
  std::vector<std::string> order;
  for (size_t i = 0; i < job.sources.size(); i++) {
    const ParsedSource& s = job.sources[i];
    std::optional<int64_t> first = first_ts(s);
    if (!s.report.included || !first) continue;
    std::optional<int64_t>& start = s.report.absolute ? job_start : relative_start;
    start = std::min(start.value_or(INT64_MAX), *first);
    if (s.report.absolute) continue;
    const std::string key = RecordingOf(s);
    Recording& rec = recordings[key];
    if (rec.sources.empty()) order.push_back(key);
    rec.sources.push_back(i);
    if (!s.report.aligned_ns && !s.report.offset_us) rec.start = std::min(rec.start.value_or(INT64_MAX), *first);
  }
  for (const std::string& key : order) {
    const Recording& rec = recordings[key];
    int64_t shift = 0;
    std::string how;
    if (job_start && rec.start) {
      shift = SubNs(*job_start, *rec.start);
      // (where its collectives line up with a clock's, --align clocks places it by them)
      const HostClock* by = nullptr;
      for (size_t i : rec.sources)
        if (int32_t h = job.sources[i].report.clock_host; h >= 0 && hosts[h].relative) by = &hosts[h];
      how = "placed at the start of the sources with a clock (moved " + SignedMicros(shift) + ")" +
            (rec.sources.size() > 1 ? ", together: their times relative to each other as recorded" : "") +
            ", so that it does not stretch the job; " +
            (by ? "its " + by->from + " line up with " + by->reference + "'s (" + std::to_string(by->anchors) + " of " +
                      std::to_string(by->matched) + " ends): --align clocks places it by them"
                : "give --offset or --align steps to place " + std::string(rec.sources.size() > 1 ? "them" : "it"));
    } else if (!job_start && *relative_start < 0) {
      shift = SubNs(0, *relative_start);
      how = "times stay relative; moved " + SignedMicros(shift) + " with the job's other files so that no time is before 0";
    } else if (!job_start) {
      how = "times stay relative — give an offset to align " + std::string(rec.sources.size() > 1 ? "them" : "it");
    }
    size_t placed_by_flags = 0;
    for (size_t i : rec.sources) {
      ParsedSource& s = job.sources[i];
      if ((s.report.aligned_ns || s.report.offset_us) && job_start) {
        placed_by_flags++;
        continue;
      }
      s.report.placed_ns = shift;
      ShiftSource(s, shift);
    }
    if (placed_by_flags == rec.sources.size())
      how = rec.sources.size() > 1 ? "placed by --offset or --align" : job.sources[rec.sources[0]].report.aligned_ns ? "placed by --align" : "placed by its --offset";
    ParsedSource& first = job.sources[rec.sources[0]];
    const std::string who = rec.sources.size() > 1 ? " (this file and " + std::to_string(rec.sources.size() - 1) +
                                                         " more of " + key.substr(key.find('\x1f') + 1) + ")"
                                                   : "";
    first.Warn(Code::kNoClock, 0,
               "no absolute time base (no smdebug header, TF .metadata sidecar, baseTimeNanoseconds or XPlane Task Environment)" + who + "; " + how);
  }
}
}  // namespace

void CorrectSource(ParsedSource& s, const HostClock& clock) {
  if (!clock.drift) return ShiftSource(s, SubNs(0, clock.offset_ns));
  for (Event& e : s.events) {
    if (!e.has_ts) continue;
    const int64_t end = AddNs(e.ts, Duration(e));
    e.ts = SubNs(e.ts, clock.OffsetAt(e.ts));
    if (e.ph == 'M' && e.ts < 0) e.ts = 0;  // (Perfetto drops metadata before 0, as ShiftSource says)
    if (!IsPairPhase(e.ph)) e.dur = std::max<int64_t>(0, SubNs(SubNs(end, clock.OffsetAt(end)), e.ts));
  }
}

void AlignSources(Job& job, const Options& options, CollectiveMatcher& matcher, Report* report,
                  std::vector<Diagnostic>* warnings) {
  report->align = options.align;
  const bool moves = options.align != Align::kNone || AnyClockless(job);  // (else the times stay as they are)
  const auto t0 = std::chrono::steady_clock::now();
  const ClockCheck check = CheckClocks(job, matcher);
  report->clock_check_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const bool clocks = options.align == Align::kClocks;
  WarnClocks(job, check, clocks, warnings);
  for (size_t i = 0; i < job.sources.size(); i++) job.sources[i].report.clock_host = check.host_of[i];
  std::vector<int64_t> shifts(job.sources.size(), 0);
  if (clocks) {
    size_t moved = 0;
    std::map<std::string, std::string> within;  // run → the checked hosts left where they are
    for (const HostClock& hc : check.hosts) {
      if (hc.verdict == HostClock::Verdict::kChecked && hc.skew) {
        moved++;
        for (uint32_t i : hc.sources) {
          CorrectSource(job.sources[i], hc);
          job.sources[i].report.aligned_ns = SubNs(0, hc.OffsetAt(hc.at_ns));
        }
      } else if (hc.verdict == HostClock::Verdict::kChecked) {
        // An estimate within its noise (what ranks of one clock differ by) moves nothing.
        std::string& list = within[hc.run];
        list += (list.empty() ? "" : "; ") + hc.Label() + " " + SignedMicros(hc.offset_ns) + " ± " +
                FormatMicros(hc.uncertainty_ns) + " µs";
      } else if (hc.verdict == HostClock::Verdict::kUnchecked && check.attempted) {
        job.sources[hc.sources[0]].Warn(Code::kNote, 0, "--align clocks: " + hc.Label() + " not moved: " + hc.reason);
      }
    }
    for (auto& [run, list] : within)
      warnings->push_back({Code::kNote, "", 0,
                           "--align clocks" + (job.runs > 1 ? " in " + run : std::string()) +
                               ": not moved, each within its noise (no clock is off beyond chance and " +
                               FormatMicros(kSkewFloorNs) + " µs): " + list});
    if (!moved && within.empty())
      warnings->push_back({Code::kNote, "", 0,
                           check.attempted ? std::string("--align clocks: no host's clock could be checked; nothing moved")
                                           : std::string("--align clocks: ") + kNoCollectives + " across hosts; nothing moved"});
  } else if (options.align == Align::kSteps) {
    std::optional<int64_t> step;
    if (options.unit == Unit::kStep && options.start) step = options.start;
    shifts = StepShifts(job, step, report, warnings);
  }
  for (size_t i = 0; i < job.sources.size(); i++) {
    if (!shifts[i] || !job.sources[i].report.included) continue;
    job.sources[i].report.aligned_ns = shifts[i];
    ShiftSource(job.sources[i], shifts[i]);
  }
  report->clock_hosts = check.hosts;
  report->clock_attempted = check.attempted;
  PlaceClockless(job, check.hosts);
  if (moves) matcher.Forget();  // (the collectives' ends are read again when asked)
}

}  // namespace tracemerge
