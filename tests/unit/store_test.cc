// Events that leave memory (Options.memory_budget + store) come back byte for
// byte: the output is the same whether templates stay in memory, all go to
// the store, or only some do; a failing store is an error, never a crash.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "store.h"
#include "test_util.h"

namespace tracemerge::test {
namespace {

// Wraps a FileStore, counting calls and failing on request.
class CountingStore : public TemplateStore {
 public:
  CountingStore() : file_(std::make_unique<FileStore>()) {}
  bool Put(uint32_t key, std::string_view bytes) override {
    puts++;
    return !fail_put && file_->Put(key, bytes);
  }
  bool Get(uint32_t key, uint64_t offset, uint64_t length, char* out) override {
    return ++gets != fail_get_at && file_->Get(key, offset, length, out);
  }
  int puts = 0, gets = 0, fail_get_at = -1;
  bool fail_put = false;

 private:
  std::unique_ptr<FileStore> file_;
};

Options Budget(uint64_t bytes, std::shared_ptr<TemplateStore> store) {
  Options o;
  o.memory_budget = bytes;
  o.store = std::move(store);
  return o;
}

TEST(Store, FileStoreReadsAcrossPieces) {
  auto fs = std::make_unique<FileStore>();
  ASSERT_TRUE(fs->Put(1, "hello "));
  ASSERT_TRUE(fs->Put(0, "other"));
  ASSERT_TRUE(fs->Put(1, "world"));
  char buf[16] = {};
  ASSERT_TRUE(fs->Get(1, 3, 6, buf));
  EXPECT_EQ(std::string(buf, 6), "lo wor");
  ASSERT_TRUE(fs->Get(0, 0, 5, buf));
  EXPECT_EQ(std::string(buf, 5), "other");
  EXPECT_FALSE(fs->Get(1, 8, 4, buf));  // past the end of key 1
  EXPECT_FALSE(fs->Get(7, 0, 1, buf));  // unknown key
}

TEST(Store, StoredOutputIsIdenticalOnTheRealCorpusAndSmdebugJobs) {
  for (const char* dir : {"real", "smdebug"}) {
    auto inputs = ReadTree(Corpus(dir));
    ASSERT_FALSE(inputs.empty());
    MergeResult memory = MergeInputs(inputs, {});
    ASSERT_FALSE(memory.report.fatal);
    for (uint64_t budget : {uint64_t{0}, uint64_t{200000}}) {  // all stored; the first files in memory
      auto store = std::make_shared<CountingStore>();
      MergeResult stored = MergeInputs(inputs, Budget(budget, store));
      EXPECT_GT(store->puts, 0) << dir;
      EXPECT_GT(store->gets, 0) << dir;
      EXPECT_TRUE(SameText(stored.output, memory.output)) << dir << " budget " << budget;
    }
  }
}

TEST(Store, UnsortedSourceIsReadBackInFewWindows) {
  // 20000 events in reverse time order: stored in time order, so the writer
  // reads the store forward in ~256 KB windows, not once per event.
  std::string trace = "[";
  for (int i = 20000; i > 0; i--)
    trace += std::string(i < 20000 ? "," : "") + "{\"ph\":\"X\",\"name\":\"n\",\"ts\":" + std::to_string(i) +
             ",\"dur\":1,\"pid\":1,\"tid\":1}";
  trace += "]";
  auto store = std::make_shared<CountingStore>();
  MergeResult stored = MergeInputs({{"t.json", trace}}, Budget(0, store));
  MergeResult memory = MergeInputs({{"t.json", trace}}, {});
  EXPECT_TRUE(SameText(stored.output, memory.output));
  EXPECT_EQ(stored.report.events_written, 20000u);
  EXPECT_LE(store->gets, 10);
}

TEST(Store, OutOfOrderSourcesPutInTimeOrderInMemoryMergeAsInFileOrder) {
  // In memory, a source without begin/end pairs is put in time order as it is
  // parsed; stored, it stays in file order. Ties, lanes, steps and windows
  // must come out the same either way.
  std::mt19937 rng(9);
  std::string trace = R"([{"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}},)";
  for (int i = 0; i < 3000; i++) {
    const int ts = static_cast<int>(rng() % 500);
    trace += "{\"ph\":\"X\",\"name\":\"" + (i % 97 == 0 ? "ProfilerStep#" + std::to_string(ts / 100) : "e" + std::to_string(i)) +
             "\",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(rng() % 40) + ",\"pid\":1,\"tid\":" +
             std::to_string(rng() % 3) + ",\"args\":{\"i\":" + std::to_string(i) + "}},";
  }
  trace += R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"t"}}])";
  for (bool step_window : {false, true}) {
    Options memory_options, stored_options = Budget(0, std::make_shared<CountingStore>());
    for (Options* o : {&memory_options, &stored_options}) {
      if (!step_window) continue;
      o->unit = Unit::kStep;
      o->start = 2;
      o->end = 3;
    }
    MergeResult memory = MergeInputs({{"t.json", trace}}, memory_options);
    MergeResult stored = MergeInputs({{"t.json", trace}}, stored_options);
    ASSERT_FALSE(memory.report.fatal);
    EXPECT_GE(memory.report.events_written, step_window ? 100u : 3000u);
    EXPECT_TRUE(SameText(stored.output, memory.output)) << "step window " << step_window;
  }
}

