// An XPlane's dictionaries and stats (xplane.proto), for the XPlane module
// (xplane.cc) and its tests: what a plane's event and stat metadata say,
// read once a plane, so that each of its events only looks its own up.
//   Dicts d;  EventMetaEntry(entry, &d) …;  StatMetaEntry(entry, &d) …;  Prepare(&d, device);
//   Stat v = ReadStat(stat, d);  AppendValue(out, v, d)  → 42, "text", "(3 bytes)", "hlo_op's name", 1.5
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "buffer.h"
#include "formats/protobuf.h"

namespace tracemerge {

// A plane's dictionary by id: a vector where the ids are small (as producers
// number them), else a hash map. Filled while the plane is read, then frozen;
// its entries do not move.
template <class T>
class ById {
 public:
  T& operator[](int64_t id) { return map_[id]; }
  void Freeze() {
    int64_t top = -1;
    for (const auto& [id, v] : map_) top = std::max(top, id < 0 ? INT64_MAX - 1 : id);
    if (top >= static_cast<int64_t>(4 * map_.size() + 64)) return;
    dense_.assign(static_cast<size_t>(top + 1), nullptr);
    for (auto& [id, v] : map_) dense_[static_cast<size_t>(id)] = &v;
  }
  const T* Find(int64_t id) const {
    if (!dense_.empty() || map_.empty())
      return id >= 0 && static_cast<uint64_t>(id) < dense_.size() ? dense_[static_cast<size_t>(id)] : nullptr;
    auto it = map_.find(id);
    return it == map_.end() ? nullptr : &it->second;
  }
  std::unordered_map<int64_t, T>& all() { return map_; }

 private:
  std::unordered_map<int64_t, T> map_;
  std::vector<const T*> dense_;
};

struct StatMeta {
  std::string_view name;
  std::string json;  // its name, JSON-escaped (Prepare)
};

// A stat as read (views into the file), written as JSON with its event.
struct Stat {
  enum Kind : uint8_t { kNone, kDouble, kUint, kInt, kStr, kBytes, kRef };
  const StatMeta* meta = nullptr;  // nullptr: an id no metadata names
  Kind kind = kNone;               // its value's, the last given (kNone: no value, not written)
  uint64_t bits = 0;               // the double's bits, the integer, the ref's stat id
  std::string_view text;           // kStr, kBytes
  std::optional<int64_t> integer;  // an integer value, as such
  std::string_view name() const { return meta ? meta->name : std::string_view(); }
};

enum class AnchorKind : uint8_t { kNone, kExchange, kKernel };

struct EventMeta {
  std::string_view name, display_name, stats;  // stats: the XEventMetadata's bytes (its XStats: field 5)
  // Prepare: what each of its events writes and is.
  std::string name_json;   // its name, JSON-escaped
  std::string long_name;   // its display name as a JSON string, "" when it says nothing more
  std::vector<Stat> own;   // its stats (an event's own win)
  AnchorKind anchor = AnchorKind::kNone;  // a collective (formats/collectives.h) on a device plane
  std::string anchor_key;  // kKernel: "<op>\x1f<name>"
};

struct Dicts {
  ById<EventMeta> events;
  ById<StatMeta> stats;
};

// A plane's map entries (map<int64, XEventMetadata>, map<int64, XStatMetadata>); the last of an id wins.
void EventMetaEntry(WireReader entry, Dicts* d);
void StatMetaEntry(WireReader entry, Dicts* d);
// Once the plane's entries are read: freezes the dictionaries and works out each
// metadata's output and anchor (NCCL/RCCL kernels; on a plane without them, XLA's
// collective ops stand for them: TPU).
void Prepare(Dicts* d, bool device);
// An XStat; names and refs are looked up in d.
Stat ReadStat(WireReader st, const Dicts& d);
// Its value as JSON: doubles to 17 digits (NaN, ±Infinity as strings), a uint64 over
// INT64_MAX quoted, bytes as "(N bytes)", a ref as its stat's name.
void AppendValue(ByteBuffer& out, const Stat& v, const Dicts& d);
std::string Json(const Stat& v, const Dicts& d);

}  // namespace tracemerge
