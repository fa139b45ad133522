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
    std::string waiting;
    if (inflate_later_) {
      in_.compressed_.append(bytes);
      // Grown large, one of a format that may read in pieces (asked by its name, the
      // head still compressed) inflates here from now on, as it comes.
      if (!open_ || probed_ || in_.compressed_.size() <= hold_ / 4) return;
      probed_ = true;
      if (!open_(in_)) return;
      inflate_later_ = false;
      waiting.swap(in_.compressed_);
      bytes = waiting;
    }
    if (!over_limit_) {
      // While it may be read in pieces, a slice at a time: what the pieces take is let go of
      // as it inflates (and Fed keeps what they hold under the limit).
      const size_t slice = in_.pieces || open_ ? 4096 : bytes.size();
      for (size_t at = 0; at < bytes.size() && !over_limit_; at += slice) {
        in_.inflater_->Feed(bytes.substr(at, slice), in_.data);
        in_.Grew();
        Fed();
      }
    }
    return;
  }
  if (in_.pieces && in_.pieces->Stopped()) return void(in_.taken += bytes.size());
  // Up to the limit at a time: a source read in pieces lets go of what they take, and goes on.
  while (!over_limit_ && !bytes.empty()) {
    const std::string_view now = bytes.substr(0, static_cast<size_t>(std::min<uint64_t>(bytes.size(), in_.max_bytes_ - in_.data.size())));
    bytes.remove_prefix(now.size());
    in_.data.append(now);
    in_.Grew();
    Fed();
    if (bytes.empty() || in_.data.size() < in_.max_bytes_) continue;
    over_limit_ = true;
    in_.warnings.push_back({Code::kTooLarge, in_.path, in_.taken + in_.max_bytes_,
                            in_.pieces ? RecordTooLarge()
                                       : "file is larger than the limit of " + std::to_string(in_.max_bytes_) + " bytes" +
                                             in_.why_ + "; kept the first part"});
  }
}

void SourceStream::Fed() {
  if (!in_.pieces) {
    if (!open_ || in_.data.size() <= hold_) return;
    in_.pieces = open_(in_);
    open_ = nullptr;  // (asked once)
    if (!in_.pieces) return;
    if (in_.inflater_) in_.inflater_->Unlimit();  // (the limit is on what the pieces hold, kept here)
  }
  // At most the limit's worth at a time (an inflated slice may be more): a record larger
  // than the limit never comes whole.
  for (size_t n = 1; n;) {
    const std::string_view held = in_.data.view().substr(0, static_cast<size_t>(std::min<uint64_t>(in_.data.size(), in_.max_bytes_)));
    n = in_.pieces->Take(held, in_.taken);
    const size_t rest = in_.data.size() - n;
    if (n) std::memmove(in_.data.data(), in_.data.data() + n, rest);
    in_.data.truncate(rest);
    in_.taken += n;
    if (in_.pieces->Stopped()) {  // (damaged or cancelled: the rest is not read, only counted)
      in_.taken += in_.data.size();
      in_.data.clear();
      return;
    }
    if (rest <= in_.max_bytes_) return;
  }
  in_.data.truncate(in_.max_bytes_);  // (inflated past it: a plain file's bytes stop at the limit in Take)
  over_limit_ = true;
  in_.warnings.push_back({Code::kTooLarge, in_.path, in_.taken + in_.max_bytes_, RecordTooLarge()});
}

std::string SourceStream::RecordTooLarge() const {
  return "a record from byte " + std::to_string(in_.taken) + " on is larger than the limit of " +
         std::to_string(in_.max_bytes_) + " bytes" + in_.why_ + "; read the records before it";
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
  Fed();
}

SourceBytes SourceStream::End() && {
  if (!decided_) in_.data.append(pending_);
  if (over_limit_ && in_.pieces) in_.inflater_.reset();  // (its stream was left unread on purpose)
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
