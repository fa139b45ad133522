// A parsed source as bytes, and back: how sources parsed by another Merger
// (a second wasm instance in a Worker — wasm in the page has no threads)
// travel (Merger::ExportSource there, Merger::ImportSource here).
//
//   std::string tail;
//   ByteBuffer head = SourceToBytes(std::move(s), &tail);   // head ends with the templates (moved, not copied)
//   head.append(tail);  std::optional<ParsedSource> back = SourceFromBytes(std::move(head));  → equal to s
#pragma once

#include <optional>
#include <string>

#include "buffer.h"
#include "source.h"

namespace tracemerge {

// Takes the source apart: its templates move into the returned bytes, the
// rest goes to *tail. Its warnings keep their file name out (the path says it).
ByteBuffer SourceToBytes(ParsedSource&& s, std::string* tail);
// nullopt when these are not such bytes (of this build's layout version) or
// do not hang together — checked for shape, not content.
std::optional<ParsedSource> SourceFromBytes(ByteBuffer bytes);

}  // namespace tracemerge
