// The merge, stage by stage: sources stream in (stream.h), are parsed as each
// one ends (parse.h) and laid out (layout.h) — on the caller's thread or a
// worker's —, and Merge() runs the stages after the last one (stages.h).
#include "merger.h"

#include <atomic>
#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>

#include "align.h"
#include "identity.h"
#include "layout.h"
#include "match.h"
#include "parse.h"
#include "worker_pool.h"
#include "stages.h"
#include "stream.h"
#include "summary.h"
#include "transfer.h"
#include "waits.h"

namespace tracemerge {

Result<Unit> ParseUnit(std::string_view s) {
  if (s == "time") return Unit::kTime;
  if (s == "step") return Unit::kStep;
  return Result<Unit>::Error(Code::kUsage, "unit must be 'time' or 'step', not '" + std::string(s) + "'");
}

Result<Group> ParseGroup(std::string_view s) {
  if (s == "source") return Group::kSource;
  if (s == "phase") return Group::kPhase;
  return Result<Group>::Error(Code::kUsage, "group must be 'source' or 'phase', not '" + std::string(s) + "'");
}

Result<Align> ParseAlign(std::string_view s) {
  if (s == "none") return Align::kNone;
  if (s == "clocks") return Align::kClocks;
  if (s == "steps") return Align::kSteps;
  return Result<Align>::Error(Code::kUsage, "align must be 'clocks', 'steps' or 'none', not '" + std::string(s) + "'");
}

const char* AlignName(Align a) { return a == Align::kClocks ? "clocks" : a == Align::kSteps ? "steps" : "none"; }

uint64_t GzipSizeHint(std::string_view head, std::string_view tail4, uint64_t file_size) {
  if (!LooksGzipped(head) || tail4.size() != 4) return file_size;
  uint64_t isize = 0;
  for (int i = 3; i >= 0; i--) isize = isize << 8 | static_cast<unsigned char>(tail4[i]);
  // Whoever wrote the file wrote its length field (and a cut file ends in
  // arbitrary bytes): no more than deflate can inflate so few bytes to.
  constexpr uint64_t kMaxDeflateRatio = 1032;
  return std::max(file_size, std::min(isize, file_size * kMaxDeflateRatio));
}

std::vector<uint32_t> FileOrder(const std::vector<std::string>& names) {
  std::vector<uint32_t> order(names.size());
  for (uint32_t i = 0; i < order.size(); i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
  return order;
}

Job JoinSources(std::deque<ParsedSource> parsed, int threads) {
  std::vector<uint32_t> arrived(parsed.size());  // (ties in the order the sources arrived)
  for (uint32_t i = 0; i < arrived.size(); i++) arrived[i] = i;
  std::stable_sort(arrived.begin(), arrived.end(), [&](uint32_t a, uint32_t b) { return parsed[a].arrival < parsed[b].arrival; });
  std::vector<std::string> paths;
  paths.reserve(parsed.size());
  for (uint32_t i : arrived) paths.push_back(parsed[i].path);
  Job job;
  job.threads = threads;
  job.sources.reserve(parsed.size());
  for (uint32_t i : FileOrder(paths)) job.sources.push_back(std::move(parsed[arrived[i]]));
  return job;
}

std::vector<Diagnostic> TakeWarnings(Job& job) {
  std::vector<Diagnostic> all;
  for (ParsedSource& s : job.sources) {
    for (Diagnostic& d : s.warnings) all.push_back(std::move(d));
    s.warnings.clear();
  }
  return all;
}

// Whether the merge stops here: a fatal error so far, or a cancel (CANCELLED, then).
static bool Stopped(const Ticker& ticker, Report* report) {
  if (ticker.cancelled()) report->fatal = Diagnostic{Code::kCancelled, "", 0, "merge cancelled"};
  return report->fatal.has_value();
}

// A source that ended, waiting for the worker: its bytes and where it goes.
struct ParseJob {
  SourceBytes in;
  ParsedSource* out = nullptr;
};

struct Merger::Impl {
  explicit Impl(Options o)
      : opt(std::move(o)), budget(opt.memory_budget, opt.store.get(), opt.big_input_bytes),
        gate(opt.big_input_bytes), ticker(&opt.progress), parsers(std::max(opt.threads, 1u)) {
    limits.kinds = opt.kinds;
    limits.max_depth = opt.max_depth;
    for (EventParser& p : parsers) {
      p.set_max_string(opt.max_string_bytes);
      p.set_max_depth(opt.max_depth);  // as the tokenizer's
    }
  }
  int Threads() const { return static_cast<int>(std::max(opt.threads, 1u)); }
  bool Pooled() const { return opt.threads > 1; }
  // Inflate, parse and lay out one source into *out (its place among the sources).
  void Ingest(SourceBytes in, ParsedSource* out, EventParser& p, Ticker* t) {
    const uint64_t given_bytes = in.bytes_given;
    if (t) t->Frame(parsed, given_bytes, given);
    in.Inflate();
    *out = ParseSource(in, limits, p, t);
    LayOut(*out, in.data, budget);
    parsed += given_bytes;
  }
  // "parse" progress, from the caller's thread, at any thread count: the input bytes of the
  // sources parsed, of those given so far.
  void SayParsed() { ticker.Say("parse", parsed, given); }
  // Once the last source has ended: every source parsed, the workers gone.
  void FinishParsing();
  // The sources as a scan's map leaves them (summary.h SummarizeSource), in their order.
  std::deque<ParsedSource> Summarized() {
    std::deque<ParsedSource> out;
    while (!sources.empty()) {
      for (ParsedSource& p : SummarizeSource(std::move(sources.front()))) out.push_back(std::move(p));
      sources.pop_front();
    }
    return out;
  }

  Options opt;
  ParseLimits limits;
  Budget budget;
  InputGate gate;  // one big input at a time (Options.big_input_bytes)
  Ticker ticker;  // progress and cancel, from the caller's thread only
  uint64_t given = 0;                // input bytes given (the caller's thread)
  std::atomic<uint64_t> parsed{0};   // input bytes of the sources parsed (any thread)
  std::vector<EventParser> parsers;  // one per thread: [0] the caller's, [1 + w] worker w's
  std::optional<SourceStream> open;  // the source between BeginSource and EndSource
  std::string nowhere;               // ChunkRoom() with no source open
  // Parsed sources, in arrival order (a deque: a new one does not move the
  // others, which the worker may be parsing into).
  std::deque<ParsedSource> sources;
  ParsedSource* exportable = nullptr;  // the last source, parsed here and not yet exported
  uint32_t next_arrival = 0;
  // Options.threads > 1: a source that ends goes to a free worker (or waits
  // for one, one at a time). Last: destroyed (its threads joined) before the rest.
  std::unique_ptr<WorkerPool<ParseJob>> workers;
};

Merger::Merger(Options options) : impl_(new Impl(std::move(options))) {
  if (impl_->Pooled())
    impl_->workers = std::make_unique<WorkerPool<ParseJob>>(
        impl_->opt.threads - 1, 1, [m = impl_.get()](ParseJob& job, unsigned worker) {
          m->Ingest(std::move(job.in), job.out, m->parsers[1 + worker], nullptr);
        });
}
Merger::~Merger() = default;

void Merger::BeginSource(std::string path, uint64_t size_hint, bool in_folder) {
  Impl& m = *impl_;
  m.open.emplace(std::move(path), m.next_arrival++, m.opt.max_inflated_bytes, m.Pooled(), m.budget.TakeSpare(),
                 size_hint);
  m.open->SetInFolder(in_folder);
  m.open->SetLimitWhy(m.opt.max_inflated_why);
  m.open->SetGate(&m.gate);
  // A file of records (an XSpace) too large to hold whole, or big enough to hold the gate, is
  // read as it comes, one record held at a time — here, on the caller's thread (EndSource).
  m.open->SetPieces(std::min(m.opt.big_input_bytes, m.opt.max_inflated_bytes / 2), [mp = &m](const SourceBytes& in) {
    return ReadInPieces(in, mp->limits, mp->parsers[0], mp->Pooled() ? nullptr : &mp->ticker, &mp->budget);
  });
  m.exportable = nullptr;
}

void Merger::AppendChunk(std::string_view bytes) {
  if (!impl_->open) return;
  impl_->open->Append(bytes);
  impl_->given += bytes.size();
}

char* Merger::ChunkRoom(size_t n) {
  if (impl_->open) return impl_->open->Room(n);
  impl_->nowhere.resize(n);  // (no source open: the bytes go nowhere, as AppendChunk's)
  return impl_->nowhere.data();
}

size_t Merger::ChunkSize(size_t max) const { return impl_->open ? impl_->open->ChunkSize(max) : max; }

void Merger::AppendRoom(size_t k) {
  if (!impl_->open) return;
  impl_->open->Appended(k);
  impl_->given += k;
}

void Merger::DropSource() { impl_->open.reset(); }

void Merger::EndSource() {
  Impl& m = *impl_;
  if (!m.open) return;
  ParseJob job{std::move(*m.open).End(), &m.sources.emplace_back()};
  m.open.reset();
  // On a worker while they keep up (one source may wait for them), else
  // here: every thread parses. (No progress from the workers'.) A big one is
  // parsed here: what holds the gate must never wait in the queue; so is one read in
  // pieces (it has this thread's parser).
  if (m.workers && !job.in.big() && !job.in.pieces && m.workers->TryPush(job)) return m.SayParsed();
  m.Ingest(std::move(job.in), job.out, m.parsers[0], m.Pooled() ? nullptr : &m.ticker);
  m.exportable = m.workers ? nullptr : job.out;
  m.SayParsed();
}

namespace {

// The stages between the last source parsed and the first byte written: their
// times (report.plan_seconds) and their progress ("plan", k of kStages).
class PlanLaps {
 public:
  static constexpr uint64_t kStages = 6;
  PlanLaps(Report* report, const Options& opt, Ticker& ticker) : report_(report), opt_(opt), ticker_(ticker) {}
  void Lap(const char* stage) {
    const auto now = std::chrono::steady_clock::now();
    report_->plan_seconds.emplace_back(stage, std::chrono::duration<double>(now - start_).count());
    start_ = now;
  }
  void Stage(uint64_t k) {
    if (opt_.progress && !ticker_.cancelled() && !opt_.progress(Progress{"plan", k, kStages})) ticker_.Cancel();
  }

 private:
  Report* report_;
  const Options& opt_;
  Ticker& ticker_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Who recorded what, their clocks, the clock check and the moves asked for, the
// waits: the job's warnings so far (the sources' and the job's own notes).
std::vector<Diagnostic> CheckJob(Job& job, const Options& opt, Report* report, PlanLaps& laps) {
  IdentifySources(job);
  for (ParsedSource& s : job.sources) s.report.identity = s.identity;  // in the scan's report too: the page groups by it
  if (Status clocks = ApplyClocks(job, opt.offsets_us); !clocks.ok()) report->fatal = clocks.error();
  laps.Lap("identity+clocks");
  laps.Stage(1);
  std::vector<Diagnostic> job_notes;
  CollectiveMatcher matcher(job);  // (the clock check and the waits name the same collectives)
  AlignSources(job, opt, matcher, report, &job_notes);
  laps.Lap("clock-check+align");
  laps.Stage(2);
  std::vector<int32_t> host_of;
  for (const ParsedSource& s : job.sources) host_of.push_back(s.report.clock_host);
  report->waits = CollectiveWaits(job, matcher, report->clock_hosts, host_of);
  laps.Lap("waits");
  std::vector<Diagnostic> warnings = TakeWarnings(job);
  for (Diagnostic& d : job_notes) warnings.push_back(std::move(d));
  return warnings;
}

// The job's span and steps, into the report.
void Describe(const JobShape& shape, Report* report) {
  report->job_start_ns = shape.start_ns;
  report->job_end_ns = shape.end_ns;
  report->steps = shape.steps;
  report->steps_from = shape.steps_from;
}

// The window the options ask of the job, into the report; false (report->fatal
// says why) when there is no such window.
bool ResolveInto(const Options& opt, const JobShape& shape, Report* report, Window* window) {
  Result<Window> resolved = ResolveWindow(opt, shape);
  *window = resolved.value();  // (the window so far, when it fails: the report shows it)
  if (!resolved.ok()) report->fatal = resolved.error();
  report->window_start_ns = window->start_ns;
  report->window_end_ns = window->end_ns;
  report->window_bounded = window->bounded;
  report->start_step = window->start_step;
  report->end_step = window->end_step;
  return resolved.ok();
}

// The window's events kept; false (report->fatal) when no input held any event.
bool KeepWindow(const Window& window, Job& job, Report* report) {
  ApplyWindow(window, job);
  for (const ParsedSource& s : job.sources)
    if (s.report.included && s.report.events_read > 0) return true;
  report->fatal = Diagnostic{Code::kNotATrace, "", 0, "nothing to merge: no input held trace events"};
  return false;
}

}  // namespace

void Merger::Impl::FinishParsing() {
  if (workers) {  // sources still waiting for a worker are parsed here meanwhile
    ParseJob job;
    while (workers->TakeBack(&job)) Ingest(std::move(job.in), job.out, parsers[0], nullptr);
  }
  workers.reset();  // once the last source is parsed
  SayParsed();
  budget.FreeSpare();
  exportable = nullptr;
}

Report Merger::Merge(const Sink& sink) {
  Impl& m = *impl_;
  Report report;
  PlanLaps laps(&report, m.opt, m.ticker);
  m.FinishParsing();
  if (m.opt.scan_only) m.sources = m.Summarized();
  else
    for (const ParsedSource& s : m.sources)
      if (s.thin.thinned) {
        report.fatal = Diagnostic{Code::kUsage, s.path, 0, "a scan's summary (--summarize) holds no events to merge: read it with --scan"};
        return report;
      }
  laps.Lap("tail");
  laps.Stage(0);
  Job job = JoinSources(std::move(m.sources), m.Threads());
  std::vector<Diagnostic> warnings = CheckJob(job, m.opt, &report, laps);
  const JobShape shape = DescribeJob(job);
  Describe(shape, &report);
  laps.Lap("describe");
  Window window;
  const bool ok = !Stopped(m.ticker, &report) && ResolveInto(m.opt, shape, &report, &window);
  auto described = [&] {  // the report without output
    for (const ParsedSource& s : job.sources) report.sources.push_back(s.report);
    report.warnings = std::move(warnings);
    return report;
  };
  if (ok && m.opt.scan_only) {  // the page asks first: what is in these files?
    report.scan_only = true;
    report.overview_json = OverviewJson(job, shape, 256);
    return described();
  }
  if (!ok || !KeepWindow(window, job, &report)) return described();

  laps.Stage(3);
  TrackPlan tracks = AssignTracks(job, m.opt.group);
  laps.Lap("window+tracks");
  laps.Stage(4);
  report.threads_out_of_lanes = static_cast<uint32_t>(tracks.warnings.size());
  for (Diagnostic& d : tracks.warnings) warnings.push_back(std::move(d));
  const OutputOrder order = OrderOutput(job, tracks);
  laps.Lap("order");
  laps.Stage(5);
  report.last_end_ns = order.last_end_ns;
  if (order.order.size() == 0)
    warnings.push_back({Code::kEmptyWindow, "", 0, "no event falls in the window; the output has no events"});
  report.warnings = std::move(warnings);
  laps.Stage(PlanLaps::kStages);  // (planned: the last word before the first byte)
  if (Stopped(m.ticker, &report)) return report;
  WriteOutput(job, tracks, order, m.opt, &report, sink);
  return report;
}

// ---- sources parsed elsewhere (transfer.h) ---------------------------------------------------

ByteBuffer Merger::ExportSource() {
  std::string tail;
  ByteBuffer bytes = ExportSource(&tail);
  if (!bytes.empty()) bytes.append(tail);
  return bytes;
}

ByteBuffer Merger::ExportSource(std::string* tail) {
  Impl& m = *impl_;
  tail->clear();
  if (!m.exportable || m.exportable != &m.sources.back() || m.exportable->stored) return {};
  m.budget.FreeSpare();  // (room for the templates' buffer to grow by the header)
  ByteBuffer bytes = SourceToBytes(std::move(m.sources.back()), tail);
  m.sources.pop_back();  // the source leaves this merger
  m.exportable = nullptr;
  return bytes;
}

uint32_t Merger::ReserveArrival() { return impl_->next_arrival++; }

std::string Merger::Summarize() {
  Impl& m = *impl_;
  m.FinishParsing();
  std::deque<ParsedSource> pieces = m.Summarized();
  return SummaryBytes({std::make_move_iterator(pieces.begin()), std::make_move_iterator(pieces.end())});
}

Status Merger::ImportSummary(std::string_view bytes, const std::string& name) {
  Impl& m = *impl_;
  Result<std::vector<ParsedSource>> pieces = ReadSummary(bytes, name);
  if (!pieces.ok()) return pieces.error();
  const uint32_t arrival = m.next_arrival++;  // (a file's pieces: in their order)
  for (ParsedSource& s : pieces.value()) {
    s.arrival = arrival;
    Admit(m.sources.emplace_back(std::move(s)), m.budget);
  }
  m.exportable = nullptr;
  return {};
}

void Merger::DoneReading() { impl_->budget.FreeSpare(); }

bool Merger::ImportSource(std::string_view bytes, uint32_t arrival) {
  ByteBuffer copy;
  copy.reserve(bytes.size() + kTemplateSlack);
  copy.append(bytes);
  return ImportSource(std::move(copy), arrival);
}

bool Merger::ImportSource(ByteBuffer bytes, uint32_t arrival) {
  Impl& m = *impl_;
  std::optional<ParsedSource> s = SourceFromBytes(std::move(bytes));
  if (!s) return false;
  s->arrival = arrival;
  m.next_arrival = std::max(m.next_arrival, arrival + 1);
  Admit(m.sources.emplace_back(std::move(*s)), m.budget);
  m.exportable = nullptr;
  return true;
}

}  // namespace tracemerge
