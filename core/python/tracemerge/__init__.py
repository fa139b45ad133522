"""tracemerge: merge profiler traces into one timeline (the C++ core, in this process).

    from tracemerge import MergedTimeline            # smdebug's interface, one import changed
    MergedTimeline("profiler-output/").merge_timeline(3, 9, unit="step")   # → the file written

    import tracemerge
    report = tracemerge.merge(["rank0.json.gz", "rank1.json.gz"], output="ranks.json", align="clocks")
    report["clock_check"]["hosts"], report.warnings, report.summary
    tracemerge.scan("profiler-output/")["overview"]  # the job described, nothing written
    tracemerge.show("profiler-output/", unit="step", start=2, end=4)   # the page, in a notebook

The merge is the CLI's — the same core, flags and bytes (`tracemerge.merge(paths,
**options)` runs `tracemerge PATH… --option …`) — through the core's C ABI; the GIL is
released while it runs. Errors are TraceMergeError(code, message, file, offset).
"""
from __future__ import annotations

import enum
import errno
import json
import os
import pathlib
import socket
import sys
import tempfile
from collections.abc import Mapping
from typing import Any, Callable, Iterator, List, Optional, Sequence, Union

PathLike = Union[str, "os.PathLike[str]"]
# progress(stage, done, total): "read" | "parse" (bytes), "plan" (stages), "write" (events); False cancels.
Progress = Callable[[str, int, int], Optional[bool]]

from . import _native

__all__ = ["merge", "scan", "show", "ScanView", "MergedTimeline", "MergeUnit", "smdebug_node_id", "Report", "TraceMergeError",
           "TraceMergeFileNotFoundError", "TraceMergePermissionError", "__version__"]

__version__ = _native.version()


class TraceMergeError(Exception):
    """A merge that failed as a whole: code (USAGE, NOT_A_TRACE, UNKNOWN_STEP, IO, CANCELLED, …),
    message, and where (file, byte offset) when it is about one place. A path that does not
    exist is also a FileNotFoundError, one that may not be written a PermissionError."""

    def __init__(self, code: str, message: str, file: str = "", offset: int = 0, report: Optional[Report] = None):
        super().__init__(f"{code}: {message}" + (f" ({file}" + (f" at byte {offset}" if offset else "") + ")" if file else ""))
        self.code, self.message, self.file, self.offset, self.report = code, message, file, offset, report

    def __str__(self) -> str:  # (the code and message, also where OSError would say errno and strerror)
        return BaseException.__str__(self)


class TraceMergeFileNotFoundError(TraceMergeError, FileNotFoundError):
    """An input or output folder that does not exist (TraceMergeError and FileNotFoundError)."""


class TraceMergePermissionError(TraceMergeError, PermissionError):
    """A path that may not be read or written (TraceMergeError and PermissionError)."""


def _error(code: str, message: str, file: str = "", offset: int = 0, report: Optional[Report] = None) -> TraceMergeError:
    """The TraceMergeError for what the core said; an OSError too when the system said why
    ("<path>: no such file or folder", "cannot write in <dir>: Permission denied")."""
    cls, number = TraceMergeError, None
    if message.endswith("no such file or folder") or message.endswith("No such file or directory"):
        cls, number = TraceMergeFileNotFoundError, errno.ENOENT
    elif message.endswith("Permission denied"):
        cls, number = TraceMergePermissionError, errno.EACCES
    if cls is not TraceMergeError and not file:  # the path it is about: "<path>: …", "cannot write in <dir>: …"
        head = message[len("cannot write in "):] if message.startswith("cannot write in ") else message
        file = head.rsplit(": ", 1)[0]
    e = cls(code, message, file, offset, report)
    if number is not None:
        e.errno, e.strerror, e.filename = number, os.strerror(number), file
    return e


