"""The notebook helper (web/notebook/tracemerge_notebook.py), without a browser:
python3 -m unittest discover -s tests/e2e -p 'test_*.py'"""
import base64
import html
import json
import os
import pathlib
import re
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "web" / "notebook"))
import tracemerge_notebook as tn  # noqa: E402

COMBINED = ROOT.parent / "shared" / "corpus" / "smdebug" / "constructed" / "combined_job"
PAGE = ROOT / "build" / "web" / "tracemerge.html"


def preload(page_html):
    m = re.search(r'<script type="application/json" id="tm-preload">(.*?)</script>', page_html, re.S)
    assert m, "no preload element"
    return json.loads(m.group(1))


class ShowTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # (Not skipped without the page: a test that checks nothing must not pass.)
        if not PAGE.is_file():
            raise AssertionError(f"{PAGE} is not built: bash scripts/build.sh --browser")

    def test_folder_is_named_like_the_cli_and_embedded_base64(self):
        view = tn.show(COMBINED)
        data = preload(view.html())
        names = [f["name"] for f in data["files"]]
        self.assertEqual(len(names), 15)
        self.assertTrue(all(n.startswith("combined_job/") for n in names))
        self.assertIn("combined_job/system/incremental/1591748100.algo-1.json", names)
        one = next(f for f in data["files"] if f["name"].endswith("1591748100.algo-1.json"))
        self.assertEqual(base64.b64decode(one["data"]),
                         (COMBINED / "system/incremental/1591748100.algo-1.json").read_bytes())
        self.assertTrue(data["merge"])

    def test_options_are_checked_and_normalised(self):
        view = tn.show(COMBINED, unit="step", start=2, end=4, only="pythontimeline.json",
                       offsets={"x.json": "-1500"}, gzip=1)
        self.assertEqual(preload(view.html())["options"],
                         {"unit": "step", "start": "2", "end": "4", "only": ["pythontimeline.json"],
                          "offsets": {"x.json": -1500}, "gzip": True})
        # A date-time goes to the page as typed: the page's core reads it (or names the typo).
        self.assertEqual(preload(tn.show(COMBINED, start="2020-07-13 17:50:18.5", end=1594662623418701,
                                         align="clocks").html())["options"],
                         {"start": "2020-07-13 17:50:18.5", "end": "1594662623418701", "align": "clocks",
                          "offsets": {}, "gzip": False})
        self.assertEqual(preload(tn.show(COMBINED, start="soon").html())["options"]["start"], "soon")
        with self.assertRaises(ValueError):
            tn.show(COMBINED, align="sideways")
        with self.assertRaises(TypeError):
            tn.show(COMBINED, window=3)
        with self.assertRaises(ValueError):
            tn.show(COMBINED, unit="minutes")
        with self.assertRaises(ValueError) as e:
            tn.show(COMBINED, only=["pb"])
        self.assertIn("'pythontimeline.json', 'model_timeline.json'", str(e.exception))
        with self.assertRaises(FileNotFoundError):
            tn.show(COMBINED / "no-such-file.json")

    def test_only_takes_the_kinds_of_the_pages_core(self):
        # The helper restates no kind: it reads those the build wrote into the page.
        text = PAGE.read_text(encoding="utf-8")
        kinds = re.search(r'id="tm-kinds">(.*?)</script>', text).group(1)
        self.assertEqual(json.loads(kinds)[-2:], ["other", "xplane.pb"])
        with tempfile.TemporaryDirectory() as d:
            page = pathlib.Path(d) / "tracemerge.html"
            page.write_text(text.replace(kinds, '["pb"]', 1), encoding="utf-8")
            self.assertEqual(preload(tn.show(COMBINED, only="pb", page=page).html())["options"]["only"], ["pb"])
            with self.assertRaises(ValueError):
                tn.show(COMBINED, only="other", page=page)

    def test_options_are_those_the_page_takes_as_its_core_defines_them(self):
        # The helper restates no option: names, shapes and choices are the core's, written
        # into the page for the options the page takes (web/options.mjs PAGE_OPTIONS).
        text = PAGE.read_text(encoding="utf-8")
        specs = json.loads(re.search(r'id="tm-options">(.*?)</script>', text).group(1))
        self.assertEqual(sorted(o["key"] for o in specs),
                         ["align", "end", "group", "gzip", "offsets", "only", "start", "unit"])
        with self.assertRaises(TypeError):
            tn.show(COMBINED, threads=2)  # (the CLI's, not the page's)
        with tempfile.TemporaryDirectory() as d:
            page = pathlib.Path(d) / "tracemerge.html"
            page.write_text(text.replace('"choices":["time","step"]', '"choices":["time","step","week"]', 1), encoding="utf-8")
            self.assertEqual(preload(tn.show(COMBINED, unit="week", page=page).html())["options"]["unit"], "week")
            page.write_text(re.sub(r'<script type="application/json" id="tm-options">.*?</script>', '', text, flags=re.S),
                            encoding="utf-8")
            with self.assertRaisesRegex(ValueError, "rebuild"):
                tn.show(COMBINED, page=page)

    def test_single_files_and_bytes_keep_their_names(self):
        f = COMBINED / "system/incremental/1591748100.algo-1.json"
        data = preload(tn.show([f]).html())
        self.assertEqual([x["name"] for x in data["files"]], ["1591748100.algo-1.json"])
        data = preload(tn.show({"job/a.json": b"[]"}).html())
        self.assertEqual(data["files"], [{"name": "job/a.json", "data": base64.b64encode(b"[]").decode(), "inFolder": False}])
        data = preload(tn.show(COMBINED / "system").html())
        self.assertTrue(all(x["inFolder"] for x in data["files"]), "a folder's files: its run is that folder")

    def test_nothing_in_the_data_can_end_the_script_element(self):
        data = tn.show({"job/</script><script>alert(1)</script>.json": b"[]"}).html()
        self.assertEqual(data.count("<script>alert"), 0)
        self.assertEqual(preload(data)["files"][0]["name"], "job/</script><script>alert(1)</script>.json")

    def test_repr_html_is_an_isolated_iframe_holding_the_page(self):
        view = tn.show({"a.json": b"[]"}, height=500)
        out = view._repr_html_()
        self.assertTrue(out.startswith("<iframe "))
        self.assertIn('sandbox="allow-scripts allow-downloads', out)
        self.assertNotIn("allow-same-origin", out)
        self.assertIn("height:500px", out)
        self.assertTrue(out.isascii(), "the cell reads the same in a notebook page of any encoding")
        doc = html.unescape(re.search(r'srcdoc="(.*)"', out, re.S).group(1))
        self.assertEqual(doc, view.html())
        self.assertIn("Content-Security-Policy", doc)

    def test_the_page_is_found_by_argument_and_environment(self):
        with tempfile.TemporaryDirectory() as d:
            copy = pathlib.Path(d) / "tm.html"
            copy.write_text(PAGE.read_text(encoding="utf-8"), encoding="utf-8")
            self.assertEqual(tn.find_page(copy), copy)
            old = os.environ.get("TRACEMERGE_HTML")
            os.environ["TRACEMERGE_HTML"] = str(copy)
            try:
                self.assertEqual(tn.find_page(), copy)
            finally:
                if old is None:
                    del os.environ["TRACEMERGE_HTML"]
                else:
                    os.environ["TRACEMERGE_HTML"] = old
        with self.assertRaises(FileNotFoundError):
            tn.find_page("/nonexistent/tracemerge.html")

    def test_too_much_data_is_refused_with_advice(self):
        with self.assertRaisesRegex(ValueError, "max_mb"):
            tn.show({"a.json": b"x" * 2000}, max_mb=0.001)


if __name__ == "__main__":
    unittest.main()
