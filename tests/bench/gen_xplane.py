#!/usr/bin/env python3
"""Writes a synthetic multi-host JAX-on-GPU profile as the TensorFlow >= 2.11 /
JAX profiler leaves it: one protobuf XSpace per host, for the XPlane reader's
tests and for trying the clock checks on binary input.

    python3 tests/bench/gen_xplane.py OUT_DIR [--hosts 2] [--gpus-per-host 2]
        [--offsets-us 0,350] [--steps 4] [--first-step 0] [--collectives 6]
        [--jitter-us 2] [--arrival-us 2000] [--base-us 1700000000000000]
        [--straggler HOST --straggler-steps 2-3 --straggler-ms 2] [--seed S]
        [--relative] [--nccl-kernels | --xla-ops-only]

Every GPU is a rank (rank = host × gpus-per-host + gpu) and runs the same
steps. At each collective every rank arrives at its own time (up to
--arrival-us apart; the straggler host's GPUs --straggler-ms after the last of
the others in its steps) and the collective ENDS on every rank when the last
one has arrived (plus 30 µs), give or take --jitter-us. What a host writes is
the true time plus its offset. Times are whole picoseconds, so a reader can be
checked to the picosecond.

Layout, as tsl's profiler session saves it (save_profile.cc, SaveXSpace):
  OUT_DIR/plugins/profile/2024_01_01_00_00_00/<host>.xplane.pb, XSpace.hostnames
  = [host]. Planes, in the order real files have them:
  /host:metadata      event metadata "jit_train_step(17)" (id = program_id) with
                      an "Hlo Proto" bytes stat (a tiny serialized HloProto).
  /device:GPU:<g>     plane id g; device_vendor, clock_rate, ... plane stats;
                      "Stream #<s>(Kernel)" lines (line id = stream id): compute
                      kernels on one stream, the NCCL kernel
                      ncclDevKernel_AllReduce_Sum_f32_RING_LL(...) on another, from
                      the rank's arrival to the collective's end. Kernels carry
                      correlation_id (uint64), kernel_details, tf_op, hlo_op,
                      hlo_module (ref_value), program_id (int64).
                      Then the lines xprof derives when it groups a GPU profile
                      (derived_timeline.cc): "XLA Modules", "XLA Ops" (event name
                      "17/all-reduce.3", display name "all-reduce.3") and "Steps"
                      (event name = group id, stats group_id and step_name
                      "train <n>"); every device event then has a group_id stat.
  /host:CPU           thread lines, line id = tid, sorted by name: "python3" with
                      JAX's StepTraceAnnotation "train" (stats _r=1, step_num) around
                      "PjitFunction(train_step)"; "py_xla_execute/<id>" per GPU
                      (negative int64 ids, as real files have); "Host Threads/<tid>"
                      with cuLaunchKernel per kernel (correlation_id, and hlo_op /
                      hlo_module as ref_value stats naming a stat metadata);
                      "tf_pjrt_thread_pool/<tid>" with one aggregated event
                      (num_occurrences, no offset_ps).
  Task Environment    stats profile_start_time / profile_stop_time: uint64, ns
                      since the epoch on the host's clock. Every line's
                      timestamp_ns is relative to profile_start_time (the profiler
                      subtracts it before saving), and event times are line
                      timestamp_ns × 1000 + offset_ps.
--relative: no Task Environment plane (times relative, start unknown, as older
  files). --nccl-kernels: only what jax.profiler writes (no derived lines, no
  group_id). --xla-ops-only: no NCCL kernels; the collectives only on "XLA Ops"
  (as a TPU shows them).
Values in a oneof (offset_ps, a stat's value) are written even when zero.

Writes OUT_DIR.truth.json (beside the job, not in it): hosts, offsets, ranks,
steps, the straggler, each collective's true end and each rank's arrival and
kernel span (ps from the job's start), and per file its path, profile start,
the host-clock time of its first event and its event counts per plane.
"""
import argparse
import json
import os
import random
import struct

