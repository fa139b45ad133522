"""The packages scripts/package.sh builds into dist/, each installed and used in a clean place:
the wheel in a fresh venv (offline) running smdebug's documented calls unchanged, the npm
package in an empty project running its README's example, the static-site zip, and
`cmake --install` of the CLI — all of one version, the CMake project's.

    python3 -m unittest discover -s tests/packages      (after scripts/package.sh)
"""
import json
import os
import platform
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
CLI = ROOT / "build" / "native" / "tracemerge"
CORPUS = ROOT.parent / "shared" / "corpus"
MERGE_TRACES = CORPUS / "smdebug" / "tests" / "profiler" / "resources" / "merge_traces"
HOST_WHEEL = f"tracemerge-*-py3-none-*{platform.machine()}.whl"  # the wheel this machine installs
VERSION = re.search(r"project\(tracemerge VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


def one(pattern):
    found = sorted(DIST.glob(pattern))
    if len(found) != 1:
        raise AssertionError(f"dist/ holds {[p.name for p in found]} for {pattern}: run scripts/package.sh")
    return found[0]


def cli(*args, cwd=None):
    r = subprocess.run([str(CLI), *map(str, args), "--quiet"], cwd=cwd, capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    return r


class Wheel(unittest.TestCase):
    """pip install dist/tracemerge-*.whl into a fresh venv, offline; smdebug's calls, unchanged but the import."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracemerge-wheel-"))
        venv = cls.tmp / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        cls.python = venv / "bin" / "python"
        r = subprocess.run([str(cls.python), "-m", "pip", "install", "--no-index", "--quiet", str(one(HOST_WHEEL))],
                           capture_output=True)
        assert r.returncode == 0, r.stderr.decode()
        # The job, copied: smdebug writes into it.
        cls.job = cls.tmp / "profiler-output"
        shutil.copytree(MERGE_TRACES, cls.job)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def py(self, code, cwd=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRACEMERGE")}
        env["PYTHONPATH"] = ""  # the installed package only, not the source tree's
        r = subprocess.run([str(self.python), "-c", code], capture_output=True, cwd=cwd or self.tmp, env=env)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return r.stdout.decode()

    def test_smdebugs_documented_calls_write_where_smdebug_does_the_cli_bytes(self):
        out = self.tmp / "out"
        out.mkdir()
        now_us = int(time.time() * 1e6)
        # smdebug's documentation, with "from smdebug.profiler.analysis.utils.merge_timelines" → "from tracemerge".
        written = json.loads(self.py(f"""
import json, os, socket
from tracemerge import MergedTimeline, smdebug_node_id
combined_timeline = MergedTimeline({str(self.job)!r}, output_directory={str(out)!r})
a = combined_timeline.merge_timeline(0, {now_us})
b = combined_timeline.merge_timeline(3, 9, unit="step")
c = MergedTimeline({str(self.job)!r}, file_suffix_filter=["pythontimeline.json"], output_directory={str(out)!r}).merge_timeline(0, {now_us})
d = MergedTimeline({str(self.job)!r}, file_suffix_filter=["pythontimeline.json"], output_directory={str(self.tmp / "object")!r}).merge_timeline(0, {now_us}, array=False)
print(json.dumps([a, b, c, d, smdebug_node_id(), f"{{os.getpid()}}-{{socket.gethostname()}}".replace("_", "-")]))
"""))
        a, b, c, d = map(pathlib.Path, written[:4])
        node, expected_node = written[4:]
        self.assertEqual(node, expected_node, "smdebug's node id off SageMaker: <pid>-<hostname>")
        self.assertEqual(a, out / f"{now_us}_{node}_merged_timeline.json", "smdebug's place and name")
        self.assertEqual(c, a, "the same window: the same name (the suffix filter's output replaces it)")
        self.assertEqual(b.parent, out)
        # smdebug's shape, a JSON array of events: the object form's traceEvents (c's: it replaced a).
        array, obj = json.loads(a.read_text()), json.loads(d.read_text())
        self.assertIsInstance(array, list)
        self.assertEqual(array, obj["traceEvents"])
        self.assertTrue([e for e in array if e["ph"] == "X"], "scripts' [e for e in json.load(f) if e['ph'] == 'X'] work")
        # The same events as the CLI keeps: byte for byte, with the same flags.
        e = self.tmp / "cli"
        e.mkdir()
        cli(self.job, "--start", 3, "--end", 9, "--unit", "step", "--output-dir", e, "--array", "--name-tag", node)
        (expected,) = e.iterdir()
        self.assertEqual(expected.name, b.name)
        self.assertEqual(expected.read_bytes(), b.read_bytes())
        cli(self.job, "--start", 0, "--end", now_us, "--only", "pythontimeline.json", "--only", "system", "--array",
            "-o", e / "c.json")
        self.assertEqual((e / "c.json").read_bytes(), c.read_bytes())
        events = json.loads(c.read_text())
        self.assertTrue(events)
        self.assertTrue(all("pythontimeline" in e["args"]["name"] for e in events if e.get("name") == "process_name"))

    def test_smdebugs_calls_as_people_write_them_a_new_folder_a_trailing_slash_one_suffix(self):
        # smdebug makes output_directory when missing, takes "merged/" as "merged", and a single
        # suffix as a string (issue 35).
        now_us = int(time.time() * 1e6)
        work = self.tmp / "loose"
        work.mkdir()
        written = json.loads(self.py(f"""
import json
from tracemerge import MergedTimeline, smdebug_node_id
a = MergedTimeline({str(self.job)!r}, output_directory="merged/").merge_timeline(0, {now_us})
b = MergedTimeline({str(self.job)!r}, file_suffix_filter="pythontimeline.json", output_directory="one").merge_timeline(0, {now_us})
print(json.dumps([a, b, smdebug_node_id()]))
""", cwd=work))
        a, b, node = written
        self.assertNotIn("//", a)
        self.assertEqual(pathlib.Path(work, a), work / "merged" / f"{now_us}_{node}_merged_timeline.json")
        self.assertTrue((work / a).is_file())
        names = [e["args"]["name"] for e in json.loads((work / b).read_text()) if e.get("name") == "process_name"]
        self.assertTrue(names)
        self.assertTrue(all("pythontimeline" in n for n in names), names)

    def test_every_fatal_error_ends_within_seconds_and_leaves_nothing(self):
        # Issue 41: every entry point ends. Each fatal error class, with the parse on two threads,
        # raises within seconds with its code, and no output or temporary file is left.
        work = self.tmp / "fatal"
        work.mkdir()
        (work / "notes").mkdir()
        (work / "notes" / "hello.json").write_text('{"hello": "world"}')
        got = json.loads(self.py(f"""
import json, os, time, tracemerge
job = {str(self.job)!r}
cases = [("UNKNOWN_STEP", dict(paths=job, unit="step", start=1, end=99999)),
         ("NOT_A_TRACE", dict(paths="notes")),
         ("USAGE", dict(paths=job, unit="week")),
         ("USAGE", dict(paths=job, offsets={{"no-such-file.json": 5}})),
         ("IO", dict(paths=job, output="missing/folder/out.json")),
         ("IO", dict(paths="no/such/input")),
         ("CANCELLED", dict(paths=job, progress=lambda s, d, t: s != "plan"))]
out = []
for code, kw in cases:
    t0 = time.monotonic()
    try:
        tracemerge.merge(kw.pop("paths"), **{{"output": "out.json", "threads": 2, **kw}})
        got = "merged"
    except tracemerge.TraceMergeError as e:
        got = e.code
    out.append([code, got, time.monotonic() - t0, sorted(os.listdir("."))])
print(json.dumps(out))
""", cwd=work))
        for code, got, seconds, files in got:
            self.assertEqual(got, code)
            self.assertLess(seconds, 10, code)
            self.assertEqual(files, ["notes"], f"{code}: no output, no temporary file")

    def test_errors_a_python_user_can_catch(self):
        # A missing input is a FileNotFoundError, an unwritable output a PermissionError (both
        # TraceMergeError with the path); an --offset that names no file an error naming it; notes
        # apart from warnings.
        got = json.loads(self.py(f"""
import json, tracemerge
out = {{}}
def catch(name, **kw):
    try:
        tracemerge.merge(kw.pop("paths", {str(self.job)!r}), **kw)
        out[name] = None
    except tracemerge.TraceMergeError as e:
        out[name] = [type(e).__name__, isinstance(e, FileNotFoundError), isinstance(e, PermissionError), e.code, e.file,
                     getattr(e, "errno", None), e.message]
catch("missing", paths="no/such/folder", output="x.json")
catch("unwritable", output="/sys/merged.json")
catch("offset", output="o.json", offsets={{"rank-9.json": 100}})
r = tracemerge.merge({str(self.job)!r}, output="n.json", unit="step", start=2, end=4)
out["counts"] = [len(r.warnings), len(r.notes), len(r["warnings"])]
out["severities"] = sorted({{w["severity"] for w in r.notes}}) + sorted({{w["severity"] for w in r.warnings}})
print(json.dumps(out))
"""))
        self.assertEqual(got["missing"][:6], ["TraceMergeFileNotFoundError", True, False, "IO", "no/such/folder", 2])
        self.assertEqual(got["unwritable"][:6], ["TraceMergePermissionError", False, True, "IO", "/sys", 13])
        self.assertEqual(got["offset"][:5], ["TraceMergeError", False, False, "USAGE", "rank-9.json"])
        self.assertIn("names no input file", got["offset"][6])
        warnings, notes, all_ = got["counts"]
        self.assertEqual(warnings + notes, all_)
        self.assertTrue(set(got["severities"]) <= {"note", "warning", "error"})

    def test_the_readmes_python_blocks_run_as_written(self):
        # Every ```python block of the README's Python part, in a folder holding the smdebug job as
        # "profiler-output/" and "job/", with now_us set as a notebook would.
        readme = (ROOT / "README.md").read_text()
        part = readme[readme.index("## From smdebug"):]
        part = part[:part.index("\n## ", 3)]
        blocks = re.findall(r"```python\n(.*?)```", part, re.S)
        self.assertGreaterEqual(len(blocks), 2)
        work = self.tmp / "readme"
        for name in ("profiler-output", "job"):
            shutil.copytree(MERGE_TRACES, work / name)
        for block in blocks:
            self.py("import time\nnow_us = int(time.time() * 1e6)\n" + block, cwd=work)
        written = sorted(p.name for p in (work / "merged").iterdir())
        self.assertEqual(len(written), 2, written)
        self.assertTrue(all(re.fullmatch(r"\d+_\d+-[\w.-]+_merged_timeline\.json", n) for n in written), written)
        self.assertIsInstance(json.loads((work / "merged.json").read_text()), dict, "merge() writes the object form")

    def test_sagemaker_multi_node_tf_traces_keep_their_clocks_in_a_step_window(self):
        # SageMaker's layout: a step folder holds every node's sidecar (named by node id) and
        # every node's TF trace (named by hostname). smdebug's calls, a step and a time window.
        job = self.tmp / "sagemaker"
        subprocess.run([sys.executable, str(ROOT / "tests/bench/gen_ranks.py"), str(job), "--sagemaker", "--hosts", "3",
                        "--steps", "14", "--tf-steps", "5-12", "--offsets-us", "0,0,0", "--seed", "77"], check=True)
        truth = json.loads((self.tmp / "sagemaker.truth.json").read_text())
        out = self.tmp / "sm-out"
        out.mkdir()
        t0 = 1_700_000_000_000_000  # the generator's base
        written = json.loads(self.py(f"""
import json
from tracemerge import MergedTimeline
m = MergedTimeline({str(job)!r}, output_directory={str(out)!r})
print(json.dumps([m.merge_timeline(5, 12, unit="step", array=False), m.merge_timeline({t0 + 100000}, {t0 + 200000}, array=False)]))
"""))
        for path in written:
            merged = json.loads(pathlib.Path(path).read_text())
            report = merged["metadata"]["tracemerge"]
            sources = {s["path"].split("/", 1)[1]: s for s in report["sources"]}
            for t in truth["tf"]:
                s = sources[t["path"].split("/", 1)[1]]
                self.assertEqual(s["time_base_value"], t["sidecar"], s["time_base_why"])
                self.assertEqual(s["identity"]["host"], t["host"])
            self.assertFalse([w for w in report["warnings"] if w["code"] in ("NO_CLOCK", "UNSURE_CLOCK")])
            tf_kept = sum(s["kept"] for s in report["sources"] if s["kind"] == "tf_trace")
            self.assertGreater(tf_kept, 300, "the TF events of the window's steps")

    def test_xspaces_merge_as_the_cli_merges_them_and_only_takes_their_kind(self):
        # A JAX job of two hosts (gen_xplane.py) beside the corpus's real XSpace and an smdebug job.
        job = self.tmp / "jax"
        subprocess.run([sys.executable, str(ROOT / "tests/bench/gen_xplane.py"), str(job / "gen"), "--hosts", "2",
                        "--seed", "3131"], check=True, capture_output=True)
        shutil.copytree(CORPUS / "real" / "xprof_gpu_multi_worker", job / "real")
        shutil.copytree(MERGE_TRACES, job / "smdebug")
        got = json.loads(self.py(f"""
import json, tracemerge
r = tracemerge.merge({str(job)!r}, output="xp.json")
only = tracemerge.merge({str(job)!r}, output="xp-only.json", only=["xplane.pb"])
print(json.dumps({{"kinds": sorted({{s["kind"] for s in only["sources"] if s["included"]}}),
                  "planes": sum(s["kind"] == "xplane" and s["included"] for s in r["sources"])}}))
"""))
        self.assertEqual(got["kinds"], ["xplane"])
        self.assertGreater(got["planes"], 3, "a source per plane, of three files")
        self.assertEqual((self.tmp / "xp.json").read_bytes(), cli(job, "-o", "-").stdout)
        self.assertEqual((self.tmp / "xp-only.json").read_bytes(), cli(job, "--only", "xplane.pb", "-o", "-").stdout)

    def test_cancel_while_reading_cancels_the_merge_and_writes_nothing(self):
        # Returning False, or raising KeyboardInterrupt, in the progress callback while the files
        # are read ends the whole merge: CANCELLED (or the interrupt), no output, no temporary file
        # (it used to end only that file's read and write the rest, issue 35).
        work = self.tmp / "cancel"
        work.mkdir()
        got = json.loads(self.py(f"""
import json, os
import tracemerge
stages = []
def stop_reading(stage, done, total):
    stages.append(stage)
    return stage != "read"
try:
    tracemerge.merge({str(MERGE_TRACES)!r}, output="y.json", progress=stop_reading, threads=2)
    code = None
except tracemerge.TraceMergeError as e:
    code = e.code
def interrupt(stage, done, total):
    if stage == "read":
        raise KeyboardInterrupt
try:
    tracemerge.merge({str(MERGE_TRACES)!r}, output="z.json", progress=interrupt)
    interrupted = False
except KeyboardInterrupt:
    interrupted = True
print(json.dumps({{"code": code, "stages": stages, "interrupted": interrupted, "files": sorted(os.listdir("."))}}))
""", cwd=work))
        self.assertEqual(got["code"], "CANCELLED")
        self.assertEqual(got["stages"], ["read"], "nothing after the read that said stop")
        self.assertTrue(got["interrupted"])
        self.assertEqual(got["files"], [], "no output, no temporary file")

    def test_every_stage_is_reported_and_cancels_at_every_thread_count(self):
        # read, parse, plan and write are each reported at 1, 2 and 8 threads; False at any of
        # them — its first report or its last — or an exception there ends the merge: CANCELLED (or
        # the exception), no output, no temporary file, no warning about the files.
        work = self.tmp / "stages"
        work.mkdir()
        got = json.loads(self.py(f"""
import json, os, collections
import tracemerge
out = {{"seen": {{}}, "cancel": []}}
for threads in (1, 2, 8):
    seen = collections.Counter()
    tracemerge.merge({str(MERGE_TRACES)!r}, output="all.json", threads=threads,
                     progress=lambda s, d, t: seen.update([s]))
    os.remove("all.json")
    out["seen"][threads] = sorted(seen)
    for stage in ("read", "parse", "plan", "write"):
        for when in ("first", "last", "raise"):
            calls = collections.Counter()
            def stop(s, d, t):
                calls[s] += 1
                if s != stage:
                    return True
                if when == "raise":
                    raise RuntimeError("stop")
                return not (when == "first" or d == t)
            try:
                tracemerge.merge({str(MERGE_TRACES)!r}, output="c.json", threads=threads, progress=stop)
                result = "merged"
            except tracemerge.TraceMergeError as e:
                result = e.code
            except RuntimeError:
                result = "raised"
            out["cancel"].append([threads, stage, when, result, sorted(os.listdir("."))])
print(json.dumps(out))
""", cwd=work))
        for threads, seen in got["seen"].items():
            self.assertEqual(seen, ["parse", "plan", "read", "write"], f"{threads} threads")
        for threads, stage, when, result, files in got["cancel"]:
            self.assertEqual(result, "raised" if when == "raise" else "CANCELLED", f"{threads} threads, {stage} {when}")
            self.assertEqual(files, [], f"{threads} threads, {stage} {when}: no output, no temporary file")

    def test_merge_scan_errors_progress_threads_and_the_gil(self):
        out = self.py(f"""
import json, threading, time
import tracemerge
r = tracemerge.merge({str(MERGE_TRACES)!r}, output="all.json", threads=1)
r2 = tracemerge.merge({str(MERGE_TRACES)!r}, output="all2.json", threads=2)
stages = []
r3 = tracemerge.merge({str(MERGE_TRACES)!r}, output="all3.json", progress=lambda s, d, t: stages.append(s))
same = open("all.json", "rb").read() == open("all2.json", "rb").read() == open("all3.json", "rb").read()
s = tracemerge.scan({str(MERGE_TRACES)!r})
try:
    tracemerge.merge({str(MERGE_TRACES)!r}, unit="step", start=2, end=99)
    err = None
except tracemerge.TraceMergeError as e:
    err = [e.code, e.message]
cancelled = None
try:
    tracemerge.merge({str(MERGE_TRACES)!r}, output="x.json", progress=lambda s, d, t: s != "plan")
except tracemerge.TraceMergeError as e:
    cancelled = e.code
# The GIL is released during a merge: another thread runs meanwhile.
ticks, stop = [], threading.Event()
def tick():
    while not stop.is_set():
        ticks.append(time.monotonic())
t = threading.Thread(target=tick)
t.start()
time.sleep(0.05)
t0 = time.monotonic()
for _ in range(5):
    tracemerge.merge({str(CORPUS / 'real' / 'chrome_catapult')!r}, output="c.json")
t1 = time.monotonic()
stop.set(); t.join()
inside = sum(1 for x in ticks if t0 + 0.02 < x < t1 - 0.02)
print(json.dumps({{"version": tracemerge.__version__, "events": r["events"], "output": r.output, "summary": r.summary[:20],
  "same": same, "stages": sorted(set(stages)), "scan_overview": "overview" in s, "scan_events": s["events"],
  "err": err, "cancelled": cancelled, "ticks_inside": inside, "secs": t1 - t0,
  "warnings": len(r.warnings), "keys": sorted(r)}}))
""", cwd=self.tmp)
        got = json.loads(out)
        self.assertEqual(got["version"], VERSION)
        self.assertGreater(got["events"], 500)
        self.assertTrue(got["output"].endswith("all.json"))
        self.assertTrue(got["same"], "threads=1, 2 and with progress: the same bytes")
        self.assertLessEqual({"read", "plan", "write"}, set(got["stages"]), "(parse: only with threads=1)")
        self.assertTrue(got["scan_overview"])
        self.assertEqual(got["scan_events"], 0, "a scan writes nothing")
        self.assertEqual(got["err"][0], "UNKNOWN_STEP")
        self.assertIn("0-29", got["err"][1])
        self.assertEqual(got["cancelled"], "CANCELLED")
        self.assertGreater(got["ticks_inside"], 1000, f"another thread ran only {got['ticks_inside']} times in {got['secs']:.2f} s")
        self.assertIn("clock_check", got["keys"])
        self.assertEqual((self.tmp / "all.json").read_bytes(), cli(MERGE_TRACES, "-o", "-").stdout,
                         "merge_traces through the wheel: the CLI's bytes")

    def test_show_merges_a_big_folder_in_the_kernel_and_embeds_the_window_only(self):
        got = json.loads(self.py(f"""
import json, tracemerge
small = tracemerge.show({str(self.job)!r}, unit="step", start=2, end=4)
big = tracemerge.show({str(self.job)!r}, unit="step", start=2, end=4, merge_mb=0.001)
print(json.dumps({{"small": [n for n, _, _ in small.files], "small_options": small.options,
                   "big": [n for n, _, _ in big.files], "big_options": big.options, "html": len(big.html())}}))
"""))
        self.assertEqual(len(got["small"]), len(list(self.job.rglob("*.json"))), "small: the files themselves go into the page")
        self.assertEqual(got["small_options"]["unit"], "step")
        self.assertEqual(len(got["big"]), 1, "big: only the merged window")
        self.assertRegex(got["big"][0], r"^\d+_merged_timeline\.json\.gz$", "the window, gzipped")
        self.assertNotIn("unit", got["big_options"], "the window is applied already")
        self.assertGreater(got["html"], 500000, "the page, whole")

    def test_show_never_makes_a_cell_over_cell_mb(self):
        # Cell sizes measured (what Jupyter gets: _repr_html_()): the files, then the merged window
        # gzipped, each within cell_mb; below what the window needs, the job's scan and a window
        # to ask for — a cell of a few kB, never the page with more than fits.
        got = json.loads(self.py(f"""
import json, tracemerge
job = {str(self.job)!r}
# (the window's cell, measured: the page grows with the core, so the limits follow it)
window = len(tracemerge.show(job, unit="step", start=2, end=29, merge_mb=0.001)._repr_html_()) / 1e6
out = []
for cell_mb in (48, window * 1.02, window * 0.98):
    v = tracemerge.show(job, unit="step", start=2, end=29, cell_mb=cell_mb)
    out.append([cell_mb, type(v).__name__, len(v._repr_html_()), str(v)[:400] if type(v).__name__ == "ScanView" else ""])
print(json.dumps(out))
"""))
        for cell_mb, kind, size, text in got:
            self.assertLessEqual(size, cell_mb * 1e6, f"cell_mb={cell_mb}: a {size}-byte cell ({kind})")
        self.assertEqual([k for _, k, _, _ in got], ["TraceMergeView", "TraceMergeView", "ScanView"])
        self.assertIn("Ask for a smaller window, e.g. show(..., unit='step', start=2, end=", got[2][3])
        self.assertIn("step", got[2][3])

    def test_python_dash_m_is_the_cli(self):
        r = subprocess.run([str(self.python), "-m", "tracemerge", "--version"], capture_output=True)
        self.assertEqual(r.stdout.decode().strip(), f"tracemerge {VERSION}")


class Manylinux(unittest.TestCase):
    """The wheels scripts/package.sh builds with Zig (setup.sh --wheels): each .so needs no more than
    its tag allows — glibc symbol versions up to the tag's, no libstdc++ (libc++ is inside), only
    the libraries manylinux2014 allows — and exports the C ABI only; the aarch64 wheel, installed
    by pip for its platform, merges under qemu-user with an arm64 Python as the native CLI does."""

    ALLOWED = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libgcc_s.so.1",
               "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}

    def wheels(self):
        found = sorted(DIST.glob("tracemerge-*-py3-none-manylinux_*.whl"))
        if not found:
            self.skipTest("no manylinux wheels: Zig is not in .deps (bash scripts/setup.sh --wheels)")
        return found

    def test_each_library_needs_no_more_than_its_tag_allows(self):
        arches = set()
        for whl in self.wheels():
            tag = re.search(r"manylinux_(\d+)_(\d+)_(\w+?)\.", whl.name)
            glibc_max, arch = (int(tag.group(1)), int(tag.group(2))), tag.group(3)
            arches.add(arch)
            with tempfile.TemporaryDirectory() as tmp:
                so = pathlib.Path(tmp) / "libtracemerge.so"
                so.write_bytes(zipfile.ZipFile(whl).read("tracemerge/libtracemerge.so"))
                header = subprocess.run(["readelf", "-h", str(so)], capture_output=True, text=True).stdout
                self.assertIn({"x86_64": "X86-64", "aarch64": "AArch64"}[arch], header, whl.name)
                versions = subprocess.run(["readelf", "-V", str(so)], capture_output=True, text=True).stdout
                glibc = [tuple(map(int, v.split("."))) for v in re.findall(r"Name: GLIBC_([\d.]+)", versions)]
                self.assertTrue(glibc, versions)
                self.assertLessEqual(max(glibc), glibc_max, f"{whl.name} needs GLIBC_{max(glibc)}")
                self.assertNotRegex(versions, r"GLIBCXX_|CXXABI_", f"{whl.name} needs libstdc++")
                dynamic = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True).stdout
                needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic))
                self.assertTrue(needed <= self.ALLOWED, f"{whl.name} needs {needed - self.ALLOWED}")
                syms = subprocess.run(["readelf", "--dyn-syms", "-W", str(so)], capture_output=True, text=True).stdout
                exported = {l.split()[7].split("@")[0] for l in syms.splitlines()
                            if len(l.split()) >= 8 and l.split()[4] == "GLOBAL" and l.split()[6] != "UND"}
                self.assertEqual(exported, {"tm_run", "tm_free", "tm_version"}, whl.name)
        self.assertEqual(arches, {"x86_64", "aarch64"})

    def test_the_aarch64_wheel_merges_under_qemu_as_the_native_cli_does(self):
        whl = [w for w in self.wheels() if "aarch64" in w.name]
        root = ROOT / ".deps" / "arm64-root"
        qemu = shutil.which("qemu-aarch64")
        if not whl or not qemu or not (root / "usr/bin/python3.11").exists():
            self.skipTest("no aarch64 wheel, qemu-aarch64 or arm64 Python (bash scripts/setup.sh --wheels)")
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracemerge-arm64-"))
        try:
            # pip installs it for its platform (and would refuse a wrong tag), into a folder.
            r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet",
                                "--platform", "manylinux2014_aarch64", "--only-binary=:all:", "--target",
                                str(tmp / "site"), str(whl[0])], capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            shutil.copytree(MERGE_TRACES, tmp / "job")
            code = """
import platform, tracemerge
assert platform.machine() == "aarch64", platform.machine()
r = tracemerge.merge("job", output="arm.json", unit="step", start=2, end=9, threads=2)
print(tracemerge.__version__, sum(s["kept"] for s in r["sources"]) > 0)
"""
            r = subprocess.run([qemu, "-L", str(root), str(root / "usr/bin/python3.11"), "-c", code], cwd=tmp,
                               capture_output=True, env={"PYTHONPATH": str(tmp / "site"), "PATH": os.environ["PATH"]},
                               timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            self.assertEqual(r.stdout.decode().split(), [VERSION, "True"])
            cli(tmp / "job", "--unit", "step", "--start", 2, "--end", 9, "-o", tmp / "native.json", cwd=tmp)
            self.assertEqual((tmp / "arm.json").read_bytes(), (tmp / "native.json").read_bytes(),
                             "the same bytes on aarch64 as natively")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Sdist(unittest.TestCase):
    """pip install --no-index --no-build-isolation dist/tracemerge-<v>.tar.gz in a fresh venv of
    Debian's Python (its setuptools and wheel): CMake and the C++17 compiler build the library;
    the package merges as the native CLI does."""

    def test_the_sdist_builds_and_merges_in_a_fresh_venv(self):
        python = "/usr/bin/python3"
        probe = subprocess.run([python, "-c", "import setuptools, wheel, venv"], capture_output=True)
        if probe.returncode != 0:
            self.skipTest("Debian's python3-setuptools, python3-wheel, python3-venv are not installed (scripts/setup.sh)")
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracemerge-sdist-"))
        try:
            subprocess.run([python, "-m", "venv", "--system-site-packages", str(tmp / "venv")], check=True)
            r = subprocess.run([str(tmp / "venv/bin/python"), "-m", "pip", "install", "--no-index", "--no-build-isolation",
                                "--quiet", str(one(f"tracemerge-{VERSION}.tar.gz"))], cwd=tmp, capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr.decode()[-3000:])
            shutil.copytree(MERGE_TRACES, tmp / "job")
            code = """
import tracemerge, tracemerge._native as n
assert str(n.library_path()).endswith("site-packages/tracemerge/libtracemerge.so"), n.library_path()
tracemerge.merge("job", output="sdist.json", unit="step", start=2, end=9)
print(tracemerge.__version__)
"""
            r = subprocess.run([str(tmp / "venv/bin/python"), "-c", code], cwd=tmp, capture_output=True,
                               env={"PATH": os.environ["PATH"]})
            self.assertEqual(r.stdout.decode().strip(), VERSION, r.stderr.decode())
            cli(tmp / "job", "--unit", "step", "--start", 2, "--end", 9, "-o", tmp / "native.json", cwd=tmp)
            self.assertEqual((tmp / "sdist.json").read_bytes(), (tmp / "native.json").read_bytes())
            with tarfile.open(one(f"tracemerge-{VERSION}.tar.gz")) as sdist:
                names = sdist.getnames()
            for name in ("LICENSE", "NOTICE", "PKG-INFO", "pyproject.toml", "setup.py", ".deps/zlib/LICENSE"):
                self.assertIn(f"tracemerge-{VERSION}/{name}", names)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class OldestPython(unittest.TestCase):
    """The wheel in a venv of the oldest Python it declares (Requires-Python >=3.8), when the machine
    has one (pyenv's 3.8): smdebug's calls, MergeUnit, the errors, the types — as on the newest."""

    def test_the_wheel_works_on_python_3_8(self):
        found = sorted(pathlib.Path.home().glob(".pyenv/versions/3.8.*/bin/python3")) + \
            [pathlib.Path(p) for p in ("/usr/bin/python3.8", "/usr/local/bin/python3.8") if os.path.exists(p)]
        if not found:
            self.skipTest("no Python 3.8 on this machine (pyenv's or Debian's)")
        python = str(found[0])
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracemerge-py38-"))
        try:
            subprocess.run([python, "-m", "venv", str(tmp / "venv")], check=True)
            py = tmp / "venv" / "bin" / "python"
            r = subprocess.run([str(py), "-m", "pip", "install", "--no-index", "--quiet", str(one(HOST_WHEEL))],
                               capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            shutil.copytree(MERGE_TRACES, tmp / "job")
            code = f"""
import json, sys, tracemerge
from tracemerge import MergedTimeline, MergeUnit
assert sys.version_info[:2] == (3, 8), sys.version
assert MergeUnit.STEP == "step"
path = MergedTimeline("job", output_directory="merged/").merge_timeline(2, 4, unit=MergeUnit.STEP)
assert isinstance(json.load(open(path)), list)
try:
    tracemerge.merge("no/such", output="x.json")
    raise SystemExit("no error")
except FileNotFoundError as e:
    assert e.code == "IO" and "no such file" in str(e), str(e)
try:
    tracemerge.merge("job", unit="week")
    raise SystemExit("no error")
except tracemerge.TraceMergeError as e:
    assert e.code == "USAGE", e.code
print("ok")
"""
            r = subprocess.run([str(py), "-c", code], cwd=tmp, capture_output=True, env={"PATH": os.environ["PATH"]})
            self.assertEqual(r.stdout.decode().strip(), "ok", r.stderr.decode())
            self.assertIn("tracemerge/py.typed", zipfile.ZipFile(one(HOST_WHEEL)).namelist())
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Npm(unittest.TestCase):
    """npm install dist/tracemerge-*.tgz into an empty project; the README's example runs there."""

    def test_the_readme_example_runs_in_an_empty_project(self):
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracemerge-npm-"))
        try:
            (tmp / "package.json").write_text('{"name":"try","version":"1.0.0","type":"module"}')
            r = subprocess.run(["npm", "install", "--offline", "--no-audit", "--no-fund", "--silent",
                                str(one("tracemerge-*.tgz"))], cwd=tmp, capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            pkg = json.loads((tmp / "node_modules" / "tracemerge" / "package.json").read_text())
            self.assertEqual(pkg["version"], VERSION)
            readme = (tmp / "node_modules" / "tracemerge" / "README.md").read_text()
            example = re.search(r"```js\n(.*?)```", readme, re.S).group(1)
            self.assertIn("from 'tracemerge'", example)
            (tmp / "example.mjs").write_text(example)
            inputs = [CORPUS / "real/pytorch_kineto_hta/sampled_rank-0.json.gz", CORPUS / "real/pytorch_kineto_hta/sampled_rank-1.json.gz"]
            for f in inputs:
                shutil.copy(f, tmp / f.name)
            r = subprocess.run(["node", "example.mjs", "out.json", *[f.name for f in inputs]], cwd=tmp, capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            self.assertEqual((tmp / "out.json").read_bytes(), cli(*[f.name for f in inputs], "-o", "-", cwd=tmp).stdout)
            r = subprocess.run(["npx", "--offline", "tracemerge-wasm", "--version"], cwd=tmp, capture_output=True)
            self.assertEqual(r.stdout.decode().strip(), f"tracemerge {VERSION}")
            expected = cli(*[f.name for f in inputs], "-o", "-", cwd=tmp).stdout
            # Types for everything exported: each subpath's runtime exports are declared ...
            check = """
import fs from 'node:fs';
const missing = [];
const kinds = ['function', 'class', 'const', 'type', 'interface'];
const declared = (w, name) => w.some((x, i) => x === name && kinds.includes(w[i - 1]) &&
  (w[i - 2] === 'export' || (w[i - 2] === 'declare' && w[i - 3] === 'export')));
for (const [sub, dts] of [['tracemerge', 'tracemerge.d.ts'], ['tracemerge/client', 'tracemerge-client.d.ts'],
                          ['tracemerge/protocol', 'protocol.d.ts']]) {
  const text = fs.readFileSync('node_modules/tracemerge/' + dts, 'utf8');
  for (const name of Object.keys(await import(sub)))
    if (!declared(text.split(/[^A-Za-z0-9_$]+/), name))
      missing.push(sub + ': ' + name);
}
console.log(JSON.stringify(missing));
"""
            (tmp / "check.mjs").write_text(check)
            r = subprocess.run(["node", "check.mjs"], cwd=tmp, capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            self.assertEqual(json.loads(r.stdout), [], "runtime exports without a declaration")
            # ... and a strict TypeScript project that uses them compiles.
            (tmp / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
                "strict": True, "noEmit": True, "module": "nodenext", "moduleResolution": "nodenext",
                "target": "es2022", "lib": ["es2022", "dom"], "types": []}, "files": ["use.ts"]}))
            (tmp / "use.ts").write_text("""
import { mergeFiles, createMerger, TraceMergeError, type Report } from 'tracemerge';
import { MergeClient } from 'tracemerge/client';
import { MSG, boundWorker } from 'tracemerge/protocol';
import 'tracemerge/worker';
export async function use(files: File[]): Promise<number> {
  const client = new MergeClient({ cancelAnswerMs: 1000 });
  const { report } = await mergeFiles(files, { unit: 'step', start: 2, end: 4, align: 'clocks' });
  const r: Report = report;
  const held: number[] = r.waits?.steps[0]?.held_by ?? [];
  const m = await createMerger({ gzip: true }, { helper: false });
  m.delete();
  client.terminate();
  try { await client.merge(files); } catch (e) { if (e instanceof TraceMergeError) return e.offset; }
  return r.events + held.length + (MSG.MERGE === 'merge' ? 1 : 0) + (typeof boundWorker === 'function' ? 1 : 0);
}
""")
            tsc = ROOT / "node_modules" / ".bin" / "tsc"
            if tsc.exists():
                r = subprocess.run([str(tsc), "-p", "."], cwd=tmp, capture_output=True)
                self.assertEqual(r.returncode, 0, r.stdout.decode() + r.stderr.decode())
            # A bundled build (esbuild) of the README's example runs and writes the CLI's bytes.
            esbuild = ROOT / "node_modules" / ".bin" / "esbuild"
            r = subprocess.run([str(esbuild), "example.mjs", "--bundle", "--platform=node", "--format=esm",
                                "--outfile=bundle/app.mjs", "--log-level=warning"], cwd=tmp, capture_output=True)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            r = subprocess.run(["node", "bundle/app.mjs", "bundled.json", *[f.name for f in inputs]], cwd=tmp,
                               capture_output=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            self.assertEqual((tmp / "bundled.json").read_bytes(), expected)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Site(unittest.TestCase):
    def test_the_zip_holds_the_page_the_single_file_page_and_the_notebook_helper(self):
        z = zipfile.ZipFile(one(f"tracemerge-web-{VERSION}.zip"))
        names = set(z.namelist())
        for name in ("index.html", "tracemerge.html", "app.mjs", "wasm/tracemerge.mjs", "notebook/tracemerge_notebook.py"):
            self.assertIn(f"tracemerge-web-{VERSION}/{name}", names)


class Install(unittest.TestCase):
    def test_cmake_install_gives_the_cli_and_the_library(self):
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracemerge-install-"))
        try:
            subprocess.run(["cmake", "--install", str(ROOT / "build" / "native"), "--prefix", str(tmp)], check=True,
                           capture_output=True)
            r = subprocess.run([str(tmp / "bin" / "tracemerge"), "--version"], capture_output=True)
            self.assertEqual(r.stdout.decode().strip(), f"tracemerge {VERSION}")
            self.assertTrue((tmp / "lib" / "libtracemerge.so").is_file())
            self.assertTrue((tmp / "include" / "tracemerge_c.h").is_file())
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class License(unittest.TestCase):
    """Apache-2.0: LICENSE and the notices of what the code links (NOTICE: simdjson, zlib, at the
    versions scripts/setup.sh pins) in every artifact, the SPDX expression in each package's metadata."""

    def test_every_artifact_carries_the_license_and_the_notices(self):
        license_text, notice = (ROOT / "LICENSE").read_text(), (ROOT / "NOTICE").read_text()
        self.assertIn("Apache License", license_text)
        setup = (ROOT / "scripts" / "setup.sh").read_text()
        for lib, var in (("simdjson", "SIMDJSON_VERSION"), ("zlib", "ZLIB_VERSION")):
            pinned = re.search(rf"^{var}=(\S+)", setup, re.M).group(1)
            self.assertIn(f"{lib} {pinned} ", notice, f"NOTICE names the {lib} the build uses")
        wheel = zipfile.ZipFile(one(HOST_WHEEL))
        info = f"tracemerge-{VERSION}.dist-info"
        self.assertEqual(wheel.read(f"{info}/licenses/LICENSE").decode(), license_text)
        self.assertEqual(wheel.read(f"{info}/licenses/NOTICE").decode(), notice)
        metadata = wheel.read(f"{info}/METADATA").decode()
        self.assertIn("\nLicense-Expression: Apache-2.0\n", metadata)
        self.assertIn("MergedTimeline", metadata, "the README's Python part is the description")
        with tarfile.open(one("tracemerge-*.tgz")) as npm:
            self.assertEqual(npm.extractfile("package/LICENSE").read().decode(), license_text)
            self.assertEqual(npm.extractfile("package/NOTICE").read().decode(), notice)
            self.assertEqual(json.loads(npm.extractfile("package/package.json").read())["license"], "Apache-2.0")
        site = zipfile.ZipFile(one(f"tracemerge-web-{VERSION}.zip"))
        for name in ("LICENSE", "NOTICE"):
            self.assertEqual(site.read(f"tracemerge-web-{VERSION}/{name}").decode(), (ROOT / name).read_text())
        for page in ("index.html", "tracemerge.html"):  # the page's footer: both texts, escaped
            html = site.read(f"tracemerge-web-{VERSION}/{page}").decode()
            self.assertIn("Jean-loup Gailly", html, page)
            self.assertIn("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION", html, page)
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="tracemerge-install-"))
        try:
            subprocess.run(["cmake", "--install", str(ROOT / "build" / "native"), "--prefix", str(tmp)], check=True,
                           capture_output=True)
            self.assertEqual((tmp / "share" / "doc" / "tracemerge" / "NOTICE").read_text(), notice)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class OneVersion(unittest.TestCase):
    def test_every_artifact_says_the_cmake_projects_version(self):
        self.assertEqual(subprocess.run([str(CLI), "--version"], capture_output=True).stdout.decode().strip(),
                         f"tracemerge {VERSION}")
        self.assertTrue(one(f"tracemerge-{VERSION}-*{platform.machine()}.whl"))
        self.assertTrue(one(f"tracemerge-{VERSION}.tgz"))
        out = json.loads(cli(MERGE_TRACES, "-o", "-").stdout)
        self.assertEqual(out["metadata"]["tracemerge"]["version"], VERSION)


if __name__ == "__main__":
    unittest.main()
