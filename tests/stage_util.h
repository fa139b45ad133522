// Helpers of the stage tests (tests/unit/*_test.cc that call one stage alone).
#pragma once

#include <string>
#include <vector>

#include "stages.h"
#include "test_util.h"

namespace tracemerge::test {

// A job as ingest makes it: each text streamed in, parsed and laid out, joined, identified.
Job MakeJob(const std::vector<Input>& inputs);
// A trace-event file of these events: {"traceEvents":[events]extra}.
std::string Trace(const std::string& events, const std::string& extra = "");

}  // namespace tracemerge::test
