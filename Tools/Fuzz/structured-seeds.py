#!/usr/bin/env python3
"""Seeds for fuzz-structured: pairs of documents, each pair written as the
first one's length (4 bytes, little endian) and the two documents, into the
folder given: JSON, XML and binary property lists of the same data, and
binary property lists whose objects refer to one another (shared, deep, a
cycle), written byte by byte since plistlib never shares an object."""
import json, plistlib, struct, sys
from pathlib import Path

def pair(old: bytes, new: bytes) -> bytes:
    return struct.pack("<I", len(old)) + old + new

def bplist(objects: list[bytes], top: int = 0) -> bytes:
    """A bplist00 of the encoded `objects`, references of one byte."""
    body, offsets = b"bplist00", []
    for obj in objects:
        offsets.append(len(body))
        body += obj
    table = len(body)
    body += bytes(offsets) if max(offsets) < 256 else b"".join(struct.pack(">H", o) for o in offsets)
    size = 1 if max(offsets) < 256 else 2
    return body + bytes(6) + bytes([size, 1]) + struct.pack(">QQQ", len(objects), top, table)

def shared(depth: int) -> bytes:
    """Each array names the next twice: 2**depth values once expanded."""
    return bplist([bytes([0xA2, i + 1, i + 1]) for i in range(depth)] + [bytes([0x10, 7])])

def cycle() -> bytes:
    """An array that holds a dictionary that holds the array."""
    return bplist([bytes([0xA1, 1]), bytes([0xD1, 2, 0]), b"\x51k"])

data = {"title": "Porto", "days": [1, 2, 3], "draft": False, "tags": {"city": "yes", "sea": None}}
changed = dict(data, title="Lisbon", days=[1, 2, 3, 4])
plist_data = {k: v for k, v in data.items() if v is not None and k != "tags"} | {"when": 3.5, "blob": b"\x00\x01"}
plist_changed = dict(plist_data, title="Sintra")
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
seeds = {
    "json-same": pair(json.dumps(data).encode(), json.dumps(data, indent=2, sort_keys=True).encode()),
    "json-changed": pair(json.dumps(data).encode(), json.dumps(changed).encode()),
    "plist-xml-binary": pair(plistlib.dumps(plist_data), plistlib.dumps(plist_data, fmt=plistlib.FMT_BINARY)),
    "plist-changed": pair(plistlib.dumps(plist_data, fmt=plistlib.FMT_BINARY), plistlib.dumps(plist_changed, fmt=plistlib.FMT_BINARY)),
    "bplist-shared": pair(shared(8), shared(9)),
    "bplist-deep-shared": pair(shared(30), shared(3)),
    "bplist-cycle": pair(cycle(), shared(2)),
}
for name, seed in seeds.items():
    (out / name).write_bytes(seed)
