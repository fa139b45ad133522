"""The scan on a Dask cluster (core/python/tracemerge/_cluster.py) against the local scan: the
same report and summary, byte for byte, on the corpus, on generated jobs with planted clock
offsets and a straggler, and when a worker is killed mid-scan; summaries of another version
refused. A LocalCluster of 2 worker processes (Debian's python3-distributed).

Run: python3 -m unittest discover -s tests/cluster   (after scripts/build.sh --native-only)
"""
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
sys.path.insert(0, str(ROOT / "core" / "python"))
os.environ["PYTHONPATH"] = str(ROOT / "core" / "python") + os.pathsep + os.environ.get("PYTHONPATH", "")

import tracemerge  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

QUIET = lambda *a: None  # noqa: E731 (no tqdm bar in the test's output)


def generate(out, *flags):
    subprocess.run([sys.executable, str(ROOT / "tests" / "bench" / "gen_ranks.py"), str(out), *flags],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def as_text(report):
    return json.dumps(dict(report), sort_keys=True) + "\n" + report.summary


class ClusterScan(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        cls.client = Client(cls.cluster)
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        cls.tmp.cleanup()

    def same(self, paths, **options):
        local = tracemerge.scan(paths, progress=QUIET, **options)
        seen = []
        far = tracemerge.scan(paths, client=self.client, progress=lambda *p: seen.append(p), **options)
        self.assertEqual(as_text(far), as_text(local), paths)
        files = [p for p in seen if p[0] == "scan"]
        self.assertEqual(files[-1][1], files[-1][2])  # every file summarized, said so
        return local

    def test_corpus_jobs(self):
        for job in [CORPUS / "real" / "pytorch_kineto_multirank", CORPUS / "real" / "xprof_gpu_multi_worker",
                    CORPUS / "smdebug" / "constructed" / "combined_job", CORPUS / "real", CORPUS / "smdebug"]:
            with self.subTest(job=job.name):
                report = self.same(str(job))
                self.assertGreater(len(report["sources"]), 1)

    def test_generated_ranks_with_offsets_and_a_straggler(self):
        job = generate(pathlib.Path(self.tmp.name) / "r1024", "--hosts", "128", "--ranks-per-host", "8",
                       "--offsets-us", "0,-730,1910,45,-3000,260", "--straggler", "517", "--straggler-steps", "2-3",
                       "--seed", "551903")
        report = self.same(str(job), align="clocks")
        truth = json.loads((job.parent / "r1024.truth.json").read_text())
        # (against what the generator planted, so that "the same both ways" is also right)
        measured = {h["host"]: h["offset_us"] for h in report["clock_check"]["hosts"] if h["status"] == "checked"}
        self.assertEqual(len(measured), 127)
        for host, planted in zip(truth["hosts"], truth["offsets_us"]):
            if host in measured:
                self.assertLess(abs(measured[host] - planted), 1.0, host)
        held = {s["step"]: s["held_by"] for s in report["waits"]["steps"] if s["held_by"]}
        self.assertEqual(held, {2: [517], 3: [517]})

    def test_smdebug_job(self):
        job = generate(pathlib.Path(self.tmp.name) / "sm", "--hosts", "4", "--ranks-per-host", "2", "--format",
                       "smdebug", "--sagemaker", "--tf", "--metrics", "--offsets-us", "0,800,-1500,300",
                       "--seed", "88123")
        self.same(str(job), align="clocks")
        self.same(str(job), unit="step", start=2, end=4)

    def test_a_worker_killed_mid_scan(self):
        job = generate(pathlib.Path(self.tmp.name) / "kill", "--hosts", "16", "--ranks-per-host", "8", "--seed", "31337")
        local = tracemerge.scan(str(job), progress=QUIET)
        pids = list(self.client.run(os.getpid).values())
        killed = []

        def kill_once(stage, done, total):
            if stage == "scan" and not killed and done < total:  # (the first summary back: the rest still to come)
                os.kill(pids[0], signal.SIGKILL)
                killed.append(done)

        far = tracemerge.scan(str(job), client=self.client, progress=kill_once)
        self.assertEqual(len(killed), 1)
        self.assertEqual(as_text(far), as_text(local))

    def test_a_scan_cancelled_by_its_progress(self):
        with self.assertRaises(tracemerge.TraceMergeError) as e:
            tracemerge.scan(str(CORPUS / "real" / "pytorch_kineto_multirank"), client=self.client,
                            progress=lambda stage, done, total: stage != "scan")
        self.assertEqual(e.exception.code, "CANCELLED")

    def test_a_summary_of_another_version_is_refused(self):
        bad = pathlib.Path(self.tmp.name) / "v99.tmsummary"
        bad.write_bytes(b"tmsummary" + (99).to_bytes(8, "little") + (0).to_bytes(8, "little"))
        with self.assertRaises(tracemerge.TraceMergeError) as e:
            tracemerge.scan(str(bad), progress=QUIET)
        self.assertIn("format version 99", e.exception.message)
        self.assertIn("reads version 1", e.exception.message)

    def test_a_summary_is_not_merged(self):
        listed = json.loads(tracemerge._native.run([str(CORPUS / "real" / "horovod"), "--list"])["out"])
        one = pathlib.Path(self.tmp.name) / "one.tmsummary"
        self.assertEqual(tracemerge._native.run([listed[0]["path"], "--summarize", str(one)])["exit"], 0)
        with self.assertRaises(tracemerge.TraceMergeError) as e:
            tracemerge.merge(str(one), output=str(pathlib.Path(self.tmp.name) / "out.json"), progress=QUIET)
        self.assertIn("read it with --scan", e.exception.message)


if __name__ == "__main__":
    unittest.main()
