#!/usr/bin/env python3
"""Writes a synthetic SageMaker-Debugger-style profiler-output job of about SIZE_MB
(uncompressed) for benchmarks and big-input tests: several nodes, every source kind.

    python3 tests/bench/gen_job.py OUT_DIR SIZE_MB [--nodes N] [--seed S]

Layout (as smdebug writes it):
  framework/pevents/<hour>/<end_us>_<node>_pythontimeline.json     steps, args.step_num
  framework/pevents/<hour>/<end_us>_<node>_model_timeline.json     overlapping X slices
  framework/pevents/<hour>/<end_us>_<node>_horovod_timeline.json   B/E pairs + instants
  framework/tensorflow/detailed_profiling/<hour>/<step>/plugins/profile/<date>/<host>.trace.json.gz
      + the <step dir>/<node>_<start_us>_<end_us>.metadata sidecar
  system/incremental/<hour>/<epoch_s>.<node>.json                   JSON-lines metrics
  kineto/<node>.pt.trace.json.gz                                    Kineto, baseTimeNanoseconds, flows

--dense: the same smdebug sources without Kineto's, most of the bytes in small events (~80 bytes
each: model timeline slices, Horovod B/E pairs, compact TF events), as smdebug's own timelines are.
"""
import argparse
import gzip
import json
import os
import random

BASE_US = 1_600_000_000_000_000  # 2020-09-13


def header(start_us):
    return ['{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": %d}}' % start_us,
            '{"name": "process_sort_index", "ph": "M", "pid": 0, "args": {"sort_index": 0}}']