TEST(Background, ParsingAndWritingOnMoreThreadsChangeNothing) {
  // The real corpus and the smdebug jobs, in small chunks (the caller reads
  // while the workers parse) and whole (the caller, faster, parses some
  // sources itself), in memory without a store, with one that takes nothing (the CLI's case:
  // the slices are still written on every thread) and with every template stored, on 2, 3
  // and 8 threads.
  for (const char* dir : {"real", "smdebug"}) {
    auto inputs = ReadTree(Corpus(dir));
    MergeResult serial = MergeInputs(inputs, {}, 4096);
    for (unsigned threads : {2u, 3u, 8u}) {
      for (size_t chunk : {size_t{4096}, size_t{0}}) {
        for (std::string_view store : {"none", "unused", "all"}) {
          auto counting = std::make_shared<CountingStore>();
          Options o = store == "none" ? Options() : Budget(store == "unused" ? UINT64_MAX : 0, counting);
          o.threads = threads;  // (while templates are stored, the caller writes alone)
          MergeResult pooled = MergeInputs(inputs, o, chunk);
          EXPECT_TRUE(SameText(pooled.output, serial.output)) << dir << " store " << store << " " << chunk << " on " << threads;
          EXPECT_EQ(pooled.report.Summary(), serial.report.Summary()) << dir;
          EXPECT_EQ(counting->puts == 0, store != "all") << dir << " store " << store;
        }
      }
    }
  }
  Options o;  // a merger dropped before Merge() stops its threads
  o.threads = 3;
  Merger m(o);
  m.AddSource("a.json", R"([{"ph":"X","name":"a","ts":1,"dur":1}])");
}

TEST(Background, WritingInSlicesOnManyThreadsEqualsWritingInOne) {
  // Enough events for many slices of the real size, from sources that
  // interleave in time with many equal times (ties go by path across slice
  // edges), out of order, with B/E pairs, lanes, ids and metadata; gzipped
  // output too, and progress that cancels part way.
  std::mt19937 rng(11);
  std::vector<Input> inputs;
  for (int f = 0; f < 5; f++) {
    std::string t = "[" + std::string(R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}})");
    for (int i = 0; i < 30000; i++) {
      const int ts = f == 4 ? 100 : static_cast<int>(rng() % 20000) / 3;  // one source all at one time
      const char* ph = i % 7 == 0 ? "B" : i % 7 == 1 ? "E" : "X";
      t += ",{\"ph\":\"" + std::string(ph) + "\",\"name\":\"e" + std::to_string(i) + "\",\"ts\":" +
           std::to_string(ts) + ",\"dur\":" + std::to_string(rng() % 50) + ",\"pid\":1,\"tid\":" +
           std::to_string(rng() % 3) + (i % 11 == 0 ? ",\"id\":\"0x" + std::to_string(i % 97) + "\"" : "") + "}";
    }
    inputs.push_back({"job/rank-" + std::to_string(f) + ".json", t + "]"});
  }
  for (bool gzip : {false, true}) {
    Options serial_opt;
    serial_opt.gzip = gzip;
    MergeResult serial = MergeInputs(inputs, serial_opt);
    ASSERT_FALSE(serial.report.fatal);
    EXPECT_EQ(serial.report.events_written, 150000u);
    for (unsigned threads : {2u, 3u, 8u}) {
      for (bool store : {false, true}) {  // (a store that takes nothing, as the CLI always has one)
        Options many = serial_opt;
        many.threads = threads;
        if (store) many.store = std::make_shared<CountingStore>();
        MergeResult pooled = MergeInputs(inputs, many);
        EXPECT_TRUE(pooled.output == serial.output) << "gzip " << gzip << " on " << threads << " store " << store;
        EXPECT_EQ(pooled.report.ToJson(), serial.report.ToJson());
      }
    }
  }
  for (uint64_t stop_after : {uint64_t{0}, uint64_t{40000}, uint64_t{100000}}) {
    Options o;
    o.threads = 3;
    uint64_t last = 0;
    o.progress = [&](const Progress& p) {
      if (std::string(p.stage) != "write") return true;
      EXPECT_GE(p.done, last);
      last = p.done;
      return p.done <= stop_after;
    };
    MergeResult r = MergeInputs(inputs, o);
    ASSERT_TRUE(r.report.fatal);
    EXPECT_EQ(r.report.fatal->code, Code::kCancelled);
    EXPECT_LT(r.report.events_written, 150000u);
  }
}

