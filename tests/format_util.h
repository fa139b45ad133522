// Helpers of the format modules' tests (tests/unit/<format>_test.cc): one file parsed alone.
#pragma once

#include <string>

#include "formats/format.h"
#include "parse.h"
#include "stream.h"

namespace tracemerge::test {

// A file as ingest parses it (classified by its name and bytes).
inline ParsedSource ParseFile(const std::string& path, const std::string& bytes, bool in_folder = true) {
  SourceStream stream(path, 0, 1 << 30, false, ByteBuffer(), bytes.size());
  stream.SetInFolder(in_folder);
  stream.Append(bytes);
  SourceBytes in = std::move(stream).End();
  in.Inflate();
  EventParser parser;
  return ParseSource(in, ParseLimits(), parser, nullptr);
}

// Who its format says recorded it.
inline Identity IdentityOf(const ParsedSource& s, const JobFacts& facts = {}) {
  return FormatOf(s.cls.format).Identify(s, facts);
}

}  // namespace tracemerge::test