KERNEL = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)'
SESSION = '2024_01_01_00_00_00'
MODULE, PROGRAM_ID = 'jit_train_step', 17
# trace_utils.h: constexpr int kThreadIdDerivedMin = 0xdeadbeef, an int, so the ids are negative
STEP_LINE, MODULE_LINE, OP_LINE = -559038737, -559038737 + 4, -559038737 + 5
US = 1_000_000  # ps
TRANSFER = 30 * US

# --- protobuf wire format ---------------------------------------------------


def varint(n):
    n &= (1 << 64) - 1  # int64 as two's complement: negatives take ten bytes
    out = bytearray()
    while n > 0x7f:
        out.append(n & 0x7f | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def f_int(field, n, always=False):  # varint fields; proto3 leaves zeros out, a oneof may not
    return varint(field << 3) + varint(n) if n or always else b''


def f_len(field, data):
    return varint(field << 3 | 2) + varint(len(data)) + data


def f_str(field, s):
    return f_len(field, s.encode()) if s else b''


def f_double(field, x):
    return varint(field << 3 | 1) + struct.pack('<d', x)


class Plane:
    """An XPlane being built: metadata ids from 1 as XPlaneBuilder gives them, and
    string stat values as ref_value to a stat metadata named by the string."""

    def __init__(self, pid, name):
        self.id, self.name = pid, name
        self.lines, self.stats = [], []
        self.event_md, self.stat_md = {}, {}  # name -> [id, display_name, stats]

    def stat_id(self, name):
        return self.stat_md.setdefault(name, [len(self.stat_md) + 1])[0]

    def event_id(self, name, display='', stats=(), md_id=None):
        if name not in self.event_md:
            self.event_md[name] = [md_id or len(self.event_md) + 1, display, list(stats)]
        return self.event_md[name][0]

    def stat(self, name, kind, value):
        key = self.stat_id(name)
        if kind == 'i':
            body = f_int(4, value, True)
        elif kind == 'u':
            body = f_int(3, value, True)
        elif kind == 'd':
            body = f_double(2, value)
        elif kind == 's':
            body = f_len(5, value.encode())
        elif kind == 'b':
            body = f_len(6, value)
        else:  # 'r': the value is the name of a stat metadata
            body = f_int(7, self.stat_id(value), True)
        return f_int(1, key) + body

    def line(self, lid, name, display_name=''):
        ln = {"id": lid, "name": name, "display_name": display_name, "ts_ns": 0, "events": []}
        self.lines.append(ln)
        return ln

    def encode(self):
        out = f_int(1, self.id) + f_str(2, self.name)
        for ln in self.lines:
            body = f_int(1, ln["id"]) + f_str(2, ln["name"]) + f_int(3, ln["ts_ns"])
            for md, off, n, dur, stats in ln["events"]:
                ev = f_int(1, md) + (f_int(2, off, True) if n is None else b'') + f_int(3, dur)
                ev += b''.join(f_len(4, s) for s in stats) + (f_int(5, n, True) if n is not None else b'')
                body += f_len(4, ev)
            out += f_len(3, body + f_str(11, ln["display_name"]))
        for name, (mid, display, stats) in sorted(self.event_md.items(), key=lambda kv: kv[1][0]):
            md = f_int(1, mid) + f_str(2, name) + f_str(4, display) + b''.join(f_len(5, s) for s in stats)
            out += f_len(4, f_int(1, mid) + f_len(2, md))
        for name, (sid,) in sorted(self.stat_md.items(), key=lambda kv: kv[1][0]):
            out += f_len(5, f_int(1, sid) + f_len(2, f_int(1, sid) + f_str(2, name)))
        return out + b''.join(f_len(6, s) for s in self.stats)

    def counts(self):
        evs = [e for ln in self.lines for e in ln["events"]]
        return {"timed": sum(1 for e in evs if e[2] is None), "aggregated": sum(1 for e in evs if e[2] is not None)}


def place(plane, lines, rng, shared):
    """Turns each line's events from (ps from the profile's start, ...) into
    (line timestamp_ns, offset_ps): one timestamp for the plane (as a device
    plane has) or one per line (as host threads have), a little before the
    first event."""
    def start(ln):
        return min((e[1] for e in ln["events"] if e[1] is not None), default=0)
    if shared:
        ts = max(0, min(start(ln) for ln in lines) // 1000 - rng.randint(0, 5000))
    for ln in lines:
        if not shared:
            ts = max(0, start(ln) // 1000 - rng.randint(0, 5000))
        ln["ts_ns"] = ts
        ln["events"] = [(md, None if t is None else t - ts * 1000, n, dur, st)
                        for md, t, n, dur, st in sorted(ln["events"], key=lambda e: (e[1] or 0, -e[3]))]

# --- the job ----------------------------------------------------------------


def plan(a, rng, world):
    """The true timeline every rank shares (ps from the job's start): per step its
    start and end, and its collectives: each rank's arrival, the common end and
    each rank's kernel end (the end give or take the jitter)."""
    steps, t = [], 0
    gap = max(14000 // a.collectives, int(a.arrival_us) + 300)  # arrivals after the last end: lines must not overlap
    for k in range(a.steps):
        step = a.first_step + k
        start, cursor, colls = t, t + 4000 * US, []
        for c in range(a.collectives):
            cursor += (gap + rng.randint(0, 300)) * US
            spread = int(a.arrival_us * US)
            arrivals = [cursor - rng.randint(min(50 * US, spread), spread) for _ in range(world)]
            if a.straggler is not None and a.straggler_lo <= step <= a.straggler_hi:
                late = max((r for i, r in enumerate(arrivals) if i // a.gpus_per_host != a.straggler), default=max(arrivals))
                for g in range(a.gpus_per_host):
                    arrivals[a.straggler * a.gpus_per_host + g] = late + int(a.straggler_ms * 1000 * US) + rng.randint(0, 50 * US)
            end = max(arrivals) + TRANSFER
            jit = int(a.jitter_us * US)
            colls.append({"op": "all-reduce.%d" % (c + 1), "arrivals": arrivals, "end": end,
                          "kernel_ends": [end + rng.randint(-jit, jit) for _ in range(world)]})
            cursor = end
        stop = cursor + 2000 * US
        steps.append({"step": step, "group": k, "start": start, "end": stop, "colls": colls})
        t = stop
    return steps


def rank_kernels(a, rng, steps, rank):
    """One rank's kernels in order, true ps: (step, start, end, hlo_op, kernel, is_nccl).
    Before each collective the rank computes until it arrives; after the last one
    an optimizer fusion."""
    out = []
    for s in steps:
        t = s["start"] + 500 * US + rng.randint(0, 100 * US)
        for c, coll in enumerate(s["colls"]):
            arrive = coll["arrivals"][rank]
            t0 = min(t, arrive - 4 * US)
            out.append((s, t0, arrive - 3 * US, "fusion.%d" % (c + 1), "fusion_%d" % (c + 1), False))
            if not a.xla_ops_only:
                out.append((s, arrive, coll["kernel_ends"][rank], coll["op"], KERNEL, True))
            t = coll["kernel_ends"][rank] + 5 * US
        out.append((s, t, t + 800 * US, "loop_add_fusion", "loop_add_fusion", False))
    return out


def hlo_proto():
    """HloProto{hlo_module: HloModuleProto{name, id}}: what /host:metadata stores."""
    return f_len(1, f_str(1, MODULE) + f_int(5, PROGRAM_ID))


def write_host(a, rng, steps, h, host, path):
    """One host's XSpace. Returns what the truth file says of it."""
    off = int(round(a.offsets[h] * US))
    base = a.base_us * US
    lead = rng.randint(1500 * US, 3000 * US)
    start_ns = (base + off - lead) // 1000  # the profile's start, on this host's clock
    rel = lambda t: base + off + t - start_ns * 1000  # ps from the profile's start
    derived = not a.nccl_kernels
    meta = Plane(0, '/host:metadata')
    meta.event_id('%s(%d)' % (MODULE, PROGRAM_ID), md_id=PROGRAM_ID,
                  stats=[meta.stat('Hlo Proto', 'b', hlo_proto())])
    cpu = Plane(0, '/host:CPU')
    main = cpu.line(48211, 'python3', 'python3')
    pool_tid = 48260
    pool = cpu.line(pool_tid, 'tf_pjrt_thread_pool/%d' % pool_tid, 'tf_pjrt_thread_pool/%d' % pool_tid)
    for s in steps:
        t0, t1 = s["start"] + rng.randint(0, 200 * US), s["end"] - rng.randint(0, 200 * US)
        main["events"].append((cpu.event_id('train'), rel(t0), None, t1 - t0,
                               [cpu.stat('_r', 'i', 1), cpu.stat('step_num', 'i', s["step"])]))
        main["events"].append((cpu.event_id('PjitFunction(train_step)'), rel(t0 + 20 * US), None,
                               t1 - t0 - 40 * US, []))
        pool["events"].append((cpu.event_id('BufferSequencingEvent::Execute'), rel(t0 + 70 * US), None,
                               rng.randint(5 * US, 30 * US), []))
    durs = [rng.randint(200_000, 900_000) for _ in range(37)]  # ThreadpoolListener, aggregated as AggregateXPlane does
    pool["events"].append((cpu.event_id('ThreadpoolListener::Record'), None, len(durs), sum(durs),
                           [cpu.stat('min_duration_ps', 'i', min(durs))]))
    gpus, kspans = [], []
    for g in range(a.gpus_per_host):
        rank = h * a.gpus_per_host + g
        dev = Plane(g, '/device:GPU:%d' % g)
        dev.stats = [dev.stat('device_vendor', 's', 'Nvidia'), dev.stat('clock_rate', 'i', 1980000),
                     dev.stat('core_count', 'i', 132), dev.stat('memory_bandwidth', 'u', 3352320000000),
                     dev.stat('memory_size', 'u', 85029158912), dev.stat('compute_cap_major', 'i', 9),
                     dev.stat('compute_cap_minor', 'i', 0)]
        comp = dev.line(10 + 4 * g, 'Stream #%d(Kernel)' % (10 + 4 * g))
        nccl = dev.line(12 + 4 * g, 'Stream #%d(Kernel)' % (12 + 4 * g)) if not a.xla_ops_only else None
        tid = 48300 + g
        launch = cpu.line(tid, 'Host Threads/%d' % tid, 'Host Threads/%d' % tid)
        xid = -(rng.getrandbits(62) + 1)  # py_xla_execute lines have hashed, often negative, ids
        execl = cpu.line(xid, 'py_xla_execute/%d' % xid, 'py_xla_execute/%d' % xid)
        ops = dev.line(OP_LINE, 'XLA Ops') if derived else None
        modules = dev.line(MODULE_LINE, 'XLA Modules') if derived else None
        steps_line = dev.line(STEP_LINE, 'Steps') if derived else None
        span, launches, corr = {}, {}, 0
        for s, k0, k1, op, kname, is_nccl in rank_kernels(a, rng, steps, rank):
            corr += 1
            group = [dev.stat('group_id', 'i', s["group"])] if derived else []
            hlo = [dev.stat('hlo_op', 'r', op), dev.stat('hlo_module', 'r', MODULE), dev.stat('program_id', 'i', PROGRAM_ID)]
            grid = ' grid:%d,1,1 block:%d,1,1 dynamic shared:0 static shared:0 registers per thread:%d' % (
                (32, 512, 96) if is_nccl else (264, 256, 40))
            dev_stats = [dev.stat('correlation_id', 'u', corr), dev.stat('kernel_details', 'r', grid),
                         dev.stat('tf_op', 'r', 'XlaModule:')] + hlo + group
            (nccl if is_nccl else comp)["events"].append((dev.event_id(kname), rel(k0), None, k1 - k0, dev_stats))
            if ops is not None:
                ops["events"].append((dev.event_id('%d/%s' % (PROGRAM_ID, op), op), rel(k0), None, k1 - k0, group))
            lo, hi = span.get(s["group"], (k0, k1))
            span[s["group"]] = (min(lo, k0), max(hi, k1))
            l0 = k0 - 12 * US if not is_nccl else launches[s["group"]][-1][0] + 6 * US
            launches.setdefault(s["group"], []).append((l0, op))
            launch["events"].append((cpu.event_id('cuLaunchKernel'), rel(l0), None, 4 * US,
                                     [cpu.stat('correlation_id', 'u', corr), cpu.stat('hlo_op', 'r', op),
                                      cpu.stat('hlo_module', 'r', MODULE), cpu.stat('program_id', 'i', PROGRAM_ID)]))
            if is_nccl:
                kspans.append({"rank": rank, "step": s["step"], "op": op, "start_ps": k0, "end_ps": k1})
        if a.xla_ops_only:  # the collectives only as XLA ops, from arrival to the end
            for s in steps:
                for coll in s["colls"]:
                    k0, k1 = coll["arrivals"][rank], coll["kernel_ends"][rank]
                    ops["events"].append((dev.event_id('%d/%s' % (PROGRAM_ID, coll["op"]), coll["op"]), rel(k0),
                                          None, k1 - k0, [dev.stat('group_id', 'i', s["group"])]))
                    kspans.append({"rank": rank, "step": s["step"], "op": coll["op"], "start_ps": k0, "end_ps": k1})
        for grp, ls in launches.items():
            t0, t1 = ls[0][0] - 30 * US, ls[-1][0] + 14 * US
            execl["events"].append((cpu.event_id('PjRtStreamExecutorLoadedExecutable::ExecuteHelper'), rel(t0), None, t1 - t0, []))
        if derived:
            for s in steps:
                lo, hi = span[s["group"]]
                st = [dev.stat('group_id', 'i', s["group"])]
                modules["events"].append((dev.event_id('%s(%d)' % (MODULE, PROGRAM_ID)), rel(lo), None, hi - lo, st))
                steps_line["events"].append((dev.event_id(str(s["group"])), rel(lo), None, hi - lo,
                                             st + [dev.stat('step_name', 's', 'train %d' % s["step"])]))
        place(dev, dev.lines, rng, shared=True)
        gpus.append(dev)
    cpu.lines.sort(key=lambda ln: ln["name"])
    place(cpu, cpu.lines, rng, shared=False)
    planes = [meta] + gpus + [cpu]
    last = max(ln["ts_ns"] * 1000 + e[1] + e[3] for p in planes for ln in p.lines for e in ln["events"] if e[1] is not None)
    stop_ns = start_ns + last // 1000 + rng.randint(1_000_000, 3_000_000)
    if not a.relative:
        env = Plane(0, 'Task Environment')
        env.stats = [env.stat('profile_start_time', 'u', start_ns), env.stat('profile_stop_time', 'u', stop_ns)]
        planes.append(env)
    data = b''.join(f_len(1, p.encode()) for p in planes) + f_str(4, host)
    with open(path, 'wb') as f:
        f.write(data)
    first = min(ln["ts_ns"] * 1000 + e[1] for p in planes for ln in p.lines for e in ln["events"] if e[1] is not None)
    counts = {p.name: p.counts() for p in planes}
    return {"host": host, "path": os.path.relpath(path, os.path.dirname(a.out.rstrip('/'))), "bytes": len(data),
            "profile_start_ns": start_ns, "profile_stop_ns": stop_ns, "task_environment": not a.relative,
            # (absolute ps pass 2^64: a string, for strict JSON readers)
            "first_event_rel_ps": first, "first_event_ps": str(start_ns * 1000 + first),
            "events": {"planes": counts, "timed": sum(c["timed"] for c in counts.values()),
                       "aggregated": sum(c["aggregated"] for c in counts.values())}}, kspans


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out')
    ap.add_argument('--hosts', type=int, default=2)
    ap.add_argument('--gpus-per-host', type=int, default=2)
    ap.add_argument('--offsets-us', default='0,350')
    ap.add_argument('--steps', type=int, default=4)
    ap.add_argument('--first-step', type=int, default=0)
    ap.add_argument('--collectives', type=int, default=6)
    ap.add_argument('--jitter-us', type=float, default=2.0)
    ap.add_argument('--arrival-us', type=float, default=2000.0)
    ap.add_argument('--straggler', type=int)
    ap.add_argument('--straggler-steps', default='2-3')
    ap.add_argument('--straggler-ms', type=float, default=2.0)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--base-us', type=int, default=1_700_000_000_000_000)
    ap.add_argument('--relative', action='store_true')
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument('--nccl-kernels', action='store_true')
    mode.add_argument('--xla-ops-only', action='store_true')
    a = ap.parse_args()
    if a.straggler is not None and not 0 <= a.straggler < a.hosts:
        ap.error('--straggler is a host index, 0 to %d' % (a.hosts - 1))
    rng = random.Random(a.seed)
    a.offsets = [float(x) for x in a.offsets_us.split(',')]
    a.offsets += [0.0] * (a.hosts - len(a.offsets))
    a.straggler_lo, a.straggler_hi = (int(x) for x in a.straggler_steps.split('-'))
    world = a.hosts * a.gpus_per_host
    steps = plan(a, rng, world)
    hosts = ['host-%s' % (chr(ord('a') + h) if h < 26 else str(h)) for h in range(a.hosts)]
    folder = os.path.join(a.out, 'plugins', 'profile', SESSION)
    os.makedirs(folder, exist_ok=True)
    files, kspans = [], []
    for h, host in enumerate(hosts):
        info, spans = write_host(a, rng, steps, h, host, os.path.join(folder, host + '.xplane.pb'))
        files.append(info)
        kspans += spans
    with open(a.out.rstrip('/') + '.truth.json', 'w') as f:
        json.dump({"hosts": hosts, "offsets_us": a.offsets[:a.hosts],
                   "ranks": [{"rank": h * a.gpus_per_host + g, "host": hosts[h], "gpu": g}
                             for h in range(a.hosts) for g in range(a.gpus_per_host)],
                   "base_us": a.base_us, "jitter_us": a.jitter_us, "relative": a.relative,
                   "mode": "nccl-kernels" if a.nccl_kernels else "xla-ops-only" if a.xla_ops_only else "derived",
                   "program_id": PROGRAM_ID, "hlo_module": MODULE,
                   "steps": [{"step": s["step"], "group_id": s["group"], "start_ps": s["start"], "end_ps": s["end"]}
                             for s in steps],
                   "ends_us": [c["end"] / US for s in steps for c in s["colls"]],
                   "collectives": [{"step": s["step"], "op": c["op"], "end_ps": c["end"], "end_us": c["end"] / US,
                                    "arrivals_ps": c["arrivals"], "kernel_ends_ps": c["kernel_ends"]}
                                   for s in steps for c in s["colls"]],
                   "collective_spans": kspans,
                   "straggler": None if a.straggler is None else
                   {"host": a.straggler, "ranks": [a.straggler * a.gpus_per_host + g for g in range(a.gpus_per_host)],
                    "steps": [a.straggler_lo, a.straggler_hi], "ms": a.straggler_ms},
                   "files": files}, f, indent=1)


if __name__ == '__main__':
    main()
