#include "identity.h"

#include <algorithm>
#include <map>
#include <set>

#include "formats/tf_profiler.h"
#include "numbers.h"

namespace tracemerge {

namespace {

// Files that share a stream continue one another — a step's kernels may end
// after the next step's file begins — but when two of them overlap by half the
// shorter or more (two jobs' "rank 0" of the same pid side by side) none of
// that stream's files is taken for another's continuation: each is a stream of its own.
void SplitOverlappingStreams(Job& job) {
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<int64_t, int64_t>>> spans;  // (run, stream) →
  std::vector<std::pair<int64_t, int64_t>> span(job.sources.size(), {INT64_MAX, INT64_MIN});
  for (size_t i = 0; i < job.sources.size(); i++) {
    ParsedSource& s = job.sources[i];
    if (!s.report.included || s.cls.format != FormatId::kKineto) continue;
    const TimeBase tb = FormatOf(s.cls.format).Clock(s, job.facts);
    for (const Event& e : s.events) {
      if (!e.has_ts || e.ph == 'M') continue;
      const int64_t t = e.based ? e.ts : AddNs(e.ts, tb.base_ns);
      span[i] = {std::min(span[i].first, t), std::max(span[i].second, AddNs(t, Duration(e)))};
    }
    if (span[i].first <= span[i].second) spans[{s.identity.run, s.identity.stream}].push_back(span[i]);
  }
  std::set<std::pair<std::string, std::string>> overlapping;
  for (auto& [key, list] : spans) {
    std::sort(list.begin(), list.end());
    for (size_t k = 1; k < list.size(); k++) {
      const int64_t shared = std::min(list[k].second, list[k - 1].second) - list[k].first;
      const int64_t shorter = std::min(list[k].second - list[k].first, list[k - 1].second - list[k - 1].first);
      if (shared > 0 && 2 * shared >= shorter) overlapping.insert(key);
    }
  }
  for (ParsedSource& s : job.sources)
    if (s.report.included && overlapping.count({s.identity.run, s.identity.stream}))
      s.identity.stream = "file " + s.path + '#' + std::to_string(s.arrival);
}

}  // namespace

void IdentifySources(Job& job) {
  job.facts = JobFacts{};
  for (const ParsedSource& s : job.sources)
    if (s.cls.kind == Kind::kSidecar)
      if (auto sc = ParseSidecar(s.path)) job.facts.sidecars.emplace(sc->step_dir, s.path);
  std::set<std::string> runs;
  auto identify = [&](ParsedSource& s) {
    s.identity = FormatOf(s.cls.format).Identify(s, job.facts);
    s.identity.format = s.cls.format;
    if (s.identity.group.empty())
      s.identity.group = s.identity.rank >= 0 ? s.identity.label : s.identity.node;
    if (!s.identity.run.empty()) runs.insert(s.identity.run);
    if (!s.identity.host_note.empty()) s.Warn(Code::kNote, 0, s.identity.host_note);
  };
  // (skipped, filtered out, a sidecar: no events, no identity.) TF traces last:
  // which sidecar is theirs may take the other sources' hosts.
  for (ParsedSource& s : job.sources)
    if (s.report.included && s.cls.kind != Kind::kTfTrace) identify(s);
  ChooseTfClocks(job.sources, &job.facts);
  for (ParsedSource& s : job.sources) {
    if (!s.report.included || s.cls.kind != Kind::kTfTrace) continue;
    identify(s);
    auto it = job.facts.tf_clocks.find(s.path);
    if (it != job.facts.tf_clocks.end() && it->second.code != Code::kOk)
      s.Warn(it->second.code, 0, "placed by TF sidecar " + it->second.sidecar + ": " + it->second.detail);
  }
  SplitOverlappingStreams(job);
  job.runs = runs.size();
  std::map<std::pair<std::string, std::string>, uint32_t> domains;  // (run, host or stream) → domain
  for (ParsedSource& s : job.sources) {
    if (!s.report.included) continue;
    Identity& id = s.identity;
    if (id.process.empty()) id.process = id.stream;
    if (job.runs > 1 && !id.run.empty()) {
      id.label = id.run + " · " + id.label;
      id.group = id.run + " · " + id.group;
    }
    // One host's sources share its clock; so do one rank's (a process runs on one host).
    const std::string who = !id.host.empty() ? id.host : id.rank >= 0 ? "\x1frank " + std::to_string(id.rank) : "\x1f" + id.stream;
    id.domain = domains.try_emplace({id.run, who}, static_cast<uint32_t>(domains.size())).first->second;
  }
  job.domains = static_cast<uint32_t>(domains.size());
}

std::string RecordingOf(const ParsedSource& s) {
  const Identity& id = s.identity;
  if (!id.host.empty()) return id.run + "\x1fhost " + id.host;
  const size_t slash = s.path.rfind('/');
  return id.run + '\x1f' + (slash == std::string::npos ? s.path : s.path.substr(0, slash));
}

StepKind JobStepKind(const Job& job) {
  StepKind kind = StepKind::kNone;
  for (const ParsedSource& s : job.sources)
    if (s.report.included && s.step_kind != StepKind::kNone && (kind == StepKind::kNone || s.step_kind < kind))
      kind = s.step_kind;
  return kind;
}

const Marks& StepsOf(const ParsedSource& s, StepKind job_kind) {
  static const Marks kNoMarks;
  return s.step_kind == job_kind && job_kind != StepKind::kNone ? s.steps : kNoMarks;
}

}  // namespace tracemerge