def write(path, text, gz=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = text.encode()
    if gz:
        with gzip.open(path, 'wb', compresslevel=1) as f:
            f.write(data)
    else:
        with open(path, 'wb') as f:
            f.write(data)
    return len(data)


def pythontimeline(rng, steps, step_us):
    lines = header(BASE_US) + ['{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Step:ModeKeys.TRAIN"}}']
    for s in range(steps):
        t = s * step_us
        lines.append('{"name": "Step:ModeKeys.TRAIN", "pid": 1, "ph": "X", "ts": %d, "dur": %d, "args": {"pid": 905, "step_num": "%d"}}'
                     % (t, step_us - rng.randint(1, 50), s))
        for k in range(8):
            lines.append('{"name": "forward_%d", "pid": 1, "ph": "X", "ts": %d, "dur": %d, "args": {"step_num": "%d", "layer": "dense_%d"}}'
                         % (k, t + 10 + k * 100, rng.randint(5, 90), s, k))
    return '[\n' + ',\n'.join(lines) + '\n]\n'


def model_timeline(rng, n, span_us):
    lines = header(BASE_US) + ['{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "DataIterator"}}']
    for _ in range(n):  # unsorted, partially overlapping, like the C++ writer
        lines.append('{"ph": "X", "name": "dataset::GetNext", "ts": %d, "pid": 1, "dur": %d}' % (rng.randrange(span_us), rng.randint(1, 400)))
    return '[\n' + ',\n'.join(lines) + '\n]\n'


def horovod(rng, n, span_us):
    lines = header(BASE_US)
    for i in range(n):
        t = rng.randrange(span_us)
        pid = 1 + i % 12
        lines.append('{"name": "NEGOTIATE_ALLREDUCE", "pid": %d, "ph": "B", "ts": %d}' % (pid, t))
        lines.append('{"pid": %d, "ph": "E", "ts": %d}' % (pid, t + rng.randint(1, 300)))
        if i % 10 == 0:
            lines.append('{"name": "CYCLE_START", "pid": %d, "ph": "i", "ts": %d, "s": "g"}' % (pid, t))
    return '[\n' + ',\n'.join(lines) + '\n]\n'


def tf_trace(rng, n, span_us, compact=False):
    ev = [{"pid": 1, "name": "process_name", "ph": "M", "args": {"name": "/host:CPU"}}]
    for _ in range(n):
        ev.append({"pid": 1, "tid": 376039232 + rng.randint(0, 3), "ts": round(rng.uniform(0, span_us), 3),
                   "name": "TensorHandle::GetResourceHandleInfo WaitReady", "ph": "X", "dur": round(rng.uniform(0.5, 50), 3)})
    doc = {"displayTimeUnit": "ns", "metadata": {"highres-ticks": True}, "traceEvents": ev + [{}]}
    return json.dumps(doc, separators=(',', ':')) if compact else json.dumps(doc, indent=1)


def system(rng, n, span_us, node):
    out = []
    for i in range(n):
        t = (BASE_US + rng.randrange(span_us)) / 1e6
        out.append('{"Type": "gpu", "Name": "gpu%d", "Dimension": "GPUUtilization", "Value": %.2f, "NodeId": "%s", "Timestamp": %.7f}'
                   % (i % 8, rng.uniform(0, 100), node, t))
    return '\n'.join(out) + '\n'


def kineto(rng, n, span_us):
    ev = [{"ph": "M", "name": "process_name", "pid": 4242, "tid": 0, "args": {"name": "python3"}},
          {"ph": "M", "name": "process_name", "pid": "Spans", "tid": 0, "args": {"name": "PyTorch Profiler"}}]
    for i in range(n):
        t = round(rng.uniform(0, span_us), 3)
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 4242, "tid": 4242 + i % 4, "ts": t,
                   "dur": round(rng.uniform(1, 80), 3), "args": {"External id": i, "Input Dims": [[64, 64], [64, 64]]}})
        if i % 20 == 0:
            ev.append({"ph": "s", "id": i, "pid": 4242, "tid": 4242, "ts": t, "cat": "ac2g", "name": "ac2g"})
            ev.append({"ph": "f", "id": i, "pid": 0, "tid": 7, "ts": t + 5, "cat": "ac2g", "name": "ac2g", "bp": "e"})
    return json.dumps({"schemaVersion": 1, "traceEvents": ev, "traceName": "x",
                       "baseTimeNanoseconds": BASE_US * 1000})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out')
    ap.add_argument('size_mb', type=float)
    ap.add_argument('--nodes', type=int, default=4)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--dense', action='store_true', help='small events, no Kineto (see above)')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    per_node = a.size_mb * 1e6 / a.nodes
    span = 600_000_000  # 10 minutes
    total = 0
    for n in range(a.nodes):
        node = 'algo-%d' % (n + 1)
        pe = os.path.join(a.out, 'framework/pevents/2020091312')
        # The node's budget in events (bytes per event: ~120, dense ~89, which the dense kinds'
        # mix below turns into ~82-byte events and SIZE_MB overall), split across the kinds.
        k = int(per_node / (89 if a.dense else 120))
        steps = max(10, k // (400 if a.dense else 90))
        model, hvd, tf, metrics = (k * 4 // 10, k // 5, k // 5, k // 20) if a.dense else (k * 3 // 10, k // 10, k // 6, k // 8)
        total += write(f'{pe}/{BASE_US + span}_{node}_pythontimeline.json', pythontimeline(rng, steps, span // steps))
        total += write(f'{pe}/{BASE_US + span}_{node}_model_timeline.json', model_timeline(rng, model, span))
        total += write(f'{pe}/{BASE_US + span}_{node}_horovod_timeline.json', horovod(rng, hvd, span))
        step_dir = os.path.join(a.out, 'framework/tensorflow/detailed_profiling/2020091312/%09d' % n)
        total += write(f'{step_dir}/plugins/profile/2020_09_13_12_00_00/{node}.trace.json.gz', tf_trace(rng, tf, span, a.dense), gz=True)
        write(f'{step_dir}/{node}_{BASE_US}_{BASE_US + span}.metadata', '')
        total += write(os.path.join(a.out, f'system/incremental/2020091312/{BASE_US // 1000000}.{node}.json'), system(rng, metrics, span, node))
        if not a.dense:
            total += write(os.path.join(a.out, f'kineto/{node}.pt.trace.json.gz'), kineto(rng, k // 8, span), gz=True)
    print(f'{a.out}: {total / 1e6:.1f} MB uncompressed')


if __name__ == '__main__':
    main()
