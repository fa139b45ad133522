/* The C ABI of tracemerge (libtracemerge.so): the native CLI's run as a
 * function, for the Python package (core/python, through ctypes) and any
 * other language. The same flags as the CLI, the same bytes as the CLI.
 *
 *   const char* argv[] = {"job/", "--unit", "step", "--start", "3", "--end", "9", "-o", "out.json", "--quiet"};
 *   char* r = tm_run(10, argv, NULL, NULL);
 *   → {"exit":0,"out":"","err":"","output":"out.json","result":{"fatal":null,"summary":"…","report":{…},…}}
 *   tm_free(r);
 *
 * The call does not touch any language's runtime: Python's ctypes releases
 * the GIL around it (and takes it back for each progress callback).
 */
#ifndef TRACEMERGE_C_H_
#define TRACEMERGE_C_H_

#include <stdint.h>

#ifndef TM_EXPORT
#define TM_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Progress: stage "read" (input bytes), "parse" (a source's bytes), "plan"
 * (stages), "write" (events); return 0 to cancel (CANCELLED). */
typedef int (*tm_progress_fn)(void* user, const char* stage, double done, double total);

/* Runs `tracemerge argv…` (argv without the program name). Returns a JSON text
 * the caller frees with tm_free: exit (0, 1, 2), out and err (what the CLI
 * prints), output (the file written, or ""), result (the merge's result: fatal,
 * summary, outputName, report; null when no merge ran). */
TM_EXPORT char* tm_run(int argc, const char* const* argv, tm_progress_fn progress, void* user);
TM_EXPORT void tm_free(char* text);
/* "0.1.0": the version of every tracemerge artifact (the CMake project's). */
TM_EXPORT const char* tm_version(void);

#ifdef __cplusplus
}
#endif

#endif
