// A TemplateStore in one temporary file (tmpfile(3): unnamed, gone with the
// process), created at the first Put: what the native CLI uses when a job is
// larger than its memory budget.
//
//   options.store = std::make_shared<FileStore>();  options.memory_budget = 512 << 20;
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "merger.h"

namespace tracemerge {

class FileStore : public TemplateStore {
 public:
  FileStore() = default;
  ~FileStore() override;
  bool Put(uint32_t key, std::string_view bytes) override;
  bool Get(uint32_t key, uint64_t offset, uint64_t length, char* out) override;

 private:
  struct Piece {
    uint64_t at;    // offset in the key's bytes
    uint64_t file;  // offset in the file
  };
  std::FILE* f_ = nullptr;
  uint64_t end_ = 0;
  std::vector<std::vector<Piece>> pieces_;  // by key, in order
  std::vector<uint64_t> sizes_;             // by key
};

}  // namespace tracemerge
