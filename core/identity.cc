#include "identity.h"

#include <algorithm>
#include <map>
#include <set>

#include "numbers.h"

namespace tracemerge {

namespace {

// Files that share a stream continue one another — a step's kernels may end
// after the next step's file begins. In time order, a file that overlaps the
// one before it by half the shorter or more (two jobs' "rank 0" of the same pid
// side by side), or marks a step its series already has (a second run of the
// job), starts a series of its own: "rank 0 · host-a · pid 7 #2" — never one
// rank's steps stretched over two runs. (For the formats whose streams repeat: format.h.)
void SplitStreamsIntoSeries(Job& job) {
  struct File {
    int64_t start = INT64_MAX, end = INT64_MIN;
    size_t index;
  };
  std::map<std::pair<std::string, std::string>, std::vector<File>> streams;  // (run, stream) → its files
  for (size_t i = 0; i < job.sources.size(); i++) {
    const ParsedSource& s = job.sources[i];
    if (s.report.included && FormatOf(s.cls.format).StreamsRepeat())
      streams[{s.identity.run, s.identity.stream}].push_back(File{INT64_MAX, INT64_MIN, i});
  }
  for (auto& [key, files] : streams) {
    if (files.size() < 2) continue;  // (a file alone — most ranks — is not read again)
    for (File& f : files) {
      const ParsedSource& s = job.sources[f.index];
      const TimeBase tb = FormatOf(s.cls.format).Clock(s, job.facts);
      for (const Event& e : s.events) {
        if (!e.has_ts || e.ph == 'M') continue;
        const int64_t t = e.based ? e.ts : AddNs(e.ts, tb.base_ns);
        f.start = std::min(f.start, t);
        f.end = std::max(f.end, AddNs(t, Duration(e)));
      }
    }
    std::stable_sort(files.begin(), files.end(), [](const File& a, const File& b) { return a.start < b.start; });
    size_t series = 1;
    std::set<int64_t> steps;  // the current series'
    const File* before = nullptr;
    for (const File& f : files) {
      ParsedSource& s = job.sources[f.index];
      bool repeats = false;
      for (auto [step, ev] : s.steps) repeats |= steps.count(step) > 0;
      bool overlaps = false;
      if (before && f.start <= f.end && before->start <= before->end) {
        const int64_t shared = std::min(f.end, before->end) - f.start;
        overlaps = shared > 0 && 2 * shared >= std::min(f.end - f.start, before->end - before->start);
      }
      if (repeats || overlaps) series++, steps.clear();
      for (auto [step, ev] : s.steps) steps.insert(step);
      before = &f;
      if (series > 1) {
        const std::string n = " #" + std::to_string(series);
        s.identity.stream += n;
        s.identity.label += n;
        if (!s.identity.group.empty()) s.identity.group += n;
      }
    }
  }
}

}  // namespace

void IdentifySources(Job& job) {
  SplitRanks(job.sources);
  job.facts = JobFacts{};
  std::set<std::string> runs;
  auto identify = [&](ParsedSource& s) {
    s.identity = FormatOf(s.cls.format).Identify(s, job.facts);
    s.identity.format = s.cls.format;
    if (s.identity.group.empty())
      s.identity.group = s.identity.rank >= 0 ? s.identity.label : s.identity.node;
    if (!s.identity.run.empty()) runs.insert(s.identity.run);
    if (!s.identity.host_note.empty()) s.Warn(Code::kNote, 0, s.identity.host_note);
  };
  // (skipped, filtered out, a sidecar: no events, no identity.) In two rounds
  // (format.h IdentifiedSecond): a TF trace's sidecar may take the others' hosts.
  for (ParsedSource& s : job.sources)
    if (s.report.included && !FormatOf(s.cls.format).IdentifiedSecond(s)) identify(s);
  for (FormatId f : kFormatOrder) FormatOf(f).LearnJob(job.sources, &job.facts);
  for (ParsedSource& s : job.sources)
    if (s.report.included && FormatOf(s.cls.format).IdentifiedSecond(s)) identify(s);
  SplitStreamsIntoSeries(job);
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
    // (The key: a host, else a rank, else a stream — marked apart from any host's name.)
    const std::string rank = id.rank >= 0 ? "rank " + std::to_string(id.rank) : std::string();
    const std::string who = !id.host.empty() ? id.host : !rank.empty() ? "\x1f" + rank : "\x1f" + id.stream;
    id.domain = domains.try_emplace({id.run, who}, static_cast<uint32_t>(domains.size())).first->second;
    id.clock_name = !id.host.empty() ? id.host : !rank.empty() ? rank : id.node;
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
