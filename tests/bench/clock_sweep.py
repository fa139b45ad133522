#!/usr/bin/env python3
"""Runs the clock check on many generated jobs with random shapes (seeds the tests never
use) and compares every verdict with the truth the generator planted: a checked host must
be within 3 µs of its true offset (plus what its drift explains), a synchronized job must
warn of nothing, and a host may be "not checked" — never confidently wrong.

    python3 tests/bench/clock_sweep.py [--jobs 60] [--seed 1000] [--cli build/native/tracemerge]

Prints one line per job and a summary; exits non-zero on any wrong verdict.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def job_args(rng, seed):
    kineto = rng.random() < 0.7
    hosts = rng.randint(2, 6)
    a = ['--seed', str(seed), '--hosts', str(hosts), '--ranks-per-host', str(rng.randint(1, 3)),
         '--steps', str(rng.randint(2, 12)), '--collectives', str(rng.randint(1, 10)),
         '--jitter-us', '%.1f' % rng.uniform(0.5, 8), '--arrival-us', str(rng.randint(60, 8000))]
    synced = rng.random() < 0.3
    offsets = [0.0] + [0.0 if synced else round(rng.uniform(-8000, 8000), 1) for _ in range(hosts - 1)]
    a += ['--offsets-us', ','.join(str(o) for o in offsets)]
    drift = [0.0] * hosts
    if not synced and rng.random() < 0.3:
        drift = [0.0] + [round(rng.uniform(-50, 50), 1) for _ in range(hosts - 1)]
        a += ['--drift-ppm', ','.join(str(d) for d in drift), '--gap-ms', str(rng.randint(50, 400))]
    if kineto:
        for flag, p in (('--no-seq', 0.5), ('--broadcasts', 0.3), ('--files-per-step', 0.3)):
            if rng.random() < p:
                a.append(flag)
        if rng.random() < 0.4:
            a += ['--decoys', str(rng.randint(1, 60))]
    else:
        a += ['--format', 'smdebug', '--decoys', str(rng.randint(0, 300))]
    return a, offsets, drift, synced


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--jobs', type=int, default=60)
    ap.add_argument('--seed', type=int, default=1000)
    ap.add_argument('--cli', default=os.path.join(ROOT, 'build/native/tracemerge'))
    o = ap.parse_args()
    rng = random.Random(o.seed)
    tmp = tempfile.mkdtemp(prefix='clock_sweep_')
    counts = {'checked': 0, 'unchecked': 0, 'wrong': 0, 'false_skew': 0, 'jobs': 0}
    try:
        for j in range(o.jobs):
            seed = o.seed + j
            args, offsets, drift, synced = job_args(rng, seed)
            job = os.path.join(tmp, 'job%d' % j)
            subprocess.run([sys.executable, os.path.join(ROOT, 'tests/bench/gen_ranks.py'), job] + args, check=True)
            truth = json.load(open(job + '.truth.json'))
            report = os.path.join(tmp, 'r.json')
            subprocess.run([o.cli, job, '-o', os.path.join(tmp, 'out.json'), '--quiet', '--report', report], check=True)
            r = json.load(open(report))
            ref = next((h for h in r['clock_check']['hosts'] if h['status'] == 'reference'), None)
            skews = sum(w['code'] == 'CLOCK_SKEW' for w in r['warnings'])
            line, bad = [], False
            if ref is None:
                line.append('no reference')
            for h in r['clock_check']['hosts']:
                if h['status'] != 'checked' or ref is None:
                    if h['status'] == 'unchecked':
                        counts['unchecked'] += 1
                        line.append('%s unchecked (%s)' % (h['host'], h['reason'][:60]))
                    continue
                counts['checked'] += 1
                i, k = truth['hosts'].index(h['host']), truth['hosts'].index(ref['host'])
                # The truth at the estimate's time: offsets and drift (ppm of the time since the job's start).
                t = (h['at_us'] - truth['base_us'])
                want = (offsets[i] + drift[i] * 1e-6 * t) - (offsets[k] + drift[k] * 1e-6 * t)
                err = h['offset_us'] - want
                if abs(err) > 3 + 3 * h['uncertainty_us']:
                    bad = True
                    counts['wrong'] += 1
                    line.append('%s WRONG %+.3f (want %+.3f)' % (h['host'], h['offset_us'], want))
            if synced and skews:
                bad = True
                counts['false_skew'] += 1
                line.append('CLOCK_SKEW on a synchronized job')
            counts['jobs'] += 1
            print('%s job %d %s: %s' % ('FAIL' if bad else 'ok  ', seed, ' '.join(args), '; '.join(line) or 'all checked'))
            shutil.rmtree(job)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('%(jobs)d jobs: %(checked)d hosts checked, %(unchecked)d not checked, %(wrong)d wrong, '
          '%(false_skew)d false CLOCK_SKEW' % counts)
    sys.exit(1 if counts['wrong'] or counts['false_skew'] else 0)


if __name__ == '__main__':
    main()
