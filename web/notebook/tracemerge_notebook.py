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
# The core's kinds (what `only` takes) and the options the page takes with the core's spec of
# each (core/args.h OptionSpec), written into the page by web/build.mjs.
_KINDS_RE = re.compile(r'<script type="application/json" id="tm-kinds">(\[.*?\])</script>')
_OPTIONS_RE = re.compile(r'<script type="application/json" id="tm-options">(\[.*?\])</script>', re.S)


def _kinds(page_text):
    """The `only` values the page's core knows, or None for a page built without them."""
    m = _KINDS_RE.search(page_text)
    return json.loads(m.group(1)) if m else None


def _page_options(page_text, page):
    """{key: spec} of the options the page takes (raises ValueError for a page built without)."""
    m = _OPTIONS_RE.search(page_text)
    if not m:
        raise ValueError(f"{page} does not say which options it takes; rebuild it with node web/build.mjs")
    return {o["key"]: o for o in json.loads(m.group(1))}


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


def _check_options(options, specs, kinds=None):
    """The options as the page takes them, checked by the core's spec of each (`specs`): a
    switch a bool, a list for `only` (kinds the page's core knows), {path: µs} for offsets,
    a choice among its choices; a bound stays a text the page's core reads (whole Unix µs, a
    step, or a UTC date-time such as "2020-07-13 17:50:18.5") and names if it cannot."""
    unknown = set(options) - set(specs)
    if unknown:
        raise TypeError(f"unknown option(s) {sorted(unknown)}; known: {sorted(specs)}")
    out = {}
    for key, spec in specs.items():
        value, takes = options.get(key), spec["takes"]
        if takes == "nothing":
            out[key] = bool(value)
        elif takes == "path=us":
            out[key] = {str(k): int(v) for k, v in dict(value or {}).items()}
        elif value is None:
            continue
        elif takes == "each":
            out[key] = [value] if isinstance(value, str) else list(value)
            for kind in out[key]:
                if kinds is not None and kind not in kinds:
                    raise ValueError(f"{key}: {kind!r} is not one of {kinds}")
        else:
            if isinstance(value, bool):
                raise TypeError(f"{key} must be a number or a text, not {value!r}")
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            out[key] = str(value)
            if spec["choices"] and out[key] not in spec["choices"]:
                raise ValueError(f"{key} must be one of {spec['choices']}, not {out[key]!r}")
    return out


class TraceMergeView:
    """The single-file page with files preloaded. Jupyter calls _repr_html_()."""

    def __init__(self, files, options=None, page=None, height=820, merge=True):
        self.files = files
        self.page = find_page(page)
        text = self.page.read_text(encoding="utf-8")
        self.options = _check_options(dict(options or {}), _page_options(text, self.page), _kinds(text))
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
    return TraceMergeView(files, options, page=page, height=height, merge=merge)