class Report(Mapping):
    """A merge's report (the JSON the CLI writes with --report) as a read-only mapping, with
    summary (the CLI's text), warnings, output (the file written, or None) and fatal."""

    def __init__(self, result: dict, output: Optional[str]):
        self._report = result.get("report") or {}
        self.summary = result.get("summary", "")
        self.output = output or None
        self.fatal = result.get("fatal")

    def __getitem__(self, key: str) -> Any:
        return self._report[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._report)

    def __len__(self) -> int:
        return len(self._report)

    @property
    def warnings(self) -> List[dict]:
        """What went wrong or is unsure (severity error or warning), each with code, file, offset, message."""
        return [w for w in self._report.get("warnings", []) if w.get("severity") != "note"]

    @property
    def notes(self) -> List[dict]:
        """What the merge did that is worth knowing (severity note: a clock placed, a file split by rank, …)."""
        return [w for w in self._report.get("warnings", []) if w.get("severity") == "note"]

    def __repr__(self) -> str:
        w = self.warnings
        return (f"<tracemerge.Report: {len(self._report.get('sources', []))} sources, {self._report.get('events', 0)} "
                f"events written, {len(w)} warnings{', output ' + self.output if self.output else ''}>")


def _args(paths, output, options):
    """The CLI's flags for these options, by the core's option table (`tracemerge --options`):
    start=, end= (Unix µs, a UTC date-time text or steps), unit=, only=, group=, offsets={path: µs},
    align=, gzip=, array=, report=, max_file_mb=, max_string_mb=, memory_mb=, threads=,
    output_dir=, name_tag=, scan=."""
    argv = _paths(paths)
    if output is not None:
        argv += ["-o", os.fspath(output)]
    return argv + _flags(options)


def _paths(paths):
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    argv = [os.fspath(p) for p in paths]
    if not argv:
        raise TraceMergeError("USAGE", "no input: give a folder or files")
    return argv


def _flags(options):
    argv = []
    table = _native.option_table()
    for key, value in options.items():
        spec = table.get(key)
        if spec is None:
            raise TypeError(f"unknown option {key!r}; known: {', '.join(sorted(table))}")
        if value is None or value is False:
            continue
        flag, takes = spec["flag"], spec["takes"]
        if takes == "nothing":
            argv.append(flag)
        elif takes == "each":
            for item in [value] if isinstance(value, str) else value:
                argv += [flag, str(item)]
        elif takes == "path=us":
            for path, us in dict(value).items():
                argv += [flag, f"{path}={int(us)}"]
        else:
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            argv += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return argv + ["--quiet"]


def _progress_bar(progress):
    """progress=None: a tqdm bar when tqdm is importable and stderr a terminal or a notebook; else none."""
    if progress is not None:
        return progress, None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None, None
    bar = tqdm(total=1.0, unit="", bar_format="{l_bar}{bar}| {elapsed}<{remaining}", leave=False)
    shares = {"read": (0, 0.5), "parse": (0, 0.5), "scan": (0, 0.9), "plan": (0.5, 0.6), "write": (0.6, 1.0)}

    def update(stage, done, total):
        lo, hi = shares.get(stage, (0, 0))
        value = lo + (hi - lo) * (done / total if total else 1)
        if value > bar.n:
            bar.set_description(stage)
            bar.update(value - bar.n)
    return update, bar


def _run(paths, output, options, progress, client=None):
    update, bar = _progress_bar(progress)
    try:
        if client is None:
            answer = _native.run(_args(paths, output, options), update)
        else:
            answer = _run_on(client, paths, options, update)
    finally:
        if bar is not None:
            bar.close()
    return _report(answer)


def _run_on(client, paths, options, update):
    """The scan's map on the client's workers, its reduce here (_cluster.py)."""
    from . import _cluster
    flags = _flags(options)
    with tempfile.TemporaryDirectory(prefix="tracemerge-scan-") as folder:
        try:
            summaries = _cluster.scan_argv(client, _paths(paths), flags, update, folder)
        except _cluster.Cancelled:
            raise _error("CANCELLED", "merge cancelled") from None
        except RuntimeError as e:  # (what the core said of a file: "tracemerge: <file>: …")
            text = str(e).strip().splitlines()[0] if str(e).strip() else "a worker made no summary"
            raise _error("IO", text[len("tracemerge: "):] if text.startswith("tracemerge: ") else text) from None
        return _native.run(summaries + flags, update)


