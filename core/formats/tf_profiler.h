// The TF profiler module's file names (tf_profiler.cc), for its tests.
//   ParseSidecar("j/000000000/80807-host_1596659864545103_1596659864854168.metadata")
//     → {step_dir "j/000000000", node "80807-host", start_us 1596659864545103, end_us 1596659864854168}
//   TfStepDir("j/000000000/plugins/profile/2020_08_05/host.trace.json.gz") → "j/000000000"
//   ChooseTfClocks: which of a step folder's sidecars places each of its traces (tf_profiler_clock.cc)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tracemerge {

struct Sidecar {
  std::string step_dir;  // the folder that holds it; the TF traces under it take their clock from it
  std::string node;      // smdebug's node id of the host that wrote them
  int64_t start_us = 0;
  int64_t end_us = 0;
  std::string name;      // its file's name (set where it is looked up)
};
std::optional<Sidecar> ParseSidecar(std::string_view path);
std::string TfStepDir(std::string_view path);

// Whether a source takes its clock and host from its step folder's sidecars:
// a TF trace, or an XSpace (what TF >= 2.11 writes there instead) under
// "…/plugins/profile/" (placed by them where its step folder has any).
struct ParsedSource;
struct JobFacts;
bool SidecarPlaced(const ParsedSource& s);

// Every included TF trace's (and XSpace's) clock among its step folder's sidecars
// (facts->sidecars), and the host it ties the trace to, into facts->tf_clocks
// (tf_profiler_clock.cc says the rules). The other sources' identities must be
// set: a trace is tied to a host by lining its Horovod ops up with that host's
// Horovod timeline.
void ChooseTfClocks(const std::vector<ParsedSource>& sources, JobFacts* facts);

}  // namespace tracemerge
