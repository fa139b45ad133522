"""Merge traces inside a Jupyter notebook with the single-file tracemerge page.

    from tracemerge_notebook import show
    show("profiler-output/", unit="step", start=2, end=4)

``show`` reads the files (a folder is walked like a folder dropped on the page, so its
files are named "<folder>/<relative path>" exactly as the CLI names them), embeds them
base64 into a copy of ``tracemerge.html`` and returns an object that Jupyter displays as
that page in an isolated ``<iframe srcdoc>``; the page merges them on load. Everything
stays in the notebook and the browser: nothing is uploaded.

Python standard library only. The page is looked up, in order: the ``page=`` argument,
``$TRACEMERGE_HTML``, next to this module, one folder up (``build/web/`` ships this module
in ``build/web/notebook/``), and ``build/web/`` of the source tree.
"""
import base64
import html
import json
import os
import pathlib
import re

__all__ = ["show", "TraceMergeView", "find_page"]

_HERE = pathlib.Path(__file__).resolve().parent
_MARKER = "<!-- tracemerge:preload -->"
# The core's kinds (what `only` takes), written into the page by web/build.mjs.
_KINDS_RE = re.compile(r'<script type="application/json" id="tm-kinds">(\[.*?\])</script>')


def _kinds(page_text):
    """The `only` values the page's core knows, or None for a page built without them."""
    m = _KINDS_RE.search(page_text)
    return json.loads(m.group(1)) if m else None


def find_page(page=None):
    """The path of tracemerge.html (raises FileNotFoundError naming the places tried)."""
    if page is not None:  # asked for one file: that one or an error, never another copy
        if not pathlib.Path(page).is_file():
            raise FileNotFoundError(f"no tracemerge.html at {page}")
        return pathlib.Path(page)
    candidates = [ os.environ.get("TRACEMERGE_HTML"), _HERE / "tracemerge.html",
                  _HERE.parent / "tracemerge.html", _HERE.parent.parent / "build" / "web" / "tracemerge.html"]
    tried = []
    for c in candidates:
        if not c:
            continue
        p = pathlib.Path(c)
        if p.is_file():
            return p
        tried.append(str(p))
    raise FileNotFoundError("tracemerge.html not found (build it with scripts/build.sh, or pass page=... "
                            "or set TRACEMERGE_HTML); tried: " + ", ".join(tried))


def _collect(path_or_files):
    """[(name, bytes, in_folder)] named like the CLI and the page: a folder "job" gives
    "job/<rel>" (found in a folder: its run is that folder), a file its own name. Accepts a
    path, an iterable of paths, or a dict {name: bytes}. As in the CLIs, a folder's regular
    files are taken (a link to a file as that file; not a link to a folder, a pipe or a
    broken link); the page reads them in the core's order (rules.order), whatever this one."""
    if isinstance(path_or_files, dict):
        return [(str(k), bytes(v), False) for k, v in path_or_files.items()]
    if isinstance(path_or_files, (str, os.PathLike)):
        path_or_files = [path_or_files]
    out = []
    for item in path_or_files:
        p = pathlib.Path(item).expanduser()
        if p.is_dir():
            label = p.resolve().name
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for f in sorted(files):
                    full = pathlib.Path(root) / f
                    if not full.is_file():
                        continue
                    rel = full.relative_to(p).as_posix()
                    out.append((f"{label}/{rel}", full.read_bytes(), True))
        elif p.is_file():
            out.append((p.name, p.read_bytes(), False))
        else:
            raise FileNotFoundError(f"no such file or folder: {item}")
    return out