def _report(answer):
    result = answer.get("result")
    if answer["exit"] == 2 or result is None:  # usage, or nothing found to merge
        text = (answer.get("err") or "").strip().splitlines()
        first = text[0] if text else "the merge did not run"
        raise _error("USAGE" if answer["exit"] == 2 else "IO", first[len("tracemerge: "):] if first.startswith("tracemerge: ") else first)
    if result.get("fatal"):
        f = result["fatal"]
        raise _error(f["code"], f["message"], f.get("file", ""), f.get("offset", 0), Report(result, None))
    if answer["exit"] != 0:
        message = (answer.get("err") or "").strip()
        raise _error("IO", message[len("tracemerge: "):] if message.startswith("tracemerge: ") else message,
                     report=Report(result, None))
    return Report(result, answer.get("output"))


def merge(paths: Union[PathLike, Sequence[PathLike]], output: Optional[PathLike] = None, *,
          progress: Optional[Progress] = None, **options: Any) -> Report:
    """Merges a folder or files (a path or a list of them) into `output` (default: the
    reference's name, <end_us>_merged_timeline.json, in the first folder given, or in
    output_dir=); returns the Report. Options are the CLI's, by name: start, end, unit
    ('time' | 'step'), only, group ('source' | 'phase'), offsets ({path: µs}), align
    ('clocks' | 'steps'), gzip, array (a bare JSON array of events, smdebug's shape), report
    (also write the report as JSON), max_file_mb, max_string_mb, memory_mb, threads (default:
    the machine's cores), output_dir, name_tag (<end_us>_<tag>_merged_timeline.json).
    progress(stage, done, total): 'read', 'parse' (bytes), 'plan' (stages), 'write' (events);
    return False to cancel. Without it, a tqdm bar when tqdm is installed."""
    if options.pop("client", None) is not None:
        raise TraceMergeError("USAGE", "the merge on a cluster is not built yet: scan(paths, client=...) is; "
                                       "merge(paths) here merges in this process")
    return _run(paths, output, options, progress)


def scan(paths: Union[PathLike, Sequence[PathLike]], *, progress: Optional[Progress] = None, client: Any = None,
         **options: Any) -> Report:
    """Describes the job without writing it: its span, steps, sources, clock check, waits,
    warnings, and the page's overview (report['overview']).

    client: a dask.distributed.Client — each file's summary is made on its workers (the paths
    must be readable there: a shared file system), the job described here from the summaries,
    by the same stages; the report is the same as without one. progress then also says
    'scan' (files summarized, of all)."""
    return _run(paths, None, {**options, "scan": True}, progress, client)


class MergeUnit(str, enum.Enum):
    """smdebug's MergeUnit, an Enum whose members are also their text: MergeUnit.STEP == "step"."""
    TIME = "time"
    STEP = "step"

    def __str__(self) -> str:
        return self.value


def smdebug_node_id() -> str:
    """smdebug's node id for the merging process (its get_node_id): "<rank>-<host>" — the rank
    of an initialised torch.distributed or Horovod, else the pid; the host SageMaker's resource
    config names (current_host), else "<rank>_<hostname>" — with "_" made "-"."""
    rank = None
    for name in ("torch.distributed", "horovod.torch", "horovod.tensorflow"):
        mod = sys.modules.get(name)
        try:
            if mod is not None and name == "torch.distributed" and mod.is_available() and mod.is_initialized():
                rank = mod.get_rank()
            elif mod is not None and name != "torch.distributed" and mod.is_initialized():
                rank = mod.rank()
        except Exception:  # (a half-initialised framework says nothing)
            pass
        if rank is not None:
            break
    rank = os.getpid() if rank is None else rank
    host = None
    try:
        host = json.loads(pathlib.Path("/opt/ml/input/config/resourceconfig.json").read_text()).get("current_host")
    except (OSError, ValueError, AttributeError):
        pass
    return (f"{rank}-{host}" if host else f"{rank}_{socket.gethostname()}").replace("_", "-")


