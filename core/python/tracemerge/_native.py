"""The core, through its C ABI (core/capi/tracemerge_c.h) and ctypes.

ctypes releases the GIL for the whole call (and takes it back for each progress
callback): other Python threads run while a merge does. The library is looked up
next to this package (the wheel ships it there), in $TRACEMERGE_LIB, then in the
source tree's build/native/.
"""
import ctypes
import json
import os
import pathlib

_HERE = pathlib.Path(__file__).resolve().parent
_PROGRESS = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_double, ctypes.c_double)
_lib = None


def library_path():
    """Where libtracemerge.so is (raises ImportError naming the places tried)."""
    tried = []
    for c in (_HERE / "libtracemerge.so", os.environ.get("TRACEMERGE_LIB"),
              _HERE.parents[2] / "build" / "native" / "libtracemerge.so"):
        if not c:
            continue
        p = pathlib.Path(c)
        if p.is_file():
            return p
        tried.append(str(p))
    raise ImportError("libtracemerge.so not found (pip install the tracemerge wheel, build it with "
                      "scripts/build.sh, or set TRACEMERGE_LIB); tried: " + ", ".join(tried))


def _load():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(str(library_path()))
        lib.tm_run.restype = ctypes.c_void_p  # (freed with tm_free: not a c_char_p, which would copy and lose it)
        lib.tm_run.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), _PROGRESS, ctypes.c_void_p]
        lib.tm_free.argtypes = [ctypes.c_void_p]
        lib.tm_version.restype = ctypes.c_char_p
        _lib = lib
    return _lib


def version():
    return _load().tm_version().decode()


_option_table = None


def option_table():
    """The CLI's options as the core defines them (`tracemerge --options`): {key: spec} for
    those an API sets, each spec {"flag", "takes": nothing|value|each|path=us, "choices"}."""
    global _option_table
    if _option_table is None:
        answer = run(["--options"])
        _option_table = {o["key"]: o for o in json.loads(answer["out"]) if o["key"]}
    return _option_table


def run(argv, progress=None):
    """Runs `tracemerge argv…` in this process; returns its JSON answer as a dict:
    exit, out, err, output (the file written), result (fatal, summary, report, …)."""
    lib = _load()
    args = (ctypes.c_char_p * len(argv))(*[os.fsencode(a) for a in argv])
    failure = []

    def on_progress(_user, stage, done, total):
        try:
            return 0 if progress(stage.decode(), done, total) is False else 1
        except BaseException as e:  # (an exception cannot cross C: it cancels, and is raised after)
            failure.append(e)
            return 0

    callback = _PROGRESS(on_progress) if progress else _PROGRESS()
    raw = lib.tm_run(len(argv), args, callback, None)
    if not raw:
        raise MemoryError("tracemerge: no memory for the result")
    try:
        answer = json.loads(ctypes.string_at(raw).decode())
    finally:
        lib.tm_free(raw)
    if failure:
        raise failure[0]
    return answer
