"""The scan on a Dask cluster: the map on the workers, the reduce here — the core's own.

Each worker runs `tracemerge FILE --summarize OUT --name NAME` on the files it is given (the
core's map, core/summary.h: the file parsed, thinned to what the scan's stages read, a few
hundred kB at most) and returns the summary's bytes; the driver writes each to a temporary
folder as it arrives and lets it go, then runs `tracemerge SUMMARY… --scan` (the reduce: the
same stages a local scan runs, on the same thinned sources). A worker that dies is retried by
Dask; a file a worker cannot read is named in the TraceMergeError raised.
"""
from __future__ import annotations

import os
import tempfile

from . import _native


class Cancelled(Exception):
    """The progress callback said stop (False) during the map."""


def summarize(path: str, name: str, in_folder: bool, flags: list) -> bytes:
    """The map of one file, on a worker: its summary's bytes (raises RuntimeError naming the
    file when the core could not make one)."""
    fd, out = tempfile.mkstemp(prefix="tracemerge-", suffix=".tmsummary")
    os.close(fd)
    try:
        argv = [path, "--summarize", out, "--name", name] + (["--in-folder"] if in_folder else []) + flags
        answer = _native.run(argv)
        if answer["exit"] != 0:
            raise RuntimeError((answer.get("err") or "").strip() or f"tracemerge: {path}: no summary made")
        with open(out, "rb") as f:
            return f.read()
    finally:
        if os.path.exists(out):
            os.remove(out)


def inputs(argv_paths: list) -> list:
    """The files the paths name, as the core lists them (folders walked, names given, in order)."""
    import json
    answer = _native.run(argv_paths + ["--list", "--quiet"])
    if answer["exit"] != 0:
        raise RuntimeError((answer.get("err") or "").strip() or "tracemerge: no input files found")
    return json.loads(answer["out"])


def scan_argv(client, paths: list, flags: list, progress, folder: str) -> list:
    """Maps summarize() over the job's files on the client's workers; each summary goes into
    `folder` as it arrives (files numbered in the job's order: ties of one name keep it).
    progress('scan', files done, files) after each. The reduce's argv."""
    from distributed import as_completed
    listed = inputs(paths)
    futures = [client.submit(summarize, i["path"], i["name"], i["in_folder"], flags, pure=False,
                             key=f"tracemerge-summarize-{k}-{os.urandom(4).hex()}")
               for k, i in enumerate(listed)]
    where = {f.key: k for k, f in enumerate(futures)}
    names = [os.path.join(folder, f"{k:07d}.tmsummary") for k in range(len(listed))]
    done = 0
    try:
        for future in as_completed(futures):
            k = where[future.key]
            data = future.result()  # (a file's failure: raised here, naming it)
            with open(names[k], "wb") as f:
                f.write(data)
            future.release()
            done += 1
            if progress is not None and progress("scan", done, len(listed)) is False:
                raise Cancelled()
    finally:  # (what is left of a scan that failed or was cancelled: one call, not one per file)
        left = [f for f in futures if f.status == "pending"]
        if left:
            client.cancel(left)
    return names
