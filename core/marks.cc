// A source's step marks as its file gives them, before any other file is seen.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "parse.h"

namespace tracemerge {

// A step number far from the file's others (a stray "ProfilerStep#999999" among steps 0–5)
// is one event's word against the rest: it stays an event, but not a step the window, the
// waits or --align steps go by. Far: a gap of more than max(1000, 10 × the main run's span)
// from the run of steps holding most marks, for a number that marks one place only.
void DropStraySteps(ParsedSource& s) {
  std::map<int64_t, uint32_t> marks;  // step → marks
  for (auto [step, ev] : s.steps) marks[step]++;
  if (marks.size() < 4) return;
  // Runs of steps split at gaps over the bound, found from the run holding most marks.
  std::vector<std::vector<std::pair<int64_t, uint32_t>>> runs(1);
  for (auto it = marks.begin(); it != marks.end(); ++it) {
    if (!runs.back().empty() && it->first - runs.back().back().first > 1000) runs.emplace_back();
    runs.back().push_back(*it);
  }
  auto count = [](const auto& run) {
    uint64_t n = 0;
    for (auto [step, k] : run) n += k;
    return n;
  };
  const auto main = std::max_element(runs.begin(), runs.end(), [&](auto& a, auto& b) { return count(a) < count(b); });
  const int64_t far = std::max<int64_t>(1000, 10 * (main->back().first - main->front().first + 1));
  std::set<int64_t> stray;
  for (auto run = runs.begin(); run != runs.end(); ++run) {
    const int64_t gap = run < main ? main->front().first - run->back().first : run->front().first - main->back().first;
    if (run != main && run->size() == 1 && run->front().second == 1 && gap > far) stray.insert(run->front().first);
  }
  if (stray.empty()) return;
  std::string list;
  for (int64_t step : stray) list += (list.empty() ? "" : ", ") + std::to_string(step);
  s.steps.erase(std::remove_if(s.steps.begin(), s.steps.end(), [&](const auto& m) { return stray.count(m.first) > 0; }),
                s.steps.end());
  s.Warn(Code::kNote, 0,
         "step " + list + " marks one event far from this file's other steps (" + std::to_string(main->front().first) +
             "–" + std::to_string(main->back().first) + "): kept as an event, not as a step");
}

}  // namespace tracemerge
