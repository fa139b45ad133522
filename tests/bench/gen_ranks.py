#!/usr/bin/env python3
"""Writes a synthetic multi-host training job whose hosts' clocks are off by
known amounts (and drift at known rates), for the clock-check and straggler
tests, the benchmarks, and trying --align by hand.

    python3 tests/bench/gen_ranks.py OUT_DIR [--hosts 3] [--ranks-per-host 2]
        [--offsets-us 0,350,-5800] [--drift-ppm 0,40,-25] [--steps 6] [--first-step 0]
        [--collectives 8] [--jitter-us 2] [--arrival-us 2000] [--gap-ms 0]
        [--base-us N] [--seed S] [--format kineto|smdebug] [--no-seq] [--no-clock]
        [--files-per-step | --fuse] [--decoys N] [--broadcasts]
        [--straggler RANK --straggler-steps 3-5 --straggler-ms 2]
        [--p2p RANKS --p2p-steps 3-5 --p2p-ms 10] [--metrics] [--tf]
        [--sagemaker [--tf-steps 5-12] [--tf-untied H]]

Every rank runs the same steps. At each collective every rank arrives at its
own time (up to --arrival-us apart; a straggler --straggler-ms later in its
steps) and the collective ENDS on every rank when the last one has arrived
(plus 30 µs), give or take --jitter-us. What a host writes is the true time
plus its offset plus its drift (ppm of the time since the job's start).

--format kineto (default): one PyTorch/Kineto trace per rank,
  OUT_DIR/<host>/rank<R>.pt.trace.json — distributedInfo.rank, host_name,
  baseTimeNanoseconds, ns-resolution float ts; ProfilerStep#N on the CPU
  thread; nccl:all_reduce with record_param_comms (Collective name, Seq,
  Process Group Name) inside it on the CPU; an ncclDevKernel_AllReduce kernel
  on the rank's GPU stream from its arrival to the collective's end.
  --no-seq leaves out Collective name, Seq and Process Group Name (collectives
  then match by name and place); --no-clock leaves out baseTimeNanoseconds
  (relative clocks, per host). --files-per-step writes one file per step per
  rank with PyTorch's default name "<host>_<pid>.<ns>.pt.trace.json" and no
  host_name (as its trace handler does when profiling one step at a time).
  --fuse writes the ranks' traces merged into one OUT_DIR/merged_trace.json.gz
  as TraceLens's TraceFusion does: the top-level keys dropped (times written
  as Unix µs), every event's args.rank set, pid += rank × 10^k (args.pid_raw),
  and "RANK N - CPU|GPU" process names in place of the ranks' own.
  --decoys N adds N host-side nccl:all_reduce ops per step at random times;
  --broadcasts a broadcast per step whose root finishes 1.3-3.3 ms early;
  --p2p 1,3: in --p2p-steps those ranks run a send/recv kernel of --p2p-ms
  (ncclDevKernel_SendRecv) before each all-reduce and arrive that much later,
  busy, while the others wait in the all-reduce for them.
--format smdebug: one SageMaker Debugger node per rank, node id
  "<rank>-<host>": OUT_DIR/framework/pevents/<hour>/<end>_<node>_horovod_timeline.json
  (ALLREDUCE per tensor, B/E) and <end>_<node>_pythontimeline.json (steps);
  --decoys N adds a model_timeline per node with N host-side nccl::AllReduce
  ops per step at unrelated times; --metrics system metrics per host
  (system/incremental/…/<epoch>.<host>.json); --tf a TF trace per host with
  its .metadata sidecar naming the host's first node.
--sagemaker: --format smdebug as SageMaker lays a multi-node TF job out: hosts
  algo-1 … (node ids "<rank>-algo-N"), and for each step in --tf-steps a step
  folder detailed_profiling/<hour>/<step:09d>/ holding every host's sidecar
  (named by its first node, the start its own: when it began the step, on its
  clock) and every host's TF trace, named by a machine hostname
  ("ip-10-0-3-17", no node's name): its ops, and a "HorovodAllreduce_grad_<c>:
  HorovodAllreduce" op per collective ending as its first rank's ALLREDUCE does
  — none on host --tf-untied (nothing in it ties it to its host).

Writes OUT_DIR.truth.json (beside the job, not in it): each host's offset and
drift, the ranks, each collective's true end and each rank's arrival, each
step's true start, the straggler, and (--sagemaker) each TF trace's host,
hostname, sidecar and start.
"""
import argparse
import gzip
import json
import math
import os
import random

