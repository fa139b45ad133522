#include "store.h"

#include <algorithm>

namespace tracemerge {

FileStore::~FileStore() {
  if (f_) std::fclose(f_);
}

bool FileStore::Put(uint32_t key, std::string_view bytes) {
  if (!f_ && !(f_ = std::tmpfile())) return false;  // (the events then stay in memory, said in a warning)
  if (key >= pieces_.size()) {
    pieces_.resize(key + 1);
    sizes_.resize(key + 1);
  }
  if (fseeko(f_, static_cast<off_t>(end_), SEEK_SET) != 0 ||
      std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size())
    return false;
  pieces_[key].push_back({sizes_[key], end_});
  sizes_[key] += bytes.size();
  end_ += bytes.size();
  return true;
}

bool FileStore::Get(uint32_t key, uint64_t offset, uint64_t length, char* out) {
  if (key >= pieces_.size() || offset + length > sizes_[key]) return false;
  const std::vector<Piece>& ps = pieces_[key];
  // The piece holding `offset`: the last one starting at or before it.
  auto it = std::upper_bound(ps.begin(), ps.end(), offset, [](uint64_t o, const Piece& p) { return o < p.at; }) - 1;
  while (length > 0) {
    const uint64_t piece_end = it + 1 == ps.end() ? sizes_[key] : (it + 1)->at;
    const uint64_t n = std::min(length, piece_end - offset);
    if (fseeko(f_, static_cast<off_t>(it->file + (offset - it->at)), SEEK_SET) != 0 ||
        std::fread(out, 1, n, f_) != n)
      return false;
    out += n;
    offset += n;
    length -= n;
    ++it;
  }
  return true;
}

}  // namespace tracemerge
