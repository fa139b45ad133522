// A vector that grows in fixed blocks: no reallocation, so no moment with the
// old and the new copy both alive (a multi-GB job's events are ~2 GB).
//
//   BlockVector<Event> v;  v.push_back(e);  v[0] → e   (blocks of 4096 elements)
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace tracemerge {

template <class T>
class BlockVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>, "elements are copied as bytes");

 public:
  // 4096 elements (160 KB of events): a source's list wastes little when its
  // last block is half full (a 2.6 MB block per source had raised wasm's heap
  // on jobs of many small files).
  static constexpr size_t kShift = 12, kBlock = size_t{1} << kShift;
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return blocks_[i >> kShift][i & (kBlock - 1)]; }
  const T& operator[](size_t i) const { return blocks_[i >> kShift][i & (kBlock - 1)]; }
  void push_back(const T& v) {
    new (Tail()) T(v);
    size_++;
  }
  void clear() {
    blocks_.clear();
    size_ = 0;
    shrunk_ = false;
  }
  // The first n kept (n <= size()).
  void truncate(size_t n) {
    if (n >= size_) return;
    const size_t blocks = (n + kBlock - 1) >> kShift;
    if (blocks < blocks_.size()) blocks_.resize(blocks), shrunk_ = false;
    size_ = n;
  }
  // The last block cut to the elements it holds, once no more are added: a
  // job of a thousand small sources would otherwise hold a thousand mostly
  // empty blocks (160 MB).
  void ShrinkToFit() {
    const size_t used = size_ & (kBlock - 1);
    if (used == 0) return;
    Block last(static_cast<T*>(::operator new(sizeof(T) * used)));
    std::memcpy(static_cast<void*>(last.get()), blocks_.back().get(), sizeof(T) * used);
    blocks_.back() = std::move(last);
    shrunk_ = true;
  }
  template <class V, class R>
  struct Iter {
    V* v;
    size_t i;
    R& operator*() const { return (*v)[i]; }
    Iter& operator++() { return ++i, *this; }
    bool operator!=(const Iter& o) const { return i != o.i; }
  };
  Iter<BlockVector, T> begin() { return {this, 0}; }
  Iter<BlockVector, T> end() { return {this, size_}; }
  Iter<const BlockVector, const T> begin() const { return {this, 0}; }
  Iter<const BlockVector, const T> end() const { return {this, size_}; }

 private:
  // Blocks are raw memory, written only by push_back: constructing elements
  // in advance would read each new page before writing it (a bit-field's
  // read-modify-write), two page faults and a TLB flush on every CPU a page.
  struct Release {
    void operator()(T* p) const { ::operator delete(p); }
  };
  using Block = std::unique_ptr<T[], Release>;
  // Where element size_ goes, a new block when the last is full.
  T* Tail() {
    if (shrunk_) Regrow();
    if ((size_ & (kBlock - 1)) == 0) blocks_.emplace_back(static_cast<T*>(::operator new(sizeof(T) * kBlock)));
    return &(*this)[size_];
  }
  // A push_back after ShrinkToFit gives the last block its full size again.
  void Regrow() {
    shrunk_ = false;
    const size_t used = size_ & (kBlock - 1);
    if (used == 0) return;
    Block full(static_cast<T*>(::operator new(sizeof(T) * kBlock)));
    std::memcpy(static_cast<void*>(full.get()), blocks_.back().get(), sizeof(T) * used);
    blocks_.back() = std::move(full);
  }
  std::vector<Block> blocks_;
  size_t size_ = 0;
  bool shrunk_ = false;
};

}  // namespace tracemerge
