// Who recorded what (README.md, "Who recorded what"): every source's identity from its format, the
// job's runs and clock domains, and the steps the job goes by — decided once,
// here, and read by every later stage (clocks, clock check, align, window,
// overview, tracks), none of which re-derives them.
//
//   monday/framework/pevents/…/1_0-algo-1_pythontimeline.json  (+ the same under thursday/)
//   → two runs: labels "monday · 0-algo-1 · pythontimeline", "thursday · 0-algo-1 · pythontimeline",
//     two clock domains (host algo-1 in each run), never one track
//   job/host-a_11.17000….pt.trace.json, job/host-a_12.17000….pt.trace.json → one domain (host-a)
//   job/x.json, job/y.json (nothing says their host) → a domain each
#pragma once

#include "stages.h"

namespace tracemerge {

// Sets job.facts and every source's identity (formats/format.h), with the run
// in its label and group when the job holds more than one run; numbers the
// clock domains: sources of one host within one run share one — and, where
// no host is said, those of one rank (a process runs on one host); any other
// source has one of its own.
void IdentifySources(Job& job);

// A file whose events say several ranks (args.rank, as a merge of ranks'
// traces writes them) becomes one source per rank, in its place (ranks.cc);
// IdentifySources does it first.
void SplitRanks(std::vector<ParsedSource>& sources);

// The sources recorded on one clock as far as the job can tell, for placing
// clockless ones together: its host's within its run, else its folder's (a
// tool's files of one recording, such as CANN msprof's per device); a file
// given by itself alone. "<run>\x1f<host algo-1 | folder | path>".
std::string RecordingOf(const ParsedSource& s);

// The kind of step marks the job goes by: the first kind (StepKind's order)
// any included source has — pythontimeline step_num over ProfilerStep#N, as
// the reference. StepsOf: a source's marks of that kind (empty otherwise).
StepKind JobStepKind(const Job& job);
const Marks& StepsOf(const ParsedSource& s, StepKind job_kind);

}  // namespace tracemerge
