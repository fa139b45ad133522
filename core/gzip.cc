#include "gzip.h"

#include <zlib.h>

#include <algorithm>

namespace tracemerge {

bool LooksGzipped(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

struct Inflater::State {
  z_stream z{};
  uint64_t max_output = 0;
  std::string why;  // of the limit
  uint64_t consumed = 0;  // compressed bytes fed so far
  uint64_t produced = 0;
  bool in_member = false;  // inside a gzip member (between header and trailer)
  bool failed = false;
  Diagnostic problem;
};

Inflater::Inflater(uint64_t max_output, std::string why) : s_(new State) {
  s_->max_output = max_output;
  s_->why = std::move(why);
  inflateInit2(&s_->z, 15 + 32);  // auto-detect gzip or zlib header
}

Inflater::~Inflater() { inflateEnd(&s_->z); }

void Inflater::Feed(std::string_view in, ByteBuffer& out) {
  State& s = *s_;
  if (s.failed) return;
  s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  s.z.avail_in = static_cast<uInt>(in.size());
  // On while input is left — or while a call filled its whole room: zlib may
  // then still hold decoded bytes back (the rest of a match), and they must
  // come out now, not with the next chunk (which a cut file never sends).
  for (bool more = s.z.avail_in > 0; more;) {
    if (s.z.avail_in > 0) s.in_member = true;
    // Straight into out: into the room it has (sized by a good hint, it never
    // grows), else 64 KB more.
    const size_t at = out.size();
    // Never more than one byte past the limit: a stream that crosses it stops
    // right there, and the offset reported is where (whatever the chunks).
    const uint64_t left = s.max_output - s.produced;  // (produced never passes the limit)
    const size_t free = out.capacity() > at ? std::min<size_t>(out.capacity() - at, 1 << 16) : 1 << 16;
    const auto room = static_cast<uInt>(left < free ? left + 1 : free);
    s.z.next_out = reinterpret_cast<Bytef*>(out.Extend(room));
    s.z.avail_out = room;
    const uInt before_in = s.z.avail_in;
    int rc = inflate(&s.z, Z_NO_FLUSH);
    const size_t got = room - s.z.avail_out;
    s.consumed += before_in - s.z.avail_in;
    if (s.produced + got > s.max_output) {
      s.failed = true;
      s.problem = {Code::kTooLarge, "", s.consumed,
                   "inflates to more than the limit of " + std::to_string(s.max_output) + " bytes" + s.why +
                       "; kept the first part"};
      out.truncate(at + (s.max_output - s.produced));
      return;
    }
    out.truncate(at + got);
    s.produced += got;
    more = s.z.avail_in > 0 || (got == room && rc != Z_STREAM_END);
    if (rc == Z_STREAM_END) {
      // Concatenated members are legal gzip; anything else after the end is
      // garbage, which the next inflate() call reports as a bad header.
      s.in_member = false;
      inflateReset(&s.z);
    } else if (rc == Z_BUF_ERROR && got == 0 && before_in == s.z.avail_in) {
      break;  // no progress possible; Finish() reports the cut
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      s.failed = true;
      s.problem = {Code::kBadGzip, "", s.consumed,
                   std::string("corrupt gzip data (") + (s.z.msg ? s.z.msg : "zlib error") +
                       "); kept what inflated before it"};
      return;
    }
  }
}

void Inflater::Unlimit() { s_->max_output = UINT64_MAX; }

Status Inflater::Finish() {
  if (s_->failed) return s_->problem;
  if (s_->in_member)
    return Diagnostic{Code::kTruncated, "", s_->consumed, "gzip stream ends early; kept what inflated before the cut"};
  return {};
}

struct GzipWriter::State {
  z_stream z{};
  Sink sink;
};

GzipWriter::GzipWriter(Sink sink, int level) : s_(new State) {
  s_->sink = std::move(sink);
  deflateInit2(&s_->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // gzip, mtime 0
}

GzipWriter::~GzipWriter() { deflateEnd(&s_->z); }

static void Pump(z_stream& z, const Sink& sink, int flush) {
  unsigned char buf[1 << 16];
  do {
    z.next_out = buf;
    z.avail_out = sizeof buf;
    deflate(&z, flush);
    size_t got = sizeof buf - z.avail_out;
    if (got) sink(std::string_view(reinterpret_cast<char*>(buf), got));
  } while (z.avail_out == 0);
}

void GzipWriter::Write(std::string_view data) {
  s_->z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  s_->z.avail_in = static_cast<uInt>(data.size());
  Pump(s_->z, s_->sink, Z_NO_FLUSH);
}

void GzipWriter::Finish() {
  s_->z.next_in = nullptr;
  s_->z.avail_in = 0;
  Pump(s_->z, s_->sink, Z_FINISH);
}

}  // namespace tracemerge
