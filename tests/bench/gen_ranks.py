#!/usr/bin/env python3
"""Writes a synthetic multi-host training job whose hosts' clocks disagree by
known amounts, for the clock-alignment tests and for trying --align by hand.

    python3 tests/bench/gen_ranks.py OUT_DIR [--hosts 3] [--ranks-per-host 2]
        [--offsets-us 0,350,-5800] [--steps 6] [--collectives 8] [--jitter-us 2]
        [--base-us N] [--seed S] [--format kineto|smdebug] [--no-seq] [--no-clock]

Every rank runs the same steps. In each step it reaches its collectives at its
own time (up to 2 ms apart), and each collective ENDS at one true instant on
every rank, give or take --jitter-us. Each host's clock is off by its offset:
what a host writes is the true time plus its offset.

--format kineto (default): one PyTorch/Kineto trace per rank,
  OUT_DIR/<host>/rank<R>.pt.trace.json — distributedInfo.rank, host_name,
  baseTimeNanoseconds, ns-resolution float ts; ProfilerStep#N on the CPU
  thread; record_param_comms (Collective name, Seq, Process Group Name) inside
  nccl:all_reduce; an ncclDevKernel_AllReduce kernel on the rank's GPU stream
  that ends when the collective does. --no-seq leaves out Collective name,
  Seq and Process Group Name (they match by name and place then); --no-clock
  leaves out baseTimeNanoseconds (per-host relative clocks).
--format smdebug: one SageMaker Debugger node per host, one rank each:
  OUT_DIR/framework/pevents/<hour>/<end>_<host>_horovod_timeline.json with
  ALLREDUCE ops per tensor (B/E) and <end>_<host>_pythontimeline.json with steps.

Writes OUT_DIR.truth.json (beside the job, not in it): each host's offset,
each collective's true end, each step's true start.
"""
import argparse
import json
import os
import random

KERNEL = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)'


def plan(a, rng):
    """The true timeline every rank shares: step starts and collective ends (µs from base)."""
    step_us = 20000
    steps = []
    for k in range(a.steps):
        start = k * step_us
        ends = [start + 4000 + c * (14000 // a.collectives) + rng.randint(0, 300) for c in range(a.collectives)]
        steps.append((start, ends))
    return steps


def us(x):
    return round(x, 3)  # ns resolution, as Kineto writes


def kineto_rank(a, rng, steps, host, offset, rank, world):
    pid, tid, gpu = 1000 + rank, 1000 + rank, rank % a.ranks_per_host
    ev = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python3"}},
          {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": "CPU"}},
          {"ph": "M", "name": "process_name", "pid": gpu, "tid": 0, "args": {"name": "python3"}},
          {"ph": "M", "name": "process_labels", "pid": gpu, "tid": 0, "args": {"labels": "GPU %d" % gpu}},
          {"ph": "M", "name": "thread_name", "pid": gpu, "tid": 20, "args": {"name": "stream 20 "}}]
    seq = 0
    for k, (start, ends) in enumerate(steps):
        t0 = start + rng.uniform(0, 200)  # each rank starts its step a little apart
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % k, "pid": pid, "tid": tid,
                   "ts": us(t0 + offset), "dur": us(19000), "args": {}})
        for end in ends:
            arrive = end - rng.uniform(50, 2000)
            jitter = rng.uniform(-a.jitter_us, a.jitter_us)
            comm = {"External id": seq}
            if not a.no_seq:
                comm.update({"Collective name": "allreduce", "Seq": seq, "Process Group Name": "0"})
            ev.append({"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": pid, "tid": tid,
                       "ts": us(arrive + offset), "dur": us(30.5), "args": {"External id": seq}})
            ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": pid, "tid": tid,
                       "ts": us(arrive + 1 + offset), "dur": us(20.25), "args": comm})
            kstart = arrive + 40
            ev.append({"ph": "X", "cat": "kernel", "name": KERNEL, "pid": gpu, "tid": 20, "ts": us(kstart + offset),
                       "dur": us(end + jitter - kstart), "args": {"External id": seq, "device": gpu, "stream": 20}})
            seq += 1
    trace = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world},
             "host_name": host, "traceEvents": ev, "traceName": "rank%d" % rank}
    if not a.no_clock:
        trace["baseTimeNanoseconds"] = a.base_us * 1000
    else:  # a clock of its own: relative, per host
        for e in ev:
            if "ts" in e:
                e["ts"] = us(e["ts"] + 1e6)
    return trace


