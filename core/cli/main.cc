// tracemerge CLI: its process (huge pages, the allocator's settings) around
// RunCli (run.h: folders walked like a dropped folder, files streamed into the
// core in 1 MB chunks, the merged trace written atomically, a summary).
//   tracemerge [merge] [options] PATH...        exit 0 ok, 1 nothing merged/fatal, 2 usage,
//                                                130 interrupted (Ctrl-C: no output, no temporary file)
#include <algorithm>
#include <signal.h>
#include <sys/stat.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "run.h"

using namespace tracemerge;

namespace {

#if defined(__GLIBC__)
// Transparent huge pages for the heap: glibc's malloc asks the kernel for them
// with this tunable, which it reads only at start-up — so the CLI starts
// itself again with it set, once. A merge touches every page of a heap about
// the size of its input once: in 4 KB pages that is ~60K page faults per
// 200 MB, 10–50% of a run in a VM (measured: 200 MB 1.14 → 1.01 s, 50 MB
// 0.48 → 0.24 s; peak RSS +2%). TRACEMERGE_SMALL_PAGES=1 keeps 4 KB pages.
void StartWithHugePages(char** argv) {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (std::getenv("TRACEMERGE_SMALL_PAGES") || (tunables && std::strstr(tunables, "glibc.malloc.hugetlb"))) return;
  const std::string set = std::string(tunables ? tunables : "") + (tunables && *tunables ? ":" : "") +
                          "glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", set.c_str(), 1) == 0) execv("/proc/self/exe", argv);  // (failing that: go on)
}
#endif

// Ctrl-C (or SIGTERM) cancels the merge at its next progress, as a callback's False does in
// Python: nothing written, the temporary file removed. A second one ends the process at once.
volatile sig_atomic_t interrupted = 0;
void OnInterrupt(int sig) { interrupted = sig; }

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  StartWithHugePages(argv);
  // Keep freed memory for reuse: a source's buffers and event blocks go back
  // to the heap, not to the system, and the next source takes them without
  // faulting fresh pages in (each first touch costs microseconds, in a VM
  // most of all) — up to the memory budget's big input (below), which goes
  // back to the system when freed. One arena: both parsing threads share what is freed.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  mallopt(M_ARENA_MAX, 1);
#endif
  RunIo io;
  io.out = [](std::string_view s) { std::cout << s << std::flush; };
  io.err = [](std::string_view s) { std::cerr << s << std::flush; };
  io.terminal = isatty(STDERR_FILENO);
#if defined(__GLIBC__)
  io.big_input = [](uint64_t big) {
    const int at = static_cast<int>(std::min<uint64_t>(big, 1 << 30));
    mallopt(M_MMAP_THRESHOLD, at);
    mallopt(M_TRIM_THRESHOLD, at);
  };
#endif
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sa.sa_flags = SA_RESETHAND;  // (the second: the default, the end)
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  io.progress = [](const Progress&) { return interrupted == 0; };
  const int exit = RunCli(std::vector<std::string>(argv + 1, argv + argc), io).exit;
  if (interrupted) std::cerr << "tracemerge: interrupted; nothing written" << std::endl;
  return interrupted ? 128 + interrupted : exit;
}
