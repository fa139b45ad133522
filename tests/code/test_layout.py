"""Tests a newcomer can find: each GoogleTest suite lives in one file, and the file a stage or
format module is tested in is named after it (tests/unit/<module>_test.cc).

Run: python3 -m unittest discover -s tests/code
"""
import collections
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUITE = re.compile(r"^TEST(?:_F|_P)?\((\w+),", re.M)


def suites_in_files(files):
    """suite name -> the files that define tests of it."""
    where = collections.defaultdict(set)
    for f in files:
        for name in SUITE.findall(f.read_text()):
            where[name].add(f.relative_to(ROOT).as_posix())
    return where


class SuiteLayout(unittest.TestCase):
    def test_each_suite_is_in_one_file(self):
        files = sorted((ROOT / "tests").glob("*/*_test.cc"))
        self.assertGreater(len(files), 20)
        split = {k: sorted(v) for k, v in suites_in_files(files).items() if len(v) > 1}
        self.assertEqual(split, {}, "suites split across files")

    def test_every_format_module_has_its_test_file(self):
        modules = sorted((ROOT / "core" / "formats").glob("*.cc"))
        self.assertGreater(len(modules), 5)
        shared = {"format", "collectives"}  # what the modules share: tests/unit/formats_test.cc
        tests = {t.stem[:-len("_test")] for t in (ROOT / "tests" / "unit").glob("*_test.cc")}
        # a module's part (tf_profiler_clock.cc) is tested with the module (tf_profiler_test.cc)
        missing = [m.name for m in modules if m.stem not in shared
                   and not any(m.stem == t or m.stem.startswith(t + "_") for t in tests)]
        self.assertEqual(missing, [])

    def test_the_check_sees_a_split_suite(self):
        tmp = ROOT / "build" / "layout_selftest"
        tmp.mkdir(parents=True, exist_ok=True)
        (tmp / "a_test.cc").write_text("TEST(Same, One) {}\n")
        (tmp / "b_test.cc").write_text("TEST_F(Same, Two) {}\nTEST(Other, Three) {}\n")
        where = suites_in_files(sorted(tmp.glob("*_test.cc")))
        self.assertEqual(len(where["Same"]), 2)
        self.assertEqual(len(where["Other"]), 1)


if __name__ == "__main__":
    unittest.main()
