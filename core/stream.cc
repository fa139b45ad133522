#include "stream.h"

#include <algorithm>
#include <cstring>

namespace tracemerge {

InputGate::Pass InputGate::Enter() {
  std::unique_lock<std::mutex> lock(mu_);
  free_.wait(lock, [&] { return !held_; });
  held_ = true;
  return Pass(this);
}

void InputGate::Leave() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = false;
  }
  free_.notify_one();
}

void SourceBytes::Grew() {
  if (gate_ && !pass_ && data.size() > gate_->big()) pass_ = gate_->Enter();
}

SourceStream::SourceStream(std::string path, uint32_t arrival, uint64_t max_bytes, bool inflate_later,
                           ByteBuffer buffer, uint64_t size_hint)
    : inflate_later_(inflate_later), hint_(size_hint) {
  in_.path = std::move(path);
  in_.arrival = arrival;
  in_.max_bytes_ = max_bytes;
  // A gzip hint (the file's own word, GzipSizeHint) starts the buffer within a bound; beyond it,
  // the buffer grows with what actually arrives. A plain file's size is a fact: its whole size is
  // reserved once it is known not to be gzip (Append) — growing by copies would need 2.5× in wasm.
  constexpr uint64_t kMaxReserve = uint64_t{256} << 20;
  const uint64_t want = std::min({size_hint, max_bytes, kMaxReserve}) + kPad;
  // A spare buffer too small, or much too large, goes: kept, it would only
  // add to the peak (in wasm's heap, which never shrinks, most of all).
  in_.data.swap(buffer);
  if (in_.data.capacity() < want || in_.data.capacity() - want > want / 8) in_.data.Free();
  in_.data.clear();
  in_.data.reserve(want);
}

void SourceStream::Append(std::string_view bytes) {
  in_.bytes_given += bytes.size();
  if (decided_) return Take(bytes);
  pending_.append(bytes);  // a chunk may be 1 byte: wait for the 2-byte gzip magic
  if (pending_.size() < 2) return;
  decided_ = true;
  gz_ = LooksGzipped(pending_);
  if (!gz_) in_.data.reserve(std::min(hint_, in_.max_bytes_) + kPad);
  if (gz_) in_.inflater_ = std::make_unique<Inflater>(in_.max_bytes_, in_.why_);
  std::string first;
  first.swap(pending_);
  Take(first);
}

void SourceStream::Take(std::string_view bytes) {
  if (gz_) {
    if (inflate_later_) {
      in_.compressed_.append(bytes);
    } else {
      in_.inflater_->Feed(bytes, in_.data);
      in_.Grew();
    }
    return;
  }
  if (over_limit_) return;
  if (in_.data.size() + bytes.size() > in_.max_bytes_) {
    over_limit_ = true;
    bytes = bytes.substr(0, in_.max_bytes_ - in_.data.size());
    in_.warnings.push_back({Code::kTooLarge, in_.path, in_.max_bytes_,
                            "file is larger than the limit of " + std::to_string(in_.max_bytes_) + " bytes" +
                                in_.why_ + "; kept the first part"});
  }
  in_.data.append(bytes);
  in_.Grew();
}

char* SourceStream::Room(size_t n) {
  if (!decided_ || gz_ || over_limit_ || in_.data.size() + n > in_.max_bytes_) {
    room_.resize(n);
    return room_.data();
  }
  room_.clear();
  return in_.data.Room(n);
}

size_t SourceStream::ChunkSize(size_t max) const {
  if (gz_ || hint_ == 0 || in_.bytes_given > hint_) return max;
  return static_cast<size_t>(std::min<uint64_t>(max, hint_ - in_.bytes_given + 1));
}

void SourceStream::Appended(size_t k) {
  if (!room_.empty()) return Append(std::string_view(room_).substr(0, k));
  in_.bytes_given += k;
  in_.data.SetEnd(in_.data.data() + in_.data.size() + k);
  in_.Grew();
}

SourceBytes SourceStream::End() && {
  if (!decided_) in_.data.append(pending_);
  return std::move(in_);
}

void SourceBytes::Inflate() {
  if (inflater_) {
    // In pieces: past the gate's size, this source waits for it before inflating more.
    constexpr size_t kPiece = 1 << 20;
    for (size_t at = 0; at < compressed_.size(); at += kPiece) {
      inflater_->Feed(std::string_view(compressed_).substr(at, kPiece), data);
      Grew();
    }
    std::string().swap(compressed_);
    const Status finished = inflater_->Finish();
    const Diagnostic& d = finished.error();
    if (!finished.ok()) warnings.push_back({d.code, path, d.offset, d.message + " (compressed offset)"});
    inflater_.reset();
  }
  size = data.size();
  std::memset(data.Extend(kPad), ' ', kPad);
}

}  // namespace tracemerge
