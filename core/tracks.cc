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

constexpr uint32_t kNone = UINT32_MAX;

// Per source thread: whether it has kept events, and how many kept X slices (for lanes).
struct ThreadUse {
  std::vector<std::vector<bool>> used;       // [source][thread]
  std::vector<std::vector<uint32_t>> count;  // [source][thread]: its kept X slices
};

ThreadUse CountKept(const Job& job) {
  const size_t n = job.sources.size();
  ThreadUse use;
  use.used.resize(n);
  use.count.resize(n);
  ForEach(n, job.threads, [&](size_t i) {
    const ParsedSource& s = job.sources[i];
    use.used[i].assign(s.threads.size(), false);
    use.count[i].assign(s.threads.size(), 0);
    for (const Event& e : s.events) {
      if (!e.keep || e.ph == 'M') continue;
      use.used[i][e.thread] = true;
      use.count[i][e.thread] += e.ph == 'X';
    }
  });
  return use;
}

// The output threads, and which each source thread goes to.
struct OutTracks {
  std::vector<OutThread> threads;
  std::vector<std::vector<uint32_t>> of;  // [source][thread] → out thread (kNone: nothing kept)
};

// A process's name in its source: its own, its labels (Kineto names every GPU's process after
// its CPU process: then the labels alone), else its pid — or what its format calls them ("metrics").
std::string ProcessName(const ParsedSource& s, const Proc& p, const std::map<std::string, int>& names) {
  std::string pname = !p.name.empty() ? p.name : "pid " + JsonEscape(p.pid_text.empty() ? "-" : p.pid_text);
  if (!p.labels.empty()) pname = p.labels + (p.name.empty() || names.at(p.name) > 1 ? "" : " · " + p.name);
  if (const std::string_view named = FormatOf(s.cls.format).ProcessName(s); !named.empty()) pname = named;
  return pname;
}

// A thread's name: its own (with its tid when that is no plain number), else "main" or its tid.
std::string ThreadName(const Thread& t) {
  std::string tname = !t.name.empty()        ? t.name
                      : t.tid_text.empty()   ? std::string("main")
                                             : "tid " + JsonEscape(t.tid_text);
  if (!t.name.empty() && !t.tid_text.empty() && !IsPlainId(t.tid_text)) tname += " (tid " + JsonEscape(t.tid_text) + ")";
  return tname;
}

// Output processes and threads: the files of one stream (identity.h: smdebug
// rotates one over many files) join by their original pid; never across runs.
OutTracks NameTracks(const Job& job, Group group, const ThreadUse& use, TrackPlan* plan) {
  const size_t n = job.sources.size();
  OutTracks out;
  out.of.resize(n);
  plan->sources.resize(n);
  std::map<std::string, uint32_t> pid_of, thread_of;
  uint32_t next_pid = 1;
  for (uint32_t si = 0; si < n; si++) {
    const ParsedSource& s = job.sources[si];
    SourceTracks& st = plan->sources[si];
    st.pid.assign(s.procs.size(), 0);
    st.tids.assign(s.threads.size(), {});
    const std::string stream = s.identity.StreamKey();
    const std::string label = JsonEscape(s.identity.label);
    // A move by --align or to place a clockless source shows in its names.
    const int64_t moved = s.report.aligned_ns + s.report.placed_ns;
    const std::string suffix = !moved ? std::string()
                               : s.report.aligned_ns ? " (aligned " + Moved(moved) + ")"
                                                     : " (placed " + Moved(moved) + ")";
    std::map<std::string, int> names;
    for (const Proc& p : s.procs) names[p.name]++;
    out.of[si].assign(s.threads.size(), kNone);
    for (uint32_t ti = 0; ti < s.threads.size(); ti++) {
      if (!use.used[si][ti]) continue;
      const Thread& t = s.threads[ti];
      const Proc& p = s.procs[t.proc];
      const std::string pname = ProcessName(s, p, names);
      std::string pkey = group == Group::kSource ? stream + '\x1f' + p.pid_text : pname;
      auto [pit, new_pid] = pid_of.try_emplace(pkey, next_pid);
      if (new_pid) {
        std::string full = pname;
        if (group == Group::kSource) {
          full = label + " · " + pname;
          if (!p.name.empty() && !IsPlainId(p.pid_text)) full += " (pid " + JsonEscape(p.pid_text) + ")";
          full += suffix;
        }
        plan->process_names.push_back({next_pid++, full});
      }
      st.pid[t.proc] = pit->second;
      std::string tname = ThreadName(t);
      std::string tkey = pkey + '\x1f' + t.tid_text;
      if (group == Group::kPhase) {
        tname = label + " · " + tname;
        tkey += '\x1f' + stream;
      }
      auto [tit, new_thread] = thread_of.try_emplace(tkey, static_cast<uint32_t>(out.threads.size()));
      if (new_thread) out.threads.push_back({pit->second, t.tid_text, tname, 0, 0, 1, {}});
      out.of[si][ti] = tit->second;
    }
  }
  return out;
}

