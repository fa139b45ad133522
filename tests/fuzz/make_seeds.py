#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, made from the shared corpus (never committed).

    make_seeds.py CORPUS_DIR OUT_DIR   →  OUT_DIR/{tokenizer,gzip,merge,xplane}/<sha1>

Small files only (< 200 KB; for tokenizer and merge, once inflated), gzipped ones too.
Each target's input layout is described at the top of its fuzz_*.cc; the headers
built here follow it.
"""
import gzip
import hashlib
import os
import shutil
import struct
import sys
import zlib

MAX_BYTES = 200 * 1024
SEP = b"\n#~#\n"  # fuzz_merge.cc kSep


def small_files(root):
    for d, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            p = os.path.join(d, f)
            if os.path.getsize(p) < MAX_BYTES and not f.endswith((".pb", ".md", ".tsv")) and f != "python_stats":
                yield os.path.relpath(p, root), open(p, "rb").read()


def text_of(data):
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except Exception:  # damaged on purpose: keep the raw bytes
            return data
    return data


def write(out, target, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


# Hand-written idioms the tokenizer and merge must tolerate or reject cleanly.
IDIOMS = [
    b'[{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"name":"a"},',  # unclosed array (Horovod)
    b'[{"ph":"X","ts":1},{},{"ph":"i","ts":2},]',  # {} records, trailing comma
    b'{"traceEvents":[{"ph":"B","ts":"1.5","pid":"p","tid":"t"},{"ph":"E","ts":3',  # truncated
    b'\xef\xbb\xbf{"baseTimeNanoseconds":1700000000000000000,"traceEvents":[{"ph":"X","ts":1,"dur":1}]}',
    b'[{"ph":"X","ts":1,"args":{"a":[[[[[[[[{"b":1}]]]]]]]]}}]',  # deep nesting
    b'[{"ph":"b","cat":"c","id":"0x1","ts":1},{"ph":"e","cat":"c","id2":{"global":"0x1"},"ts":2}]',
    b'{"Type":"cpu","Name":"cpu0","Dimension":"CPUUtilization","Value":4.7,"NodeId":"algo-1","Timestamp":1591160699.4}\n{"Name":"cp',
]


def tokenizer_seeds(files, out):
    for _, data in files:
        if len(text_of(data)) < MAX_BYTES:
            write(out, "tokenizer", text_of(data))
    for idiom in IDIOMS:
        write(out, "tokenizer", idiom)


def gzip_seeds(files, out):
    # Small streams only: under ASan, inflating in 1-byte chunks costs ~1 ms per KB.
    streams = [data for name, data in files if data[:2] == b"\x1f\x8b" and len(data) < 32 * 1024]
    sample = IDIOMS[0] * 50
    streams += [
        zlib.compress(sample),  # zlib header, auto-detected
        gzip.compress(b"[{}") + gzip.compress(b"]"),  # concatenated members
        gzip.compress(sample)[:-9],  # cut before the trailer
        gzip.compress(b" " * 100000),  # inflates far: the tiny limit trips
    ]
    for s in streams:
        for head in (b"\x00", b"\x03\x00\x06\xff", b"\x19\x00", b"\x0a\x10"):
            write(out, "gzip", head + s)


def role(name, data):
    """(name set, slot) in fuzz_merge.cc's kNames for a corpus file."""
    if name.endswith("_pythontimeline.json"):
        return 0, 0
    if b'"Dimension"' in text_of(data)[:4096]:
        return 0, 1
    if name.endswith("_model_timeline.json"):
        return 1, 0
    if name.endswith("_horovod_timeline.json"):
        return 1, 1
    if name.endswith(".trace.json.gz") and "/plugins/profile/" in name:
        return 2, 0
    return 0, 2


def merge_input(flags, sources, start=None, end=None, chunk=0, name_set=0):
    head = bytes([flags | name_set << 6 | (start is not None) | (end is not None) << 1, chunk])
    if start is not None:
        head += struct.pack("<q", start)
    if end is not None:
        head += struct.pack("<q", end)
    return head + SEP.join(sources)


def two_ranks():
    """Two small Kineto ranks on two hosts 400 µs apart, with NCCL kernels and steps."""
    import subprocess
    import tempfile
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "gen_ranks.py")
    with tempfile.TemporaryDirectory() as tmp:
        job = os.path.join(tmp, "job")
        args = ["--hosts", "2", "--ranks-per-host", "1", "--offsets-us", "0,400", "--steps", "2", "--collectives", "3"]
        if subprocess.run([sys.executable, gen, job] + args).returncode != 0:
            return None
        return [open(os.path.join(job, h, f"rank{r}.pt.trace.json"), "rb").read() for h, r in (("host-a", 0), ("host-b", 1))]