KERNEL = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)'
BROADCAST = 'ncclDevKernel_Broadcast_RING_LL(ncclDevComm*, unsigned long, ncclWork*)'
SENDRECV = 'ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)'
TRANSFER_US = 30


def plan(a, rng, world):
    """The true timeline every rank shares (µs from the job's start): per step its
    start and end, and its collectives: each rank's arrival and the common end."""
    steps, t = [], 0.0
    for k in range(a.steps):
        step = a.first_step + k
        start = t
        cursor = start + 4000
        colls = []
        for c in range(a.collectives):
            cursor += 14000 // a.collectives + rng.randint(0, 300)
            arrivals = [cursor - rng.uniform(50, a.arrival_us) for _ in range(world)]
            if a.straggler is not None and a.straggler_lo <= step <= a.straggler_hi:
                arrivals[a.straggler] = max(arrivals) + a.straggler_ms * 1000
            p2p = []
            if a.p2p_lo <= step <= a.p2p_hi:
                for r in a.p2p_ranks:
                    p2p.append([r, arrivals[r], arrivals[r] + a.p2p_ms * 1000])
                    arrivals[r] += a.p2p_ms * 1000 + 5
            end = max(arrivals) + TRANSFER_US
            colls.append({"end": end, "arrivals": arrivals, "seq": len(colls) + k * a.collectives, "p2p": p2p})
            cursor = end
        stop = cursor + 2000
        steps.append({"step": step, "start": start, "end": stop, "colls": colls})
        t = stop + a.gap_ms * 1000
    return steps


def clock(a, h):
    """What host h's clock says at true time t (µs from the job's start)."""
    off, ppm = a.offsets[h], a.drifts[h]
    return lambda t: t + off + ppm * 1e-6 * t


def us(x):
    return round(x, 3)  # ns resolution, as Kineto writes


def kineto_events(a, rng, steps, w, rank):
    pid, tid, gpu = 1000 + rank, 1000 + rank, rank % a.ranks_per_host
    meta = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": "CPU"}},
            {"ph": "M", "name": "process_name", "pid": gpu, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "process_labels", "pid": gpu, "tid": 0, "args": {"labels": "GPU %d" % gpu}},
            {"ph": "M", "name": "thread_name", "pid": gpu, "tid": 20, "args": {"name": "stream 20 "}}]

    def x(name, cat, p, th, t0, t1, args):
        return {"ph": "X", "cat": cat, "name": name, "pid": p, "tid": th, "ts": us(w(t0)),
                "dur": us(w(t1) - w(t0)), "args": args}

    per_step = []
    for s in steps:
        ev = [x("ProfilerStep#%d" % s["step"], "user_annotation", pid, tid, s["start"] + rng.uniform(0, 200),
                s["end"] - rng.uniform(0, 200), {})]
        for c in s["colls"]:
            arrive = c["arrivals"][rank]
            comm = {"External id": c["seq"]}
            if not a.no_seq:
                comm.update({"Collective name": "allreduce", "Seq": c["seq"], "Process Group Name": "0"})
            ev.append(x("nccl:all_reduce", "user_annotation", pid, tid, arrive - 60, arrive - 29.5, {"External id": c["seq"]}))
            ev.append(x("record_param_comms", "cpu_op", pid, tid, arrive - 59, arrive - 38.75, comm))
            for r, t0, t1 in c["p2p"]:
                if r == rank:
                    ev.append(x(SENDRECV, "kernel", gpu, 20, t0, t1, {"device": gpu, "stream": 20}))
            end = c["end"] + rng.uniform(-a.jitter_us, a.jitter_us)
            ev.append(x(KERNEL, "kernel", gpu, 20, arrive, end, {"External id": c["seq"], "device": gpu, "stream": 20}))
        for _ in range(a.decoys):  # host-side collectives at unrelated times
            t0 = rng.uniform(s["start"], s["end"])
            ev.append(x("nccl:all_reduce", "user_annotation", pid, tid, t0, t0 + 30.5, {}))
        if a.broadcasts:  # the root finishes early
            t0 = s["colls"][0]["end"] + 100
            end = t0 + 4000 - (rng.uniform(1300, 3300) if rank == 0 else 0)
            ev.append(x(BROADCAST, "kernel", gpu, 20, t0, end, {"device": gpu, "stream": 20}))
        per_step.append(ev)
    return meta, per_step