class MergedTimeline:
    """smdebug's MergedTimeline, on the tracemerge core: the same signature, output place,
    name and shape, none of its losses (B/E pairs, instants, counters and flows are kept; an
    empty window is valid JSON with a warning, not a 0-byte file).

        MergedTimeline(path, file_suffix_filter=None, output_directory=None).merge_timeline(start, end, unit="time")

    path: the profiler-output folder (local; smdebug's S3 paths are not read here).
    file_suffix_filter: smdebug's suffixes ("pythontimeline.json", "model_timeline.json",
    "trace.json.gz", "horovod_timeline.json"); None merges every kind. System metrics are
    merged either way, as smdebug appends them.
    output_directory: where <end_us>_<node_id>_merged_timeline.json goes (default: path; made
    when missing), node_id smdebug's (smdebug_node_id()). The file is smdebug's shape, a JSON
    array of events; merge_timeline(..., array=False) writes tracemerge's object form, with
    the report in its metadata.
    """

    def __init__(self, path: PathLike, file_suffix_filter: Union[None, str, Sequence[str]] = None,
                 output_directory: Optional[PathLike] = None):
        self.path = os.fspath(path)
        if self.path.startswith("s3://"):
            raise TraceMergeError("USAGE", "S3 paths are not read here: copy the profiler output locally "
                                           "(aws s3 sync …) and give its folder")
        # (smdebug's paths: "merged/" and "merged" alike; its folder made when missing, as smdebug does)
        self.out_dir = os.path.normpath(os.fspath(output_directory)) if output_directory is not None else self.path
        self.file_suffix_filter = file_suffix_filter
        self.last_report = None

    def merge_timeline(self, start: Union[int, float, str], end: Union[int, float, str],
                       unit: Union[MergeUnit, str] = MergeUnit.TIME, sys_metrics_filter: Any = None,
                       **options: Any) -> Optional[str]:
        """Merges the window [start, end] — Unix µs (unit 'time') or steps (unit 'step': from
        the start step's first event to 1 µs before the end step's, as smdebug) — and returns
        the path written. `sys_metrics_filter` (smdebug's low-GPU markers) is not drawn: the
        system metrics are merged as counters. Other keyword arguments are merge()'s."""
        unit = getattr(unit, "value", unit)
        only = None
        if self.file_suffix_filter:
            suffixes = self.file_suffix_filter
            if isinstance(suffixes, (str, bytes, os.PathLike)):  # one suffix, as a string
                suffixes = [os.fsdecode(suffixes)]
            only = list(suffixes) + ["system"]
        os.makedirs(self.out_dir, exist_ok=True)
        options = {"array": True, "name_tag": smdebug_node_id(), **options}
        self.last_report = merge(self.path, start=start, end=end, unit=unit, only=only, output_dir=self.out_dir,
                                 **options)
        return self.last_report.output


# ---- the notebook ---------------------------------------------------------------------------
SHOW_MERGE_MB = 32  # beyond this, show() merges in the kernel and embeds only the merged window
SHOW_CELL_MB = 48   # no cell show() returns is larger: the page (~1.3 MB) and its data, base64


