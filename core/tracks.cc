// Tracks: output pids and tids (positive, below 2^31, named after their source),
// and lanes for X slices that overlap without nesting.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "merger_internal.h"
#include "numbers.h"

namespace tracemerge {

// ---- tracks ----------------------------------------------------------------

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

}  // namespace

void Merger::Impl::AssignTracks(
    std::vector<std::pair<uint32_t, std::string>>* process_names,
    std::vector<std::tuple<uint32_t, uint32_t, std::string>>* thread_names) {
  ForEach(sources.size(), Two(), [&](size_t i) {
    Source& s = sources[i];
    for (uint64_t k = s.first_event; k < s.first_event + s.event_count; k++) {
      const Event& e = events[k];
      if (!e.keep || e.ph == 'M') continue;
      s.threads[e.thread].used = true;
      s.procs[s.threads[e.thread].proc].used = true;
    }
  });
  // Output processes and threads. smdebug rotates one stream over many files,
  // so those join by (kind, node, pid); any other file is a source of its own.
  struct OutThread {
    uint32_t pid;
    std::string tid_text, name;
    std::vector<uint32_t> events;  // kept X events, for lanes
    uint8_t lanes = 1;
    std::vector<uint32_t> tids;
  };
  std::vector<OutThread> out_threads;
  std::map<std::string, uint32_t> pid_of, thread_of;
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<std::vector<uint32_t>> out_thread(sources.size());  // [source][thread] → out thread
  uint32_t next_pid = 1;
  for (uint32_t si = 0; si < sources.size(); si++) {
    Source& s = sources[si];
    const bool joins = s.cls.kind != Kind::kOther;
    const std::string stream = joins ? std::string(KindName(s.cls.kind)) + '\x1f' + s.cls.node
                                     : "file\x1f" + std::to_string(si);
    const std::string label = JsonEscape(s.cls.node) + " · " + KindName(s.cls.kind);
    out_thread[si].assign(s.threads.size(), kNone);
    for (uint32_t ti = 0; ti < s.threads.size(); ti++) {
      Thread& t = s.threads[ti];
      if (!t.used) continue;
      Proc& p = s.procs[t.proc];
      std::string pname = !p.name.empty() ? p.name : "pid " + JsonEscape(p.pid_text.empty() ? "-" : p.pid_text);
      if (s.cls.kind == Kind::kSystem) pname = "metrics";
      std::string pkey = opt.group == Group::kSource ? stream + '\x1f' + p.pid_text : pname;
      auto [pit, new_pid] = pid_of.try_emplace(pkey, next_pid);
      if (new_pid) {
        std::string full = pname;
        if (opt.group == Group::kSource) {
          full = label + " · " + pname;
          if (!p.name.empty() && !IsPlainId(p.pid_text)) full += " (pid " + JsonEscape(p.pid_text) + ")";
        }
        process_names->push_back({next_pid++, full});
      }
      p.out_pid = pit->second;
      std::string tname = !t.name.empty() ? t.name
                          : t.tid_text.empty() ? std::string("main")
                                               : "tid " + JsonEscape(t.tid_text);
      if (!t.name.empty() && !t.tid_text.empty() && !IsPlainId(t.tid_text))
        tname += " (tid " + JsonEscape(t.tid_text) + ")";
      std::string tkey = pkey + '\x1f' + t.tid_text;
      if (opt.group == Group::kPhase) {
        tname = label + " · " + tname;
        tkey += '\x1f' + stream;
      }
      auto [tit, new_thread] = thread_of.try_emplace(tkey, static_cast<uint32_t>(out_threads.size()));
      if (new_thread) out_threads.push_back({p.out_pid, t.tid_text, tname, {}, 1, {}});
      out_thread[si][ti] = tit->second;
    }
  }

  // Lanes: X slices of one thread that overlap without nesting go to lane 1, 2, …
  for (uint32_t i = 0; i < events.size(); i++)
    if (events[i].keep && events[i].ph == 'X')
      out_threads[out_thread[events[i].source][events[i].thread]].events.push_back(i);
  struct Slice {  // sorted by start, longest first, then input order
    int64_t ts, neg_dur;
    uint64_t canon;
    uint32_t index;
    bool operator<(const Slice& o) const { return std::tie(ts, neg_dur, canon) < std::tie(o.ts, o.neg_dur, o.canon); }
  };
  ForEach(out_threads.size(), Two(), [&](size_t o) {
    OutThread& ot = out_threads[o];
    std::vector<Slice> slices;
    for (uint32_t i : ot.events) slices.push_back({events[i].ts, -events[i].dur, Canon(i), i});
    std::vector<uint32_t>().swap(ot.events);
    // Mostly in time order already (sources are put in order as they are
    // parsed): then only slices that start together need sorting.
    const bool by_start = std::is_sorted(slices.begin(), slices.end(), [](auto& a, auto& b) { return a.ts < b.ts; });
    if (!by_start) std::sort(slices.begin(), slices.end());
    else
      for (auto it = slices.begin(); it != slices.end();) {
        auto next = std::find_if(it, slices.end(), [&](const Slice& sl) { return sl.ts != it->ts; });
        if (next - it > 1) std::sort(it, next);
        it = next;
      }
    std::vector<std::vector<int64_t>> lanes;  // per lane: stack of open slice ends
    for (const Slice& sl : slices) {
      Event& e = events[sl.index];
      const int64_t end = e.ts + e.dur;
      size_t l = 0;
      for (;; l++) {
        if (l == lanes.size()) lanes.emplace_back();
        auto& st = lanes[l];
        while (!st.empty() && st.back() <= e.ts) st.pop_back();
        if (st.empty() || end <= st.back()) {
          st.push_back(end);
          break;
        }
        if (l == 254) break;  // give up splitting further; viewers still get every slice
      }
      e.lane = static_cast<uint8_t>(l);
    }
    ot.lanes = static_cast<uint8_t>(std::max<size_t>(lanes.size(), 1));
  });

  std::map<uint32_t, TidAllocator> tids;
  for (OutThread& ot : out_threads) {
    for (uint8_t l = 0; l < ot.lanes; l++) {
      uint32_t tid = tids[ot.pid].Take(l == 0 && opt.group == Group::kSource ? ot.tid_text : "");
      ot.tids.push_back(tid);
      thread_names->push_back({ot.pid, tid, l == 0 ? ot.name : ot.name + " #" + std::to_string(l + 1)});
    }
  }
  for (uint32_t si = 0; si < sources.size(); si++)
    for (uint32_t ti = 0; ti < out_thread[si].size(); ti++)
      if (out_thread[si][ti] != kNone) sources[si].threads[ti].lane_tids = out_threads[out_thread[si][ti]].tids;
}


}  // namespace tracemerge