def kineto_trace(a, rank, world, host, events, with_host):
    trace = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world},
             "traceEvents": events, "traceName": "rank%d" % rank}
    if with_host:
        trace["host_name"] = host
    if not a.no_clock:
        trace["baseTimeNanoseconds"] = a.base_us * 1000
    else:  # a clock of its own: relative, per host
        for e in events:
            if "ts" in e:
                e["ts"] = us(e["ts"] + 1e6)
    return trace


def fuse(traces, out):
    """Ranks' traces as TraceLens's TraceFusion merges them (see --fuse)."""
    top = max(e["pid"] for e in traces[0]["traceEvents"] if isinstance(e.get("pid"), int))
    mult = 10 ** (math.ceil(math.log10(top + 1)) + 1)
    merged, pid_rank, gpu = [], {}, set()
    for rank, trace in enumerate(traces):
        base = trace.get("baseTimeNanoseconds", 0) / 1000
        for e in trace["traceEvents"]:
            if e["ph"] == "M" and e["name"] in ("process_name", "process_sort_index", "process_labels"):
                continue
            e = dict(e, args=dict(e.get("args", {}), rank=rank, pid_raw=e["pid"]))
            e["pid"] += rank * mult
            if "ts" in e:
                e["ts"] = us(e["ts"] + base)
            if e["ph"] != "M":
                pid_rank.setdefault(e["pid"], rank)
                if e.get("cat") == "kernel":
                    gpu.add(e["pid"])
            merged.append(e)
    for pid, rank in sorted(pid_rank.items(), key=lambda x: (x[1], x[0])):
        merged.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
                       "args": {"name": "RANK %d - %s" % (rank, "GPU" if pid in gpu else "CPU")}})
    os.makedirs(out, exist_ok=True)
    with gzip.open(os.path.join(out, "merged_trace.json.gz"), "wt") as f:
        json.dump({"traceEvents": merged}, f, indent=4)


def write_kineto(a, rng, steps, hosts, world):
    fused = []
    for h, host in enumerate(hosts):
        w = clock(a, h)
        for r in range(a.ranks_per_host):
            rank = h * a.ranks_per_host + r
            meta, per_step = kineto_events(a, rng, steps, w, rank)
            if a.fuse:
                fused.append(kineto_trace(a, rank, world, host, meta + [e for ev in per_step for e in ev], True))
                continue
            if not a.files_per_step:
                path = os.path.join(a.out, host, 'rank%d.pt.trace.json' % rank)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'w') as f:
                    json.dump(kineto_trace(a, rank, world, host, meta + [e for ev in per_step for e in ev], True), f)
                continue
            for s, ev in zip(steps, per_step):  # PyTorch's trace handler: "<host>_<pid>.<ns>.pt.trace.json"
                ns = int((a.base_us + w(s["end"])) * 1000) + rank
                path = os.path.join(a.out, "%s_%d.%d.pt.trace.json" % (host, 1000 + rank, ns))  # (pid: its CPU process's)
                os.makedirs(a.out, exist_ok=True)
                with open(path, 'w') as f:
                    json.dump(kineto_trace(a, rank, world, host, meta + ev, False), f)
    if fused:
        fuse(fused, a.out)