// Lanes: X slices of one output thread that overlap without nesting go to lane 1, 2, …
// The threads' slices in one list, each thread's together: counted per
// source thread (CountKept), then gathered a source at a time. (Their order within
// a thread does not matter: AssignLanes orders them by time and canon.)
void AssignThreadLanes(Job& job, const ThreadUse& use, OutTracks& out) {
  const size_t n = job.sources.size();
  std::vector<OutThread>& out_threads = out.threads;
  for (uint32_t si = 0; si < n; si++)
    for (uint32_t ti = 0; ti < use.count[si].size(); ti++)
      if (out.of[si][ti] != kNone) out_threads[out.of[si][ti]].slices += use.count[si][ti];
  size_t total = 0;
  for (OutThread& ot : out_threads) ot.slices_at = total, total += ot.slices;
  std::vector<size_t> fill(out_threads.size());
  for (size_t o = 0; o < out_threads.size(); o++) fill[o] = out_threads[o].slices_at;
  std::vector<std::vector<uint32_t>> at(n);  // [source][thread]: where its slices go in the list
  for (uint32_t si = 0; si < n; si++) {
    at[si].assign(use.count[si].size(), 0);
    for (uint32_t ti = 0; ti < use.count[si].size(); ti++)
      if (out.of[si][ti] != kNone) at[si][ti] = static_cast<uint32_t>(fill[out.of[si][ti]]), fill[out.of[si][ti]] += use.count[si][ti];
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
}

// A tid per lane of each output thread (its original for its first lane, when free), and their names.
void HandOutTids(Group group, OutTracks& out, TrackPlan* plan) {
  std::map<uint32_t, TidAllocator> tids;
  for (OutThread& ot : out.threads) {
    if (ot.capped)
      plan->warnings.push_back({Code::kNote, "", 0,
                                "thread \"" + ot.name + "\" has more than " + std::to_string(kMaxLanes) +
                                    " slices overlapping at once; those beyond share its last lane, where a viewer "
                                    "may stack them wrongly"});
    for (size_t l = 0; l < ot.lanes; l++) {
      const uint32_t tid = tids[ot.pid].Take(l == 0 && group == Group::kSource ? ot.tid_text : "");
      ot.tids.push_back(tid);
      plan->thread_names.push_back({ot.pid, tid, l == 0 ? ot.name : ot.name + " #" + std::to_string(l + 1)});
    }
  }
  for (uint32_t si = 0; si < out.of.size(); si++)
    for (uint32_t ti = 0; ti < out.of[si].size(); ti++)
      if (out.of[si][ti] != kNone) plan->sources[si].tids[ti] = out.threads[out.of[si][ti]].tids;
}

}  // namespace

// Which threads have kept events → their output processes and threads, named → lanes for
// their X slices → a tid per lane.
TrackPlan AssignTracks(Job& job, Group group) {
  const ThreadUse use = CountKept(job);
  TrackPlan plan;
  OutTracks out = NameTracks(job, group, use, &plan);
  AssignThreadLanes(job, use, out);
  HandOutTids(group, out, &plan);
  return plan;
}

}  // namespace tracemerge
