#!/usr/bin/env python3
"""Seeds for fuzz-flat-rtfd: serialized file wrappers in Apple's flat RTFD
layout (shared/formats/flat-rtfd.md), written here from the layout: the
layout document's annotated sample, a nested directory with a link, a
unique key and a page-aligned file, a top-level file, and a blob without
its header."""
import os, struct, sys

def u32(value): return struct.pack('<I', value)
def sized(data): return u32(len(data)) + data
def data(payload): return u32(1) + sized(payload)
def dictionary(entries):
    return (u32(3) + u32(len(entries)) + b''.join(sized(k) for k, _ in entries)
            + b''.join(u32(len(v)) for _, v in entries) + b''.join(v for _, v in entries))
def info(entries):
    return data(u32(len(entries)) + b''.join(sized(k) for k, _ in entries)
                + b''.join(u32(16) for _ in entries) + b''.join(b''.join(u32(f) for f in fields) for _, fields in entries))
HEADER = b'rtfd' + bytes(4)

def aligned(payload, offset):
    """Data whose bytes start on a 4 KiB boundary, its tag at `offset` of the blob."""
    pad = 4096 - ((offset + 4 + 12) & 4095)
    return u32(1) + u32(0x80000000) + u32(len(payload)) + u32(pad) + bytes(pad) + payload

seeds = {
    'sample.rtfd': HEADER + dictionary([
        (b'TXT.rtf', data(b'{\\rtf1\\ansi hello}')),
        (b'.', info([(b'TXT.rtf', (1753498387, 0o666, 0, 0))]))]),
    'nested.rtfd': HEADER + dictionary([
        (b'.', info([(b'1__#$!@%!#__a.txt', (5, 0o600, 0, 0)), (b'a.txt', (0, 0o644, 0, 0)),
                     (b'link', (0, 0o777, 4, 0)), (b'sub', (7, 0o755, 1, 0))])),
        (b'1__#$!@%!#__a.txt', data(b'second')),
        (b'__@PreferredName@__', data(b'Doc.package')),
        (b'__@UTF8PreferredName@__', data(b'Doc.package')),
        (b'a.txt', data(b'first')),
        (b'link', data(b'sub/inner')),
        (b'sub', dictionary([(b'.', info([(b'inner', (0, 0o644, 0, 0))])), (b'inner', data(b'x'))])),
    ]),
    'leaf.rtfd': HEADER + dictionary([
        (b'.', info([(b'..', (0, 0o644, 2, 1))])), (b'..', data(b'alone')),
        (b'__@PreferredName@__', data(b'a.txt')), (b'__@UTF8PreferredName@__', data(b'a.txt'))]),
    'headerless.rtfd': dictionary([(b'f', data(b'no header'))]),
}
# A page-aligned file: the dictionary's one key "big", its length, then the value at offset 8+4+4+7+4.
big = bytes(range(256)) * 20
value = aligned(big, 27)
seeds['aligned.rtfd'] = HEADER + u32(3) + u32(1) + sized(b'big') + u32(len(value)) + value

for name, blob in seeds.items():
    with open(os.path.join(sys.argv[1], name), 'wb') as f:
        f.write(blob)
