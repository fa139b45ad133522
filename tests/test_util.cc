#include "test_util.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "simdjson.h"

namespace fs = std::filesystem;

namespace tracemerge::test {

void ScratchDirTest::SetUp() {
  dir_ = std::filesystem::temp_directory_path() /
         ("tracemerge_" + std::to_string(::getpid()) + "_" +
          ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "_" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
}

void ScratchDirTest::TearDown() { std::filesystem::remove_all(dir_); }

std::string ScratchDirTest::Write(const std::string& rel, const std::string& text) {
  const std::filesystem::path path = dir_ / rel;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

std::string GeneratorTest::Generate(const std::string& name, const std::string& args, const std::string& script) {
  const std::string out = (dir_ / name).string();
  const std::string cmd = "python3 " TRACEMERGE_SOURCE_DIR "/tests/bench/" + script + " " + out + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return out;
}

std::string Corpus(const std::string& rel) { return std::string(TRACEMERGE_CORPUS) + "/" + rel; }

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string Inflate(const std::string& gz) {
  z_stream z{};
  inflateInit2(&z, 15 + 32);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[65536];
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (rc == Z_STREAM_END && z.avail_in > 0) inflateReset(&z), rc = Z_OK;
  } while (rc == Z_OK);
  inflateEnd(&z);
  return out;
}

std::string Gzip(const std::string& text) {
  std::string out;
  GzipWriter w([&](std::string_view b) { out.append(b); });
  w.Write(text);
  w.Finish();
  return out;
}

std::vector<Input> ReadTree(const std::string& dir) {
  std::vector<Input> out;
  std::string label = fs::path(dir).filename().string();
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    out.push_back({label + "/" + fs::relative(e.path(), dir).generic_string(), ReadFile(e.path().string()), true});
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

MergeResult MergeInputs(const std::vector<Input>& inputs, const Options& options, size_t chunk) {
  Merger m(options);
  for (const Input& in : inputs) {
    m.BeginSource(in.name, 0, in.in_folder);
    size_t step = chunk ? chunk : std::max<size_t>(in.bytes.size(), 1);
    for (size_t i = 0; i < in.bytes.size(); i += step) m.AppendChunk(std::string_view(in.bytes).substr(i, step));
    m.EndSource();
  }
  MergeResult r;
  r.report = m.Merge([&](std::string_view c) { r.output.append(c); });
  return r;
}

::testing::AssertionResult SameText(const std::string& actual, const std::string& expected) {
  if (actual == expected) return ::testing::AssertionSuccess();
  size_t i = 0;
  while (i < actual.size() && i < expected.size() && actual[i] == expected[i]) i++;
  size_t from = i > 80 ? i - 80 : 0;
  return ::testing::AssertionFailure() << "first difference at byte " << i << " (sizes " << actual.size() << " vs "
                                       << expected.size() << ")\n actual: …" << actual.substr(from, 160)
                                       << "\n expected: …" << expected.substr(from, 160);
}

std::vector<OutEvent> ParseOutput(const std::string& json, std::string* error) {
  std::vector<OutEvent> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto e = parser.parse(json).get(doc)) {
    *error = simdjson::error_message(e);
    return out;
  }
  simdjson::dom::array events;
  if (auto e = doc["traceEvents"].get_array().get(events)) {
    *error = "no traceEvents array";
    return out;
  }
  for (simdjson::dom::element ev : events) {
    OutEvent o;
    std::string_view sv;
    if (!ev["ph"].get_string().get(sv)) o.ph = std::string(sv);
    if (!ev["name"].get_string().get(sv)) o.name = std::string(sv);
    double d;
    if (!ev["ts"].get_double().get(d)) o.ts = d;
    if (!ev["dur"].get_double().get(d)) o.dur = d;
    int64_t i;
    if (!ev["pid"].get_int64().get(i)) o.pid = i;
    if (!ev["tid"].get_int64().get(i)) {
      o.tid = i;
      o.has_tid = true;
    }
    if (!ev["args"]["name"].get_string().get(sv)) o.arg_name = std::string(sv);
    out.push_back(o);
  }
  return out;
}

std::vector<OutEvent> Events(const MergeResult& r) {
  std::string err;
  auto ev = ParseOutput(r.output, &err);
  EXPECT_EQ(err, "") << r.output;
  return ev;
}

std::vector<OutEvent> NonMeta(const MergeResult& r) {
  std::vector<OutEvent> out;
  for (auto& e : Events(r))
    if (e.ph != "M") out.push_back(e);
  return out;
}

std::set<std::string> Names(const std::vector<OutEvent>& ev) {
  std::set<std::string> s;
  for (auto& e : ev) s.insert(e.name);
  return s;
}

bool HasWarning(const Report& r, Code code, const std::string& file) {
  for (auto& w : r.warnings)
    if (w.code == code && (file.empty() || w.file == file)) return true;
  return false;
}

const char kHeader[] =
    R"({"name":"process_name","ph":"M","pid":0,"args":{"start_time_since_epoch_in_micros":1000000}},)";

}  // namespace tracemerge::test
