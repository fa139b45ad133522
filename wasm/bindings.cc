// Embind glue, deliberately thin: a Merger fed in chunks, output handed to JS
// as views that JS copies at once (the heap may grow later), results as JSON.
// No exceptions cross the boundary; errors are data in the result.
#include <emscripten/bind.h>
#include <emscripten/em_asm.h>
#include <emscripten/val.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "api_json.h"
#include "stages.h"
#include "merger.h"

using emscripten::val;
namespace tmg = tracemerge;

namespace {

// Without exceptions a failed allocation (operator new, ByteBuffer's realloc)
// aborts; first it tells the JS glue (the module's onOutOfMemory, set by
// loadCore), which then reports OUT_OF_MEMORY instead of a bare abort.
const bool kNewHandlerInstalled = [] {
  std::set_new_handler([] {
    EM_ASM({
      if (Module['onOutOfMemory']) Module['onOutOfMemory']();
    });
    std::abort();
  });
  return true;
}();

std::string Bytes(val u8) {
  std::string bytes(u8["length"].as<size_t>(), '\0');
  val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<void>("set", u8);
  return bytes;
}

// Templates beyond the heap budget go to JS (createStore() in tracemerge.mjs):
// put(key, view) copies the view; get(key, offset, length) returns the bytes.
// Both return false/null on failure, never throw.
class JsStore : public tmg::TemplateStore {
 public:
  explicit JsStore(val js) : js_(js) {}
  bool Put(uint32_t key, std::string_view b) override {
    const auto* p = reinterpret_cast<const uint8_t*>(b.data());
    return js_.call<bool>("put", key, val(emscripten::typed_memory_view(b.size(), p)));
  }
  bool Get(uint32_t key, uint64_t offset, uint64_t length, char* out) override {
    val bytes = js_.call<val>("get", key, static_cast<double>(offset), static_cast<double>(length));
    if (bytes.isNull() || bytes.isUndefined() || bytes["length"].as<double>() != static_cast<double>(length)) return false;
    val(emscripten::typed_memory_view(length, reinterpret_cast<uint8_t*>(out))).call<void>("set", bytes);
    return true;
  }

 private:
  val js_;
};

class JsMerger {
 public:
  // argv: the CLI's options as strings, e.g. ["--unit","step","--start","2"].
  // onProgress(stage, done, total) → false cancels; called while sources are
  // parsed (as each one ends) and while the output is written.
  // store: where templates beyond --memory-mb (default 512) go; undefined = nowhere.
  JsMerger(val argv, val on_progress, val store) : on_progress_(on_progress) {
    status_ = tmg::ParseArgs(emscripten::vecFromJSArray<std::string>(argv), &args_);
    if (args_.options.memory_budget == UINT64_MAX) args_.options.memory_budget = uint64_t{512} << 20;
    if (!args_.max_file_given) {  // one file's parse holds ~2.6× its inflated size, in a 4 GB heap
      args_.options.max_inflated_bytes = uint64_t{1} << 30;
      args_.options.max_inflated_why = " (what the 4 GB wasm heap parses in one file; --max-file-mb)";
    }
    args_.options.threads = 1;  // (wasm here has no threads: --threads N is N - 1 helper instances, in JS)
    if (!store.isUndefined() && !store.isNull()) args_.options.store = std::make_shared<JsStore>(store);
    args_.options.progress = [this](const tmg::Progress& p) {
      return on_progress_.isUndefined() ||
             on_progress_(std::string(p.stage), static_cast<double>(p.done), static_cast<double>(p.total))
                 .as<bool>();
    };
    merger_ = std::make_unique<tmg::Merger>(args_.options);
  }