def write_smdebug(a, rng, steps, hosts, world):
    hour = os.path.join(a.out, 'framework/pevents/2020091312')
    os.makedirs(hour, exist_ok=True)
    job_end = steps[-1]["end"]
    ends = {}  # (rank, step, collective) → when its ALLREDUCE ended there (true time): the TF ops end with it
    for h, host in enumerate(hosts):
        w = clock(a, h)
        for r in range(a.ranks_per_host):
            rank = h * a.ranks_per_host + r
            node = '%d-%s' % (rank, host)
            head = ('{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": %d}}'
                    % (a.base_us + a.offsets[h]))
            rel = lambda t: int(round(w(t) - a.offsets[h]))  # times after the header's start
            hv = [head] + ['{"name": "process_name", "ph": "M", "pid": %d, "args": {"name": "HorovodAllreduce_grad_%d"}}'
                           % (c + 1, c) for c in range(a.collectives)]
            py = [head, '{"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "Step:ModeKeys.TRAIN"}}']
            mt = [head]
            for s in steps:
                py.append('{"name": "Step:ModeKeys.TRAIN", "pid": 1, "ph": "X", "ts": %d, "dur": %d, "args": {"step_num": "%d"}}'
                          % (rel(s["start"] + rng.randint(0, 200)), rel(s["end"]) - rel(s["start"]), s["step"]))
                for c, coll in enumerate(s["colls"]):
                    arrive = coll["arrivals"][rank]
                    end_at = coll["end"] + rng.uniform(-a.jitter_us, a.jitter_us)
                    ends[(rank, s["step"], c)] = end_at
                    hv.append('{"name": "NEGOTIATE_ALLREDUCE", "pid": %d, "ph": "B", "ts": %d}' % (c + 1, rel(arrive - 45)))
                    hv.append('{"pid": %d, "ph": "E", "ts": %d}' % (c + 1, rel(arrive - 25)))
                    hv.append('{"name": "ALLREDUCE", "pid": %d, "ph": "B", "ts": %d}' % (c + 1, rel(arrive - 20)))
                    hv.append('{"name": "NCCL_ALLREDUCE", "pid": %d, "ph": "B", "ts": %d}' % (c + 1, rel(arrive)))
                    hv.append('{"pid": %d, "ph": "E", "ts": %d}' % (c + 1, rel(end_at) - 3))
                    hv.append('{"pid": %d, "ph": "E", "ts": %d}' % (c + 1, rel(end_at)))
                for _ in range(a.decoys):
                    t0 = rng.uniform(s["start"], s["end"])
                    mt.append('{"name": "nccl::AllReduce", "pid": 7, "tid": 7, "ph": "X", "ts": %d, "dur": %d}'
                              % (rel(t0), rng.randint(5, 40)))
            end_us = a.base_us + int(w(job_end))
            files = [('horovod_timeline', hv), ('pythontimeline', py)] + ([('model_timeline', mt)] if a.decoys else [])
            for name, lines in files:
                with open(os.path.join(hour, '%d_%s_%s.json' % (end_us, node, name)), 'w') as f:
                    f.write('[\n' + ',\n'.join(lines) + '\n]\n')
        if a.metrics:
            folder = os.path.join(a.out, 'system/incremental/2020091312')
            os.makedirs(folder, exist_ok=True)
            lines, t = [], 0.0
            while t <= job_end:
                lines.append(json.dumps({"Type": "cpu", "Name": "cpu0", "Dimension": "CPUUtilization",
                                         "Value": round(rng.uniform(20, 90), 2), "NodeId": host,
                                         "Timestamp": round((a.base_us + w(t)) / 1e6, 6)}))
                t += 100000
            with open(os.path.join(folder, '%d.%s.json' % ((a.base_us + a.offsets[h]) // 1000000, host)), 'w') as f:
                f.write('\n'.join(lines) + '\n')
        if a.sagemaker:
            continue
        if a.tf:
            step_dir = os.path.join(a.out, 'framework/tensorflow/detailed_profiling/2020091312/000000001')
            prof = os.path.join(step_dir, 'plugins/profile/2020_09_13_12_00_00')
            os.makedirs(prof, exist_ok=True)
            start = a.base_us + int(w(steps[0]["start"]))
            ev = [{"ph": "X", "name": "MatMul", "pid": 1, "tid": 1, "ts": round(w(s["start"] + 100) - w(steps[0]["start"]), 3),
                   "dur": 500.0} for s in steps]
            with gzip.open(os.path.join(prof, '%s.trace.json.gz' % host), 'wt') as f:
                json.dump({"displayTimeUnit": "ns", "traceEvents": ev}, f)
            node = '%d-%s' % (h * a.ranks_per_host, host)
            open(os.path.join(step_dir, '%s_%d_%d.metadata' % (node, start, start + 1000)), 'w').close()
    if a.sagemaker:
        return write_sagemaker_tf(a, rng, steps, hosts, ends)


def write_sagemaker_tf(a, rng, steps, hosts, ends):
    """SageMaker's TF detailed profiling: every node profiles the same steps, so a
    step folder holds one sidecar per node, named by its node id ("0-algo-2": the
    host from the resource config), and one trace per node, named by the
    machine's hostname ("ip-10-0-3-17"), which is no node's name. A node starts
    profiling the step when it starts it (its own moment, on its own clock)."""
    names = ['ip-10-0-%d-%d' % (rng.randint(0, 255), rng.randint(2, 254)) for _ in hosts]
    lo, hi = (int(x) for x in a.tf_steps.split('-'))
    truth = []
    for s in steps:
        if not lo <= s["step"] <= hi:
            continue
        step_dir = os.path.join(a.out, 'framework/tensorflow/detailed_profiling/2020091312/%09d' % s["step"])
        prof = os.path.join(step_dir, 'plugins/profile/2020_09_13_12_%02d_00' % (s["step"] % 60))
        os.makedirs(prof, exist_ok=True)
        for h, host in enumerate(hosts):
            w = clock(a, h)
            rank = h * a.ranks_per_host  # (the node that profiles: the host's first rank)
            began = s["start"] + rng.uniform(20, 400)
            start_us = a.base_us + int(w(began))
            end_us = a.base_us + int(w(s["end"]))
            rel = lambda t: round(a.base_us + w(t) - start_us, 3)
            ev = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/host:CPU"}}]
            t = began + 30
            while t < s["end"] - 300:  # the host's own ops, through the step
                dur = rng.uniform(5, 120)
                ev.append({"ph": "X", "pid": 1, "tid": 7, "name": "MatMul:MatMul", "ts": rel(t), "dur": round(w(t + dur) - w(t), 3)})
                t += dur + rng.uniform(50, 400)
            if h != a.tf_untied:
                for c, coll in enumerate(s["colls"]):
                    t0, t1 = coll["arrivals"][rank] - 20, ends[(rank, s["step"], c)] + 2
                    ev.append({"ph": "X", "pid": 1, "tid": 8, "name": "HorovodAllreduce_grad_%d:HorovodAllreduce" % c,
                               "ts": rel(t0), "dur": round(w(t1) - w(t0), 3)})
            path = os.path.join(prof, '%s.trace.json.gz' % names[h])
            with gzip.open(path, 'wt') as f:
                json.dump({"displayTimeUnit": "ns", "metadata": {"highres-ticks": True}, "traceEvents": ev}, f)
            sidecar = '%d-%s_%d_%d.metadata' % (rank, host, start_us, end_us)
            open(os.path.join(step_dir, sidecar), 'w').close()
            truth.append({"path": os.path.relpath(path, os.path.dirname(a.out.rstrip('/'))), "host": host,
                          "hostname": names[h], "sidecar": sidecar, "start_us": start_us, "step": s["step"],
                          "tied": h != a.tf_untied})
    return truth


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out')
    ap.add_argument('--hosts', type=int, default=3)
    ap.add_argument('--ranks-per-host', type=int, default=2)
    ap.add_argument('--offsets-us', default='0,350,-5800')
    ap.add_argument('--drift-ppm', default='0')
    ap.add_argument('--steps', type=int, default=6)
    ap.add_argument('--first-step', type=int, default=0)
    ap.add_argument('--collectives', type=int, default=8)
    ap.add_argument('--jitter-us', type=float, default=2.0)
    ap.add_argument('--arrival-us', type=float, default=2000.0)
    ap.add_argument('--gap-ms', type=float, default=0.0)
    ap.add_argument('--base-us', type=int, default=1_700_000_000_000_000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--format', choices=['kineto', 'smdebug'], default='kineto')
    ap.add_argument('--no-seq', action='store_true')
    ap.add_argument('--no-clock', action='store_true')
    ap.add_argument('--files-per-step', action='store_true')
    ap.add_argument('--fuse', action='store_true')
    ap.add_argument('--decoys', type=int, default=0)
    ap.add_argument('--broadcasts', action='store_true')
    ap.add_argument('--straggler', type=int)
    ap.add_argument('--straggler-steps', default='3-5')
    ap.add_argument('--straggler-ms', type=float, default=2.0)
    ap.add_argument('--p2p', default='')
    ap.add_argument('--p2p-steps', default='3-5')
    ap.add_argument('--p2p-ms', type=float, default=10.0)
    ap.add_argument('--metrics', action='store_true')
    ap.add_argument('--tf', action='store_true')
    ap.add_argument('--sagemaker', action='store_true')
    ap.add_argument('--tf-steps', default='0-1000000')
    ap.add_argument('--tf-untied', type=int, default=-1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    a.offsets = [float(x) for x in a.offsets_us.split(',')]
    a.offsets += [0.0] * (a.hosts - len(a.offsets))
    a.drifts = [float(x) for x in a.drift_ppm.split(',')]
    a.drifts += [0.0] * (a.hosts - len(a.drifts))
    a.straggler_lo, a.straggler_hi = (int(x) for x in a.straggler_steps.split('-'))
    a.p2p_ranks = [int(x) for x in a.p2p.split(',') if x]
    a.p2p_lo, a.p2p_hi = (int(x) for x in a.p2p_steps.split('-')) if a.p2p_ranks else (1, 0)
    world = a.hosts * a.ranks_per_host
    steps = plan(a, rng, world)
    hosts = ['host-%s' % (chr(ord('a') + h) if h < 26 else str(h)) for h in range(a.hosts)]
    if a.sagemaker:
        a.format = 'smdebug'
        hosts = ['algo-%d' % (h + 1) for h in range(a.hosts)]
    tf = (write_smdebug if a.format == 'smdebug' else write_kineto)(a, rng, steps, hosts, world)
    with open(a.out.rstrip('/') + '.truth.json', 'w') as f:
        json.dump({"hosts": hosts, "offsets_us": a.offsets[:a.hosts], "drift_ppm": a.drifts[:a.hosts],
                   "ranks": [{"rank": h * a.ranks_per_host + r, "host": hosts[h]}
                             for h in range(a.hosts) for r in range(a.ranks_per_host)],
                   "base_us": a.base_us, "jitter_us": a.jitter_us,
                   "ends_us": [c["end"] for s in steps for c in s["colls"]],
                   "collectives": [{"step": s["step"], "end_us": c["end"], "arrivals_us": c["arrivals"]}
                                   for s in steps for c in s["colls"]],
                   "step_starts_us": [s["start"] for s in steps],
                   "tf": tf or [],
                   "straggler": None if a.straggler is None else
                   {"rank": a.straggler, "steps": [a.straggler_lo, a.straggler_hi], "ms": a.straggler_ms},
                   "p2p": None if not a.p2p_ranks else
                   {"ranks": a.p2p_ranks, "steps": [a.p2p_lo, a.p2p_hi], "ms": a.p2p_ms}}, f)


if __name__ == '__main__':
    main()