def smdebug_node(a, rng, steps, host, offset, out):
    hour = os.path.join(out, 'framework/pevents/2020091312')
    os.makedirs(hour, exist_ok=True)
    head = '{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": %d}}' % (a.base_us + offset)
    hv = [head] + ['{"name": "process_name", "ph": "M", "pid": %d, "args": {"name": "HorovodAllreduce_grad_%d"}}' % (c + 1, c)
                   for c in range(a.collectives)]
    py = [head, '{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Step:ModeKeys.TRAIN"}}']
    for k, (start, ends) in enumerate(steps):
        py.append('{"name": "Step:ModeKeys.TRAIN", "pid": 1, "ph": "X", "ts": %d, "dur": 19000, "args": {"step_num": "%d"}}'
                  % (start + rng.randint(0, 200), k))
        for c, end in enumerate(ends):
            arrive = int(end - rng.uniform(50, 2000))
            hv.append('{"name": "NEGOTIATE_ALLREDUCE", "pid": %d, "ph": "B", "ts": %d}' % (c + 1, arrive))
            hv.append('{"pid": %d, "ph": "E", "ts": %d}' % (c + 1, arrive + 20))
            hv.append('{"name": "ALLREDUCE", "pid": %d, "ph": "B", "ts": %d}' % (c + 1, arrive + 25))
            hv.append('{"name": "NCCL_ALLREDUCE", "pid": %d, "ph": "B", "ts": %d}' % (c + 1, arrive + 30))
            end_at = int(round(end + rng.uniform(-a.jitter_us, a.jitter_us)))
            hv.append('{"pid": %d, "ph": "E", "ts": %d}' % (c + 1, end_at - 3))
            hv.append('{"pid": %d, "ph": "E", "ts": %d}' % (c + 1, end_at))
    end_us = a.base_us + offset + steps[-1][0] + 20000
    for name, lines in (('horovod_timeline', hv), ('pythontimeline', py)):
        with open(os.path.join(hour, '%d_%s_%s.json' % (end_us, host, name)), 'w') as f:
            f.write('[\n' + ',\n'.join(lines) + '\n]\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out')
    ap.add_argument('--hosts', type=int, default=3)
    ap.add_argument('--ranks-per-host', type=int, default=2)
    ap.add_argument('--offsets-us', default='0,350,-5800')
    ap.add_argument('--steps', type=int, default=6)
    ap.add_argument('--collectives', type=int, default=8)
    ap.add_argument('--jitter-us', type=float, default=2.0)
    ap.add_argument('--base-us', type=int, default=1_700_000_000_000_000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--format', choices=['kineto', 'smdebug'], default='kineto')
    ap.add_argument('--no-seq', action='store_true')
    ap.add_argument('--no-clock', action='store_true')
    a = ap.parse_args()
    rng = random.Random(a.seed)
    offsets = [float(x) for x in a.offsets_us.split(',')]
    offsets += [0.0] * (a.hosts - len(offsets))
    steps = plan(a, rng)
    world = a.hosts * a.ranks_per_host
    hosts = ['host-%c' % chr(ord('a') + h) for h in range(a.hosts)]
    for h, host in enumerate(hosts):
        if a.format == 'smdebug':
            smdebug_node(a, rng, steps, host, int(offsets[h]), a.out)
            continue
        for r in range(a.ranks_per_host):
            rank = h * a.ranks_per_host + r
            path = os.path.join(a.out, host, 'rank%d.pt.trace.json' % rank)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                json.dump(kineto_rank(a, rng, steps, host, offsets[h], rank, world), f)
    with open(a.out.rstrip('/') + '.truth.json', 'w') as f:
        json.dump({"hosts": hosts, "offsets_us": offsets[:a.hosts], "base_us": a.base_us, "jitter_us": a.jitter_us,
                   "ends_us": [e for _, ends in steps for e in ends],
                   "step_starts_us": [s for s, _ in steps]}, f)


if __name__ == '__main__':
    main()
