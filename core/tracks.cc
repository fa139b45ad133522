// Tracks: output pids and tids (positive, below 2^31, named after their
// source) for the processes and threads with kept events, and their lanes.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "numbers.h"
#include "worker_pool.h"
#include "stages.h"

namespace tracemerge {
namespace {

// Hands out positive tids within one output pid, preferring the original.
struct TidAllocator {
  std::set<uint32_t> used;
  uint32_t next = 1;
  uint32_t Take(std::string_view original) {
    auto t = ParseScaled(original, 1);
    if (t && *t > 0 && *t < INT32_MAX && !used.count(static_cast<uint32_t>(*t))) {
      used.insert(static_cast<uint32_t>(*t));
      return static_cast<uint32_t>(*t);
    }
    while (used.count(next)) next++;
    used.insert(next);
    return next;
  }
};

bool IsPlainId(std::string_view text) {
  auto v = ParseScaled(text, 1);
  return text.empty() || (v && *v > 0 && *v < INT32_MAX && std::to_string(*v) == text);
}

// "+1.523 ms", "-86400.5 s": a move, in the unit that reads best.
std::string Moved(int64_t ns) {
  const int64_t mag = ns < 0 ? -ns : ns;
  const std::string sign = ns < 0 ? "-" : "+";
  if (mag < 1000000) return sign + FormatMicros(mag) + " µs";
  if (mag < 1000000000) return sign + FormatMicros(mag / 1000) + " ms";
  return sign + FormatMicros(mag / 1000000) + " s";
}

// One output thread (before lanes): its process, name, and kept X slices.
struct OutThread {
  uint32_t pid;
  std::string tid_text, name;
  size_t slices = 0;  // its kept X slices: at slices_at in AssignTracks' list of them
  size_t slices_at = 0;
  size_t lanes = 1;
  std::vector<uint32_t> tids;
  bool capped = false;
};

}  // namespace

TrackPlan AssignTracks(Job& job, Group group) {
  const size_t n = job.sources.size();
  // Which threads have kept events; how many kept X slices each (for lanes).
  std::vector<std::vector<bool>> thread_used(n);
  std::vector<std::vector<uint32_t>> count(n), at(n);  // [source][thread]: its X slices; where they go
  ForEach(n, job.threads, [&](size_t i) {
    const ParsedSource& s = job.sources[i];
    thread_used[i].assign(s.threads.size(), false);
    count[i].assign(s.threads.size(), 0);
    for (const Event& e : s.events) {
      if (!e.keep || e.ph == 'M') continue;
      thread_used[i][e.thread] = true;
      count[i][e.thread] += e.ph == 'X';
    }
  });
  // Output processes and threads: the files of one stream (identity.h: smdebug
  // rotates one over many files) join by their original pid; never across runs.
  TrackPlan plan;
  plan.sources.resize(n);
  std::vector<OutThread> out_threads;
  std::map<std::string, uint32_t> pid_of, thread_of;
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<std::vector<uint32_t>> out_thread(n);  // [source][thread] → out thread
  uint32_t next_pid = 1;
  for (uint32_t si = 0; si < n; si++) {
    const ParsedSource& s = job.sources[si];
    SourceTracks& st = plan.sources[si];
    st.pid.assign(s.procs.size(), 0);
    st.tids.assign(s.threads.size(), {});
    const std::string stream = s.identity.run + '\x1f' + s.identity.stream;
    const std::string label = JsonEscape(s.identity.label);
    // A move by --align or to place a clockless source shows in its names.
    const int64_t moved = s.report.aligned_ns + s.report.placed_ns;
    const std::string suffix = !moved ? std::string()
                               : s.report.aligned_ns ? " (aligned " + Moved(moved) + ")"
                                                     : " (placed " + Moved(moved) + ")";
    std::map<std::string, int> names;  // Kineto names every GPU's process after its CPU process
    for (const Proc& p : s.procs) names[p.name]++;
    out_thread[si].assign(s.threads.size(), kNone);
    for (uint32_t ti = 0; ti < s.threads.size(); ti++) {
      if (!thread_used[si][ti]) continue;
      const Thread& t = s.threads[ti];
      const Proc& p = s.procs[t.proc];
      std::string pname = !p.name.empty() ? p.name : "pid " + JsonEscape(p.pid_text.empty() ? "-" : p.pid_text);
      if (!p.labels.empty()) pname = p.labels + (p.name.empty() || names[p.name] > 1 ? "" : " · " + p.name);
      if (s.cls.kind == Kind::kSystem) pname = "metrics";
      std::string pkey = group == Group::kSource ? stream + '\x1f' + p.pid_text : pname;
      auto [pit, new_pid] = pid_of.try_emplace(pkey, next_pid);
      if (new_pid) {
        std::string full = pname;
        if (group == Group::kSource) {
          full = label + " · " + pname;
          if (!p.name.empty() && !IsPlainId(p.pid_text)) full += " (pid " + JsonEscape(p.pid_text) + ")";
          full += suffix;
        }
        plan.process_names.push_back({next_pid++, full});
      }
      st.pid[t.proc] = pit->second;
      std::string tname = !t.name.empty()        ? t.name
                          : t.tid_text.empty()   ? std::string("main")
                                                 : "tid " + JsonEscape(t.tid_text);
      if (!t.name.empty() && !t.tid_text.empty() && !IsPlainId(t.tid_text))
        tname += " (tid " + JsonEscape(t.tid_text) + ")";
      std::string tkey = pkey + '\x1f' + t.tid_text;
      if (group == Group::kPhase) {
        tname = label + " · " + tname;
        tkey += '\x1f' + stream;
      }
      auto [tit, new_thread] = thread_of.try_emplace(tkey, static_cast<uint32_t>(out_threads.size()));
      if (new_thread) out_threads.push_back({pit->second, t.tid_text, tname, 0, 0, 1, {}});
      out_thread[si][ti] = tit->second;
    }
  }

  // Lanes: X slices of one output thread that overlap without nesting go to lane 1, 2, …
  // The threads' slices in one list, each thread's together: counted per
  // source thread (above), then gathered a source at a time. (Their order within
  // a thread does not matter: AssignLanes orders them by time and canon.)
  for (uint32_t si = 0; si < n; si++)
    for (uint32_t ti = 0; ti < count[si].size(); ti++)
      if (out_thread[si][ti] != kNone) out_threads[out_thread[si][ti]].slices += count[si][ti];
  size_t total = 0;
  for (OutThread& ot : out_threads) ot.slices_at = total, total += ot.slices;
  std::vector<size_t> fill(out_threads.size());
  for (size_t o = 0; o < out_threads.size(); o++) fill[o] = out_threads[o].slices_at;
  for (uint32_t si = 0; si < n; si++) {
    at[si].assign(count[si].size(), 0);
    for (uint32_t ti = 0; ti < count[si].size(); ti++)
      if (out_thread[si][ti] != kNone) at[si][ti] = static_cast<uint32_t>(fill[out_thread[si][ti]]), fill[out_thread[si][ti]] += count[si][ti];
  }
  // Each slice as source << 40 | index (its canon), uninitialized: fresh pages
  // cost a fault each on first touch, and a second pass of writes to zero them.
  std::unique_ptr<uint64_t[]> refs(new uint64_t[std::max<size_t>(total, 1)]);
  ForEach(n, job.threads, [&](size_t si) {
    const BlockVector<Event>& events = job.sources[si].events;
    for (uint32_t i = 0; i < events.size(); i++)
      if (events[i].keep && events[i].ph == 'X') refs[at[si][events[i].thread]++] = uint64_t{si} << 40 | i;
  });
  constexpr uint64_t kIndex = (uint64_t{1} << 40) - 1;
  std::vector<uint32_t> largest_first(out_threads.size());  // (so that the last one taken is short)
  for (uint32_t o = 0; o < largest_first.size(); o++) largest_first[o] = o;
  std::stable_sort(largest_first.begin(), largest_first.end(),
                   [&](uint32_t a, uint32_t b) { return out_threads[a].slices > out_threads[b].slices; });
  ForEach(out_threads.size(), job.threads, [&](size_t taken) {
    OutThread& ot = out_threads[largest_first[taken]];
    std::vector<LaneSlice> slices(ot.slices);
    for (size_t k = 0; k < ot.slices; k++) {
      const uint64_t r = refs[ot.slices_at + k];
      const Event& e = job.sources[r >> 40].events[r & kIndex];
      slices[k] = {e.ts, e.dur, r};
    }
    std::vector<uint8_t> lanes;
    ot.lanes = AssignLanes(slices, &lanes, &ot.capped);
    for (size_t k = 0; k < ot.slices; k++) job.sources[slices[k].canon >> 40].events[slices[k].canon & kIndex].lane = lanes[k];
  });
  refs.reset();

  std::map<uint32_t, TidAllocator> tids;
  for (OutThread& ot : out_threads) {
    if (ot.capped)
      plan.warnings.push_back({Code::kNote, "", 0,
                               "thread \"" + ot.name + "\" has more than " + std::to_string(kMaxLanes) +
                                   " slices overlapping at once; those beyond share its last lane, where a viewer "
                                   "may stack them wrongly"});
    for (size_t l = 0; l < ot.lanes; l++) {
      const uint32_t tid = tids[ot.pid].Take(l == 0 && group == Group::kSource ? ot.tid_text : "");
      ot.tids.push_back(tid);
      plan.thread_names.push_back({ot.pid, tid, l == 0 ? ot.name : ot.name + " #" + std::to_string(l + 1)});
    }
  }
  for (uint32_t si = 0; si < n; si++)
    for (uint32_t ti = 0; ti < out_thread[si].size(); ti++)
      if (out_thread[si][ti] != kNone) plan.sources[si].tids[ti] = out_threads[out_thread[si][ti]].tids;
  return plan;
}

}  // namespace tracemerge