class ScanView:
    """What show() returns when even the merged window, gzipped, would not fit in a cell: the
    job as the scan describes it (span, steps, clock check, who waits) and how to ask for a
    window that fits. Jupyter displays it as text; str() is the same."""

    def __init__(self, report: Report, cell_bytes: int, cell_mb: float, options: dict):
        self.report, self.cell_bytes, self.cell_mb, self.options = report, cell_bytes, cell_mb, options

    def advice(self) -> str:
        steps = [s[0] for s in (self.report.get("job") or {}).get("steps", [])]
        if str(self.options.get("unit", "time")) == "step":  # (the window's steps: its end step excluded)
            lo, hi = self.options.get("start"), self.options.get("end")
            steps = [n for n in steps if (lo is None or n >= int(lo)) and (hi is None or n < int(hi))]
        window = ", ".join(f"{k}={v!r}" for k, v in self.options.items() if k in ("start", "end", "unit"))
        text = (f"The page with the merged trace{' of ' + window if window else ''}, gzipped, would be a "
                f"{self.cell_bytes / 1e6:.1f} MB cell: more than show() makes (cell_mb={self.cell_mb:g}). "
                "Ask for a smaller window")
        if len(steps) >= 2:  # (steps take about the same room each)
            fit = int(len(steps) * self.cell_mb / (self.cell_bytes / 1e6) * 0.8)
            if fit >= 1:
                text += (f", e.g. show(..., unit='step', start={steps[0]}, end={steps[min(fit, len(steps) - 1)]}) "
                         f"(the window has steps {steps[0]}–{steps[-1]}; about {fit} fit)")
        return text + ", or open the job in the web page or with the CLI."

    def __str__(self) -> str:
        return self.advice() + "\n\n" + self.report.summary

    def _repr_html_(self) -> str:
        import html as _html
        return (f"<div><p><b>tracemerge</b>: {_html.escape(self.advice())}</p>"
                f"<pre style=\"white-space:pre-wrap\">{_html.escape(self.report.summary)}</pre></div>")


def _helper():
    """The page's notebook helper (web/notebook/tracemerge_notebook.py; the wheel ships it as _notebook)."""
    try:
        from . import _notebook as nb  # (the wheel ships the page's notebook helper here)
    except ImportError:  # the source tree
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "web" / "notebook"))
        import tracemerge_notebook as nb
    return nb


def show(path_or_files: Any, *, page: Optional[PathLike] = None, height: int = 820, merge_mb: float = SHOW_MERGE_MB,
         cell_mb: float = SHOW_CELL_MB, **options: Any) -> Any:
    """The page in a notebook cell with these files merged — never a cell over cell_mb MB. Up to
    merge_mb MB of input the files themselves go into the page (it merges them); beyond, the
    core merges them here, with the options' window, and the page gets that window, gzipped;
    when even that would not fit, a ScanView: the job described (steps, clock check, who waits)
    and a window to ask for."""
    nb = _helper()
    if page is None and (pathlib.Path(__file__).parent / "tracemerge.html").is_file():
        page = pathlib.Path(__file__).parent / "tracemerge.html"
    cell = cell_mb * 1e6
    room = cell - nb.find_page(page).stat().st_size * 1.1  # for the data, base64 (4 bytes per 3); the page escaped
    paths = [path_or_files] if isinstance(path_or_files, (str, os.PathLike)) else path_or_files
    if isinstance(paths, (list, tuple)) and all(isinstance(p, (str, os.PathLike)) for p in paths):
        total = 0
        for p in paths:
            p = pathlib.Path(p).expanduser()
            total += sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir() else p.stat().st_size
        if total > merge_mb * 1e6 or total * 4 / 3 > room:
            window = {k: options.pop(k) for k in ("start", "end", "unit", "only", "offsets", "align", "group")
                      if k in options}
            with tempfile.TemporaryDirectory() as tmp:
                r = merge(paths, output_dir=tmp, gzip=True, **window)
                data = pathlib.Path(r.output).read_bytes()
            view = nb.show({os.path.basename(r.output): data}, page=page, height=height, **options)
            size = len(view._repr_html_())
            return view if size <= cell else ScanView(scan(paths, **window), size, cell_mb, window)
    return nb.show(path_or_files, page=page, height=height, **options)
