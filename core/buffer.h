// An append-only byte buffer whose appends are inline (std::string's are not):
// the template arena and the output chunk, through which every byte passes.
//
//   ByteBuffer b;  b.append("{\"ts\":");  b.push_back(kTsMark);  b.view() → "{\"ts\":\x03"
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

namespace tracemerge {

// Writes v in decimal at w (room for 20 bytes); returns the end. Two digits
// per step and 32-bit arithmetic below 10^8: wasm has no 64-bit multiply-high,
// so libc++'s 64-bit to_chars divides for real.
inline char* WriteUint(char* w, uint64_t v) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  auto small = [](char* w, uint32_t v) {  // v < 10^8, no leading zeros
    const int n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : v < 1000000 ? 6 : v < 10000000 ? 7 : 8;
    char* q = w + n;
    for (; v >= 100; v /= 100) std::memcpy(q -= 2, kPairs + 2 * (v % 100), 2);
    if (v >= 10) std::memcpy(q - 2, kPairs + 2 * v, 2);
    else q[-1] = static_cast<char>('0' + v);
    return w + n;
  };
  auto eight = [](char* w, uint32_t v) {  // v < 10^8, exactly 8 digits
    const uint32_t hi = v / 10000, lo = v % 10000;
    std::memcpy(w, kPairs + 2 * (hi / 100), 2);
    std::memcpy(w + 2, kPairs + 2 * (hi % 100), 2);
    std::memcpy(w + 4, kPairs + 2 * (lo / 100), 2);
    std::memcpy(w + 6, kPairs + 2 * (lo % 100), 2);
    return w + 8;
  };
  constexpr uint64_t k8 = 100000000, k16 = k8 * k8;
  if (v < k8) return small(w, static_cast<uint32_t>(v));
  if (v < k16) return eight(small(w, static_cast<uint32_t>(v / k8)), static_cast<uint32_t>(v % k8));
  w = small(w, static_cast<uint32_t>(v / k16));
  v %= k16;
  return eight(eight(w, static_cast<uint32_t>(v / k8)), static_cast<uint32_t>(v % k8));
}

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer() { std::free(data_); }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ByteBuffer(ByteBuffer&& o) noexcept { swap(o); }
  ByteBuffer& operator=(ByteBuffer&& o) noexcept {
    ByteBuffer(std::move(o)).swap(*this);
    return *this;
  }
  void swap(ByteBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
  }

  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {data_, size_}; }

  void clear() { size_ = 0; }
  void truncate(size_t n) { size_ = std::min(n, size_); }
  void reserve(size_t n) {
    if (n > cap_) Resize(n);
  }
  void append(std::string_view s) { append(s.data(), s.size()); }
  void append(const char* p, size_t n) {
    if (n) std::memcpy(Extend(n), p, n);
  }
  void push_back(char c) { *Extend(1) = c; }
  // As append, for bytes that stay readable 16 past their end (padded input):
  // short ones are copied 16 at a time, without a call to memcpy.
  __attribute__((always_inline)) void AppendPadded(std::string_view s) {  // (clang for wasm would not)
    if (s.size() <= 16 && cap_ - size_ >= 16) {
      std::memcpy(data_ + size_, s.data(), 16);
      size_ += s.size();
    } else {
      append(s);
    }
  }
  // Room for n more bytes at the end, not counted as written until SetEnd().
  char* Room(size_t n) {
    if (cap_ - size_ < n) Resize(std::max(size_ + n, cap_ + cap_ / 2 + 256));
    return data_ + size_;
  }
  void SetEnd(const char* w) { size_ = static_cast<size_t>(w - data_); }
  // n more bytes at the end, counted as written; the caller fills them.
  char* Extend(size_t n) {
    char* w = Room(n);
    size_ += n;
    return w;
  }
  // Writes at most `max` bytes through f(char*) → bytes written.
  template <class F>
  void Write(size_t max, F&& f) {
    char* w = Extend(max);
    size_ = static_cast<size_t>(w - data_) + f(w);
  }
  void AppendUint(uint64_t v) {
    Write(20, [&](char* w) { return static_cast<size_t>(WriteUint(w, v) - w); });
  }
  // Capacity becomes size + slack (in place when it shrinks: realloc to a
  // smaller size does not copy).
  void ShrinkToFit(size_t slack = 0) {
    if (cap_ != size_ + slack) Resize(size_ + slack);
  }
  void Free() { ByteBuffer().swap(*this); }

 private:
  void Resize(size_t cap) {
    char* p = static_cast<char*>(std::realloc(data_, cap ? cap : 1));
    if (!p) {  // as operator new does: the handler reports, then abort
      if (std::new_handler h = std::get_new_handler()) h();
      std::abort();
    }
    data_ = p;
    cap_ = cap;
  }
  char* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

}  // namespace tracemerge
