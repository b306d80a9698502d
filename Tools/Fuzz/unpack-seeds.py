#!/usr/bin/env python3
"""Writes seed programs for fuzz-unpack into the folder given: small
archives in the program encoding of Sources/fuzz-unpack/UnpackProgram.swift
(names that collide, links between folders, hard links, odd modes, long
names), each in pax tar, GNU tar and zip, and in pax tar replacing an
existing destination. None of them escapes; the fuzzer
starts from shapes, not from attacks.

    unpack-seeds.py DIRECTORY
"""
import os
import sys

# Atom slots of UnpackProgram.atoms (0-13 direct; EXTRA + i reads slot 15 and then i).
K, KELVIN, k, CAFE_NFC, CAFE_NFD, A_RING, ANGSTROM, A_NFD, DOT, UP, EMPTY, a, b, VICTIM = range(14)
EXTRA = 100
LONG_A, LONG_KELVIN, TOO_LONG, CHAIN, UPS, DOTS, P, W, DEST, CAFE_UPPER, A_RING_LOWER, S = (EXTRA + i for i in range(12))
KINDS = {"dir": 0, "file": 1, "symlink": 2, "hardlink": 3}
MODES = [0o755, 0o644, 0, 0o777, 0o4755, 0o2755, 0o1777, 0o700, 0o500, 0o555, 0o7777, 0o600, 0o111, 0o200, 0o022, 0o6711]


def atoms(names):
    out = []
    for name in names:
        out += [15, name - EXTRA] if name >= EXTRA else [name]
    return out


def entry(kind, path, target=(), mode=0o755, contents=b"", trailing_slash=False):
    """An entry whose path and target are fresh atoms (operation 0)."""
    out = [KINDS[kind] | (0x20 if trailing_slash else 0), len(path) << 2]
    out += atoms(path)
    out.append(MODES.index(mode))
    if kind in ("symlink", "hardlink"):
        out += [len(target) << 2] + atoms(target)
    elif kind == "file":
        out += [len(contents)] + list(contents)
    return out


def program(fmt, entries):
    out = [fmt, len(entries)]
    for e in entries:
        out += e
    return bytes(out)


SEEDS = {
    "canonical-pair-folders": [
        entry("dir", [K], trailing_slash=True),
        entry("file", [K, a], contents=b"x"),
        entry("dir", [KELVIN], trailing_slash=True),
        entry("file", [KELVIN, b], contents=b"y"),
    ],
    "nfc-nfd-files": [
        entry("file", [CAFE_NFC], contents=b"1"),
        entry("file", [CAFE_NFD], contents=b"2"),
        entry("dir", [A_RING, A_NFD]),
        entry("file", [ANGSTROM], contents=b"3"),
    ],
    "links-between-folders": [
        entry("dir", [a]),
        entry("symlink", [a, S], [UP, b]),
        entry("dir", [b]),
        entry("file", [b, VICTIM], contents=b"v"),
        entry("symlink", [k], [a, S, VICTIM]),
    ],
    "link-chain": [
        entry("symlink", [S], [DOT]),
        entry("symlink", [a], [S, S, S, b]),
        entry("dir", [b], mode=0o700),
    ],
    "hard-links": [
        entry("file", [a], contents=b"abc", mode=0o644),
        entry("hardlink", [b], [a]),
        entry("dir", [K]),
        entry("hardlink", [K, a], [b]),
    ],
    "odd-modes": [
        entry("dir", [a], mode=0),
        entry("dir", [a, b], mode=0o4755),
        entry("file", [a, b, K], mode=0o6711, contents=b"s"),
        entry("dir", [b], mode=0o1777),
        entry("file", [b, a], mode=0o7777),
    ],
    "long-names": [
        entry("dir", [LONG_A]),
        entry("file", [LONG_A, LONG_KELVIN], contents=b"l"),
        entry("dir", [CHAIN]),
        entry("symlink", [CHAIN, S], [UPS]),
    ],
    "dots": [
        entry("dir", [DOT, a]),
        entry("file", [a, DOT, b], contents=b"d"),
        entry("file", [a, EMPTY, K], contents=b"e"),
        entry("dir", [DOTS, P]),
    ],
}


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    for name, entries in SEEDS.items():
        # 0x40: replacing a destination that is there (pax only).
        for fmt, suffix in ((0, "pax"), (1, "gnu"), (2, "zip"), (0x40, "pax-replace")):
            with open(os.path.join(folder, f"seed-{name}-{suffix}"), "wb") as f:
                f.write(program(fmt, entries))


if __name__ == "__main__":
    main()
