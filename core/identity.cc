#include "identity.h"

#include <map>
#include <set>

#include "formats/tf_profiler.h"

namespace tracemerge {

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
  job.runs = runs.size();
  std::map<std::pair<std::string, std::string>, uint32_t> domains;  // (run, host or stream) → domain
  for (ParsedSource& s : job.sources) {
    if (!s.report.included) continue;
    Identity& id = s.identity;
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