def _check_options(options, kinds=None):
    known = {"start", "end", "unit", "only", "group", "offsets", "align", "gzip"}
    unknown = set(options) - known
    if unknown:
        raise TypeError(f"unknown option(s) {sorted(unknown)}; known: {sorted(known)}")
    if options.get("unit", "time") not in ("time", "step"):
        raise ValueError("unit must be 'time' or 'step'")
    if options.get("group", "source") not in ("source", "phase"):
        raise ValueError("group must be 'source' or 'phase'")
    if options.get("align", "none") not in ("none", "clocks", "steps"):
        raise ValueError("align must be 'none', 'clocks' or 'steps'")
    only = options.get("only")
    if isinstance(only, str):
        options["only"] = only = [only]
    for kind in only or []:
        if kinds is not None and kind not in kinds:
            raise ValueError(f"only: {kind!r} is not one of {kinds}")
    # A bound is what the page's field takes: whole Unix µs, a step, or a UTC date-time
    # ("2020-07-13 17:50:18.5"). Texts go to the page as they are; the core reads them
    # there and names what it cannot read, as it does for the CLI.
    for key in ("start", "end"):
        value = options.get(key)
        if isinstance(value, bool):
            raise TypeError(f"{key} must be a number or a text, not {value!r}")
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if value is not None:
            options[key] = str(value)
    offsets = options.get("offsets") or {}
    options["offsets"] = {str(k): int(v) for k, v in dict(offsets).items()}
    options["gzip"] = bool(options.get("gzip", False))
    return {k: v for k, v in options.items() if v is not None}


class TraceMergeView:
    """The single-file page with files preloaded. Jupyter calls _repr_html_()."""

    def __init__(self, files, options=None, page=None, height=820, merge=True):
        self.files = files
        self.page = find_page(page)
        self.options = _check_options(dict(options or {}), _kinds(self.page.read_text(encoding="utf-8")))
        self.height = int(height)
        self.merge = merge

    def html(self):
        """The whole page as one HTML document (save it, or open it in a browser)."""
        page = self.page.read_text(encoding="utf-8")
        if _MARKER not in page:
            raise ValueError(f"{self.page} has no preload marker; rebuild it with node web/build.mjs")
        data = {
            "files": [{"name": n, "data": base64.b64encode(b).decode("ascii"), "inFolder": f} for n, b, f in self.files],
            "options": self.options,
            "merge": self.merge,
        }
        # "<" only occurs inside JSON strings, where \u003c means the same: nothing can end the element.
        text = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
        return page.replace(_MARKER, f'<script type="application/json" id="tm-preload">{text}</script>', 1)

    def save(self, path):
        pathlib.Path(path).write_text(self.html(), encoding="utf-8")
        return path

    def _repr_html_(self):
        # srcdoc isolates the page (its CSS, scripts and CSP) from the notebook; no
        # allow-same-origin, so it cannot reach the notebook's origin either. In ASCII
        # (character references for the rest), the page's scripts arrive as written in a
        # notebook page of any encoding: else their CSP hashes fail (WebKit) and nothing runs.
        doc = html.escape(self.html(), quote=True).encode("ascii", "xmlcharrefreplace").decode("ascii")
        return ('<iframe title="tracemerge" style="width:100%;height:{h}px;border:1px solid #ccc;border-radius:6px" '
                'sandbox="allow-scripts allow-downloads allow-popups allow-popups-to-escape-sandbox allow-modals" '
                'srcdoc="{doc}"></iframe>').format(h=self.height, doc=doc)

    def __repr__(self):
        size = sum(len(b) for _, b, _ in self.files)
        return f"<TraceMergeView: {len(self.files)} files, {size} bytes, options={self.options}>"


def show(path_or_files, *, page=None, height=820, merge=True, max_mb=512, **options):
    """Returns the page with these files preloaded; Jupyter displays it and it merges them.

    path_or_files: a folder, a file, a list of them, or a dict {name: bytes}.
    options: start, end (Unix µs, a UTC date-time text such as "2020-07-13 17:50:18.5", or
    steps), unit ('time' | 'step'), only (list of 'pythontimeline.json', 'model_timeline.json',
    'horovod_timeline.json', 'trace.json.gz', 'system', 'other', 'xplane.pb'), group ('source' | 'phase'),
    offsets ({path: µs}), align ('none' | 'clocks' | 'steps'), gzip (bool).
    """
    files = _collect(path_or_files)
    total = sum(len(b) for _, b, _ in files)
    if total > max_mb * 1e6:
        raise ValueError(f"{total / 1e6:.0f} MB is a lot to embed in a notebook (max_mb={max_mb}); "
                         "use the web page or the CLI for jobs this large, or raise max_mb")
    _check_options(dict(options))  # wrong names and types first, before reading any page
    return TraceMergeView(files, options, page=page, height=height, merge=merge)
