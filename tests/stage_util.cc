#include "stage_util.h"

#include <deque>

#include "identity.h"
#include "layout.h"
#include "parse.h"

namespace tracemerge::test {

Job MakeJob(const std::vector<Input>& inputs) {
  std::deque<ParsedSource> parsed;
  Budget budget(UINT64_MAX, nullptr);
  EventParser parser;
  uint32_t arrival = 0;
  for (const Input& in : inputs) {
    SourceStream stream(in.name, arrival++, 1 << 30, false, ByteBuffer(), in.bytes.size());
    stream.Append(in.bytes);
    SourceBytes bytes = std::move(stream).End();
    bytes.Inflate();
    parsed.push_back(ParseSource(bytes, ParseLimits(), parser, nullptr));
    LayOut(parsed.back(), bytes.data, budget);
  }
  Job job = JoinSources(std::move(parsed), 1);
  IdentifySources(job);
  return job;
}

std::string Trace(const std::string& events, const std::string& extra) {
  return "{\"traceEvents\":[" + events + "]" + extra + "}";
}
}  // namespace tracemerge::test