  std::string error() const { return status_.ok() ? "" : status_.error().message; }
  // in_folder: found in a folder (a dropped one, a walked one), not named by itself.
  void beginSource(const std::string& path, double size_hint, bool in_folder) {
    merger_->BeginSource(path, static_cast<uint64_t>(size_hint), in_folder);
  }
  static double gzipSizeHint(val head, val tail4, double file_size) {
    return static_cast<double>(tmg::GzipSizeHint(Bytes(head), Bytes(tail4), static_cast<uint64_t>(file_size)));
  }
  // A view of this heap for the next chunk of the source — where the core
  // keeps it (a plain file's bytes go straight where they are parsed) — valid
  // until the next call into the module: JS copies a chunk into it, Node
  // reads files straight into it; then appendRoom(n) with how many came.
  val chunkRoom(double n) {
    const size_t size = static_cast<size_t>(n);
    return val(emscripten::typed_memory_view(size, reinterpret_cast<uint8_t*>(merger_->ChunkRoom(size))));
  }
  void appendRoom(double n) { merger_->AppendRoom(static_cast<size_t>(n)); }
  double chunkSize(double max) const { return static_cast<double>(merger_->ChunkSize(static_cast<size_t>(max))); }
  void endSource() { merger_->EndSource(); }

  // Sources parsed in a second instance (tracemerge-helper.mjs): there, the
  // last source as bytes — a view that JS copies at once; here, those bytes
  // at the place reserveArrival() kept for them.
  val exportSource() {  // [templates part, rest]: JS joins them (the templates' buffer does not grow)
    export_ = merger_->ExportSource(&export_tail_);
    val parts = val::array();
    parts.call<void>("push", val(emscripten::typed_memory_view(export_.size(), reinterpret_cast<const uint8_t*>(export_.data()))));
    parts.call<void>("push", val(emscripten::typed_memory_view(export_tail_.size(), reinterpret_cast<const uint8_t*>(export_tail_.data()))));
    return parts;
  }
  double reserveArrival() { return merger_->ReserveArrival(); }
  void doneReading() { merger_->DoneReading(); }
  bool importSource(val bytes, double arrival) {
    const size_t n = bytes["length"].as<size_t>();
    tmg::ByteBuffer b;
    b.reserve(n + 16);  // (the templates' slack: they stay in this buffer)
    val(emscripten::typed_memory_view(n, reinterpret_cast<uint8_t*>(b.Extend(n)))).call<void>("set", bytes);
    return merger_->ImportSource(std::move(b), static_cast<uint32_t>(arrival));
  }

  // onChunk(Uint8Array view) must copy the view before returning.
  std::string merge(val on_chunk) {
    tmg::Report report = merger_->Merge([&](std::string_view c) {
      on_chunk(val(emscripten::typed_memory_view(c.size(), reinterpret_cast<const uint8_t*>(c.data()))));
    });
    report_json_ = report.ToJson();
    return tmg::ResultJson(report, args_.options);
  }
  // The last merge's report as the core writes it (the CLIs' --report file).
  std::string reportJson() const { return report_json_; }

