#!/usr/bin/env python3
"""A gzip decompression bomb, made in seconds whatever its inflated size.

    gen_bomb.py spaces|events MIB OUT.json.gz

`spaces`: MIB MiB of spaces. `events`: a Chrome trace of MIB MiB of identical small X events.
One MiB unit is deflated once and its bytes repeated (a full flush makes each copy stand
alone); the trailer's CRC and length are the true ones (the length modulo 2^32).
"""
import struct
import sys
import zlib

EVENT = b'{"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":1}'


def deflated(data, flush):
    c = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    return c.compress(data) + c.flush(flush)


def main():
    kind, mib, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind == 'spaces':
        head, unit, tail = b'', b' ' * (1 << 20), b''
    else:
        head, unit, tail = b'{"traceEvents":[', b'', EVENT + b']}'
        while len(unit) < (1 << 20):
            unit += EVENT + b','
    block = deflated(unit, zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(head)
    with open(out, 'wb') as f:
        f.write(b'\x1f\x8b\x08\0\0\0\0\0\0\x03' + deflated(head, zlib.Z_FULL_FLUSH))
        for _ in range(mib):
            f.write(block)
            crc = zlib.crc32(unit, crc)
        crc = zlib.crc32(tail, crc)
        size = len(head) + len(unit) * mib + len(tail)
        f.write(deflated(tail, zlib.Z_FINISH) + struct.pack('<II', crc, size & 0xffffffff))


if __name__ == '__main__':
    main()
