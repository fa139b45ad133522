// The registry: every format, kind of file, time base and step kind, one line
// each. The rest derives from these tables: the enums (kinds.h, format.h) and
// their names, the order the formats are asked in (kinds.cc Classify), the
// `only` filter and the page's kind table (api_json.cc KindTableJson), what an
// imported source may say it is (transfer.cc), the .d.ts unions
// (wasm/CMakeLists.txt reads the F, K, B lines of this file) and the tests that
// walk every row (registry_test.cc).
//
// Adding a format is one file and one line: core/formats/<name>.cc defining
// `const Format& <Factory>()`, and its F line below, where it is to be asked;
// a new kind of file, time base or step kind is one K, B or S line more, an
// event argument a format reads one A line.
#pragma once

#define TRACEMERGE_ONE(...) +1  // (counts a table's rows: 0 TABLE(TRACEMERGE_ONE))

// F(id, name, factory): the formats in the order they are asked; the first that
// recognises a file reads it. An XSpace first (binary: no JSON format is to be
// asked about it), Chrome JSON last (it takes any trace the others do not).
#define TRACEMERGE_FORMATS(F)                              \
  F(kXPlane, "xplane", XPlaneFormat)                       \
  F(kTfProfiler, "tf_profiler", TfProfilerFormat)          \
  F(kSystemMetrics, "system_metrics", SystemMetricsFormat) \
  F(kSmdebug, "smdebug", SmdebugFormat)                    \
  F(kKineto, "kineto", KinetoFormat)                       \
  F(kChrome, "chrome", ChromeFormat)

// K(id, name, only, label, alias): the kinds of file with events — the name
// reports and tracks use, the `only` filter's name (as smdebug's
// file_suffix_filter spells it), the page's label, one more spelling the filter
// takes ("" for none); the filter takes the name too.
#define TRACEMERGE_EVENT_KINDS(K)                                                \
  K(kPythonTimeline, "pythontimeline", "pythontimeline.json", "pythontimeline", "") \
  K(kModelTimeline, "model_timeline", "model_timeline.json", "model_timeline", "") \
  K(kHorovod, "horovod", "horovod_timeline.json", "horovod", "")                 \
  K(kTfTrace, "tf_trace", "trace.json.gz", "TF trace", "")                       \
  K(kSystem, "system", "system", "system metrics", "system metrics")             \
  K(kOther, "trace", "other", "PyTorch/Chrome trace", "other traces")            \
  K(kXPlane, "xplane", "xplane.pb", "TF/JAX XPlane", "")
// And the two without: K(id, name) of a TF .metadata sidecar (a time base only)
// and of a file that is not a trace.
#define TRACEMERGE_OTHER_KINDS(K) \
  K(kSidecar, "tf_metadata")      \
  K(kSkipped, "skipped")

// B(id, name, label, said): how a source's times become absolute Unix time —
// the report's time_base_kind, what the page's table shows, and what the CLI's
// summary says ({value}: what it was read from; {detail}: " (why)" when there was a choice).
#define TRACEMERGE_BASE_KINDS(B)                                                                   \
  B(kNone, "none", "none", "none: times stay relative")  /* relative times (NO_CLOCK; align.cc places them) */ \
  B(kSmdebugHeader, "smdebug_header", "smdebug header",  /* the process_name header's start time */ \
    "smdebug header start_time_since_epoch_in_micros={value}")                                     \
  B(kTfSidecar, "tf_sidecar", "TF .metadata",            /* the start in the name of the step's .metadata file */ \
    "TF sidecar {value}{detail}")                                                                  \
  B(kKinetoBase, "kineto_base", "baseTimeNanoseconds", "baseTimeNanoseconds={value}")             \
  B(kUnixMicros, "unix_us", "Unix µs in the file", "Unix µs in the file")  /* times that already are Unix µs */ \
  B(kUnixSeconds, "unix_s", "Unix seconds", "Unix seconds in each line")   /* system metrics */    \
  B(kXPlaneStart, "xplane_start", "profile_start_time",  /* an XSpace's Task Environment start (ns) */ \
    "Task Environment profile_start_time={value} ns")

// S(id, text): which marks are steps, as the window's report says it. Every
// source has its own; the job takes the first (in this order) any source has,
// as the reference takes pythontimeline's.
#define TRACEMERGE_STEP_KINDS(S)                             \
  S(kNone, "no step marks")                                  \
  S(kStepNum, "pythontimeline step_num")      /* smdebug pythontimeline events' args.step_num */ \
  S(kProfilerStep, "PyTorch ProfilerStep#N slices")  /* PyTorch's ProfilerStep#N slices */ \
  S(kXPlaneSteps, "XPlane Steps lines")       /* an XSpace device plane's "Steps" line */

// A(id, key, unquoted): the events' arguments the formats read — captured by
// the event parser while it writes the event (no second pass over its args),
// read as EventFields::arg(ArgKey::id): the raw token, or its text when unquoted.
#define TRACEMERGE_ARG_KEYS(A)                                                                        \
  A(kName, "name", true)                 /* chrome: process_name's and thread_name's name */        \
  A(kLabels, "labels", true)             /* chrome: process_labels' labels (Kineto's "GPU 1") */    \
  A(kStartTime, "start_time_since_epoch_in_micros", false) /* smdebug: the clock header */          \
  A(kStepNum, "step_num", false)         /* smdebug: pythontimeline's steps */                      \
  A(kCollective, "Collective name", false) /* kineto: record_param_comms' and NCCL kernels' */      \
  A(kSeq, "Seq", false)                  /* kineto: a collective's sequence number */               \
  A(kGroup, "Process Group Name", false) /* kineto: its process group */                            \
  A(kRank, "rank", false)                /* kineto: a file of several ranks merged (TraceLens) */