def xplane_host(*more):
    """One small generated XSpace (tests/bench/gen_xplane.py): a host, a GPU, two steps."""
    import subprocess
    import tempfile
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "gen_xplane.py")
    with tempfile.TemporaryDirectory() as tmp:
        job = os.path.join(tmp, "job")
        args = ["--hosts", "1", "--gpus-per-host", "1", "--steps", "2", "--collectives", "2", *more]
        if subprocess.run([sys.executable, gen, job] + args).returncode != 0:
            return None
        for d, _, names in os.walk(job):
            for n in names:
                return open(os.path.join(d, n), "rb").read()
    return None


def merge_seeds(files, out, corpus):
    slots = {}
    for name, data in files:
        if len(text_of(data)) >= MAX_BYTES:
            continue
        name_set, slot = role(name, data)
        parts = [b""] * (slot + 1)  # empty sources before it: skipped as empty files
        parts[slot] = data
        write(out, "merge", merge_input(0, parts, name_set=name_set))
        slots.setdefault((name_set, slot), data)
    # Combinations with windows, steps, phase grouping and gzip, from the smdebug cases.
    mt = os.path.join(corpus, "smdebug/tests/profiler/resources/merge_traces/framework/pevents/2020071317")
    py = open(os.path.join(mt, "1594662624718694_905-b88ab1bb8259_pythontimeline.json"), "rb").read()
    model = open(os.path.join(mt, "1594662614815222_905-b88ab1bb8259_model_timeline.json"), "rb").read()
    system = slots.get((0, 1), b"")
    other = slots.get((0, 2), b"")
    write(out, "merge", merge_input(0, [py, system, other], 1594662618874598, 1594662623418701))
    write(out, "merge", merge_input(4, [py, system, other], 2, 4))
    write(out, "merge", merge_input(4 | 8, [py, system], 2, 4, chunk=7))
    write(out, "merge", merge_input(16, [py, system, other], chunk=1))
    write(out, "merge", merge_input(32, [py, system, other]))
    write(out, "merge", merge_input(8, [model, slots.get((1, 1), b""), py], name_set=1))
    # Chunk bit 7: written again on two threads, compared byte for byte.
    write(out, "merge", merge_input(0, [model, slots.get((1, 1), b""), py], chunk=0x80, name_set=1))
    write(out, "merge", merge_input(16, [py, system, other], chunk=0x80 | 5))
    write(out, "merge", merge_input(0, [slots.get((2, 0), b""), b"", other], name_set=2))
    # Chunk bits 5-6: --align clocks, steps; two ranks whose clocks disagree (gen_ranks.py).
    write(out, "merge", merge_input(0, [py, system, other], chunk=1 << 5))
    write(out, "merge", merge_input(4, [py, system, other], 2, chunk=2 << 5))
    ranks = two_ranks()
    xplane = xplane_host()  # (name set 3, slot 1)
    if ranks and xplane:
        write(out, "merge", merge_input(0, [ranks[0], xplane, ranks[1]], chunk=1 << 5, name_set=3))
        write(out, "merge", merge_input(0, [b"", xplane[: len(xplane) // 2], b""], chunk=3, name_set=3))
    if ranks:
        write(out, "merge", merge_input(0, [ranks[0], b"", ranks[1]], chunk=1 << 5, name_set=3))
        write(out, "merge", merge_input(0, [ranks[0], b"", ranks[1]], chunk=2 << 5 | 0x80, name_set=3))
    for idiom in IDIOMS:
        write(out, "merge", merge_input(0, [b"", b"", idiom]))


def xplane_seeds(corpus, out):
    """fuzz_xplane.cc: [flags] XSpace. Generated hosts (absolute and relative time, NCCL kernels or
    XLA ops only) in the flag combinations, and the corpus file's first 64 KB (cut mid-plane)."""
    spaces = [x for x in (xplane_host(), xplane_host("--relative"), xplane_host("--xla-ops-only")) if x]
    for x in spaces:
        for flags in (0, 0x20 | 7, 0x40, 0x80 | 0x20 | 3):
            write(out, "xplane", bytes([flags]) + x)
        write(out, "xplane", bytes([0x20]) + x[: len(x) // 3])
    real = os.path.join(corpus, "real/xprof_gpu_multi_worker/34.83.195.179_6003.xplane.pb")
    if os.path.exists(real):
        write(out, "xplane", bytes([0x20]) + open(real, "rb").read(64 * 1024))


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    files = list(small_files(corpus))
    targets = ("tokenizer", "gzip", "merge", "xplane")
    for t in targets:
        shutil.rmtree(os.path.join(out, t), ignore_errors=True)
    tokenizer_seeds(files, out)
    gzip_seeds(files, out)
    merge_seeds(files, out, corpus)
    xplane_seeds(corpus, out)
    counts = {t: len(os.listdir(os.path.join(out, t))) for t in targets}
    print("[seeds] " + ", ".join(f"{t}: {n}" for t, n in counts.items()) + f" -> {out}")


if __name__ == "__main__":
    main()