 private:
  tmg::Args args_;
  tmg::Status status_;
  std::unique_ptr<tmg::Merger> merger_;
  tmg::ByteBuffer export_;
  std::string export_tail_;
  std::string report_json_;
  val on_progress_;
};

std::string ClassifyJson(const std::string& path, val head) { return tmg::ClassifyJson(path, Bytes(head)); }

std::vector<std::string> Strings(val array) { return emscripten::vecFromJSArray<std::string>(array); }

std::string ParseArgsJson(val argv) {
  tmg::Args args;
  tmg::Status s = tmg::ParseArgs(Strings(argv), &args);
  return tmg::ArgsJson(args, s);
}

// The CLI driver (core/driver.h) for tracemerge-cli.mjs. target: 0 missing,
// 1 regular file, 2 folder, 3 other (a device, a pipe).
std::string CliStartJson(val argv) { return tmg::CliStartJson(Strings(argv)); }
std::string NameFolderJson(const std::string& root, val relative) {
  return tmg::NameFolderJson(root, Strings(relative));
}
std::string NameFileJs(const std::string& arg) { return tmg::NameFile(arg); }
std::string FileOrderJson(val names) {
  std::string s = "[";
  for (uint32_t i : tmg::FileOrder(Strings(names))) s += (s.size() > 1 ? "," : "") + std::to_string(i);
  return s + "]";
}
std::string PlanOutputJson(val argv, bool first_is_dir, int target, double pid) {
  return tmg::PlanOutputJson(Strings(argv), first_is_dir, static_cast<tmg::TargetKind>(target), static_cast<long>(pid));
}
std::string FinalNameJs(val argv, bool first_is_dir, int target, double pid, const std::string& default_name) {
  return tmg::FinalNameJs(Strings(argv), first_is_dir, static_cast<tmg::TargetKind>(target), static_cast<long>(pid),
                          default_name);
}
std::string FinishJson(val argv, bool fatal, const std::string& summary, bool write_failed, bool first_is_dir,
                       int target, double pid, const std::string& final_name) {
  return tmg::FinishJson(Strings(argv), fatal, summary, write_failed, first_is_dir,
                         static_cast<tmg::TargetKind>(target), static_cast<long>(pid), final_name);
}
std::string CliErrorJs(const std::string& message) { return tmg::CliError(message); }
std::string CliSameFileJs(const std::string& again, const std::string& first) { return tmg::CliSameFile(again, first); }

// The page's rules, from the core: the window preview, offsets' path match, the kinds, the codes.
std::string WindowPreviewJs(val argv, val steps) { return tmg::WindowPreviewJson(Strings(argv), Strings(steps)); }
bool PathMatchesJs(const std::string& path, const std::string& pattern) { return tmg::PathMatches(path, pattern); }
std::string KindTableJs() { return tmg::KindTableJson(); }
std::string CodeTableJs() { return tmg::CodeTableJson(); }
// An offset's µs as the core reads them (--offset PATH=US), as text; null if it is not one.
val OffsetUsJs(const std::string& text) {
  int64_t us = 0;
  return tmg::ParseOffsetUs(text, &us) ? val(std::to_string(us)) : val::null();
}

// Every error code's name, in the order of core/status.h (for tracemerge.d.ts's test).
val ErrorCodes() {
  val names = val::array();
  for (int c = 0; c <= static_cast<int>(tmg::Code::kLast); c++)
    names.call<void>("push", std::string(tmg::CodeName(static_cast<tmg::Code>(c))));
  return names;
}

}  // namespace

EMSCRIPTEN_BINDINGS(tracemerge) {
  emscripten::class_<JsMerger>("Merger")
      .constructor<val, val, val>()
      .function("error", &JsMerger::error)
      .function("beginSource", &JsMerger::beginSource)
      .function("chunkRoom", &JsMerger::chunkRoom)
      .function("appendRoom", &JsMerger::appendRoom)
      .function("chunkSize", &JsMerger::chunkSize)
      .function("endSource", &JsMerger::endSource)
      .function("exportSource", &JsMerger::exportSource)
      .function("reserveArrival", &JsMerger::reserveArrival)
      .function("doneReading", &JsMerger::doneReading)
      .function("importSource", &JsMerger::importSource)
      .function("merge", &JsMerger::merge)
      .function("reportJson", &JsMerger::reportJson);
  emscripten::function("parseArgs", &ParseArgsJson);
  emscripten::function("cliStart", &CliStartJson);
  emscripten::function("nameFolder", &NameFolderJson);
  emscripten::function("nameFile", &NameFileJs);
  emscripten::function("fileOrder", &FileOrderJson);
  emscripten::function("optionTable", &tmg::OptionTableJson);
  emscripten::function("planOutput", &PlanOutputJson);
  emscripten::function("finalName", &FinalNameJs);
  emscripten::function("finishCli", &FinishJson);
  emscripten::function("cliError", &CliErrorJs);
  emscripten::function("cliSameFile", &CliSameFileJs);
  emscripten::function("errorCodes", &ErrorCodes);
  emscripten::function("windowPreview", &WindowPreviewJs);
  emscripten::function("pathMatches", &PathMatchesJs);
  emscripten::function("kindTable", &KindTableJs);
  emscripten::function("codeTable", &CodeTableJs);
  emscripten::function("offsetUs", &OffsetUsJs);
  emscripten::function("classify", &ClassifyJson);
  emscripten::function("gzipSizeHint", &JsMerger::gzipSizeHint);
  emscripten::constant("version", std::string(tmg::kVersion));
}
