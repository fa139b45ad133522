#include "gzip.h"

#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace tracemerge {
using test::Gzip;
namespace {

std::string Sample() {
  std::string s;
  for (int i = 0; i < 20000; i++) s += "{\"ph\":\"X\",\"ts\":" + std::to_string(i) + "},";
  return s;
}

}  // namespace

TEST(Gzip, RoundTripInAnyChunkSize) {
  const std::string text = Sample();
  const std::string gz = Gzip(text);
  ASSERT_TRUE(LooksGzipped(gz));
  for (size_t chunk : {size_t{1}, size_t{2}, size_t{7}, size_t{4096}, gz.size()}) {
    Inflater inf(1 << 30);
    ByteBuffer out;
    for (size_t i = 0; i < gz.size(); i += chunk) inf.Feed(std::string_view(gz).substr(i, chunk), out);
    const Status finished = inf.Finish();
    const Diagnostic& d = finished.error();
    EXPECT_TRUE(finished.ok()) << "chunk " << chunk << ": " << d.message;
    EXPECT_EQ(out.view(), text) << "chunk " << chunk;
  }
}

TEST(Gzip, ConcatenatedMembers) {
  const std::string gz = Gzip("abc") + Gzip("def");
  Inflater inf(1 << 20);
  ByteBuffer out;
  inf.Feed(gz, out);
  const Status finished = inf.Finish();
  const Diagnostic& d = finished.error();
  EXPECT_TRUE(finished.ok());
  EXPECT_EQ(out.view(), "abcdef");
}

TEST(Gzip, TruncatedStreamKeepsThePrefix) {
  const std::string text = Sample();
  const std::string gz = Gzip(text);
  Inflater inf(1 << 30);
  ByteBuffer out;
  inf.Feed(std::string_view(gz).substr(0, gz.size() / 2), out);
  const Status finished = inf.Finish();
  const Diagnostic& d = finished.error();
  EXPECT_FALSE(finished.ok());
  EXPECT_EQ(d.code, Code::kTruncated);
  EXPECT_GT(out.size(), 0u);
  EXPECT_EQ(out.view(), text.substr(0, out.size()));
}

TEST(Gzip, CorruptDataIsBadGzipWithOffset) {
  std::string gz = Gzip(Sample());
  for (size_t i = 100; i < 140; i++) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  Inflater inf(1 << 30);
  ByteBuffer out;
  inf.Feed(gz, out);
  const Status finished = inf.Finish();
  const Diagnostic& d = finished.error();
  EXPECT_FALSE(finished.ok());
  EXPECT_TRUE(d.code == Code::kBadGzip || d.code == Code::kTruncated) << d.message;
}

TEST(Gzip, InflateLimitStopsABomb) {
  const std::string gz = Gzip(std::string(50 << 20, 'a'));  // 50 MB of 'a' → ~50 KB
  Inflater inf(1 << 20);
  ByteBuffer out;
  inf.Feed(gz, out);
  const Status finished = inf.Finish();
  const Diagnostic& d = finished.error();
  EXPECT_FALSE(finished.ok());
  EXPECT_EQ(d.code, Code::kTooLarge);
  EXPECT_EQ(out.size(), size_t{1} << 20);
}

}  // namespace tracemerge