TEST(Background, DamagedGzipIsReportedAsInSerial) {
  // In the background mode a gzip source is inflated when it ends, by the
  // thread that parses it: truncated, corrupt and over-the-limit streams must
  // keep the same prefix and give the same diagnostics as streaming inflate.
  std::string events = "[";
  for (int i = 0; i < 4000; i++)
    events += (i ? "," : "") + std::string(R"({"ph":"X","name":"e)") + std::to_string(i) + R"(","ts":)" +
              std::to_string(i * 10) + R"(,"dur":5,"pid":1,"tid":1})";
  events += "]";
  const std::string gz = Gzip(events);
  std::string corrupt = gz;
  for (size_t i = gz.size() / 2; i < gz.size() / 2 + 40; i++) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  const std::vector<Input> inputs = {{"job/a.json.gz", gz},
                                     {"job/b.json.gz", gz.substr(0, gz.size() / 2)},
                                     {"job/c.json.gz", corrupt},
                                     {"job/d.json", events}};
  for (uint64_t limit : {uint64_t{1} << 30, uint64_t{100000}}) {
    Options serial_opt;
    serial_opt.max_inflated_bytes = limit;
    Options background_opt = serial_opt;
    background_opt.threads = 3;
    for (size_t chunk : {size_t{0}, size_t{1000}}) {
      MergeResult serial = MergeInputs(inputs, serial_opt, chunk);
      MergeResult background = MergeInputs(inputs, background_opt, chunk);
      EXPECT_TRUE(SameText(background.output, serial.output)) << limit << " " << chunk;
      EXPECT_EQ(background.report.Summary(), serial.report.Summary());
      EXPECT_EQ(background.report.ToJson(), serial.report.ToJson());
      std::set<Code> codes;
      for (const Diagnostic& d : serial.report.warnings) codes.insert(d.code);
      EXPECT_TRUE(codes.count(Code::kTruncated)) << serial.report.Summary();
      if (limit < events.size()) EXPECT_TRUE(codes.count(Code::kTooLarge)) << serial.report.Summary();
    }
  }
}

TEST(Store, FailedPutKeepsEventsInMemoryWithAWarning) {
  auto inputs = ReadTree(Corpus("smdebug"));
  auto store = std::make_shared<CountingStore>();
  store->fail_put = true;
  MergeResult r = MergeInputs(inputs, Budget(0, store));
  ASSERT_FALSE(r.report.fatal);
  // The events are the same; the report embedded after them has the warning.
  auto events = [](const std::string& out) { return out.substr(0, out.find("\n],\n\"displayTimeUnit\"")); };
  EXPECT_TRUE(SameText(events(r.output), events(MergeInputs(inputs, {}).output)));
  bool warned = false;
  for (const Diagnostic& d : r.report.warnings) warned |= d.code == Code::kIo;
  EXPECT_TRUE(warned);
}

TEST(Store, FailedGetIsAnIoErrorNamingTheFile) {
  auto inputs = ReadTree(Corpus("smdebug"));
  auto store = std::make_shared<CountingStore>();
  store->fail_get_at = 3;
  MergeResult r = MergeInputs(inputs, Budget(0, store));
  ASSERT_TRUE(r.report.fatal);
  EXPECT_EQ(r.report.fatal->code, Code::kIo);
  EXPECT_FALSE(r.report.fatal->file.empty());
}

}  // namespace
}  // namespace tracemerge::test
