#!/usr/bin/env python3
"""Writes the archives whose shape, not size, made unpacking slow (issue 20,
item 4): deep paths and long symlink targets, where an unpacker that walks
or reopens every path from its root spends depth x entries.

    Tools/make-deep-archives.py [--out DIR] [--count N] [--depth N]
                                [--compression xz|none] [SHAPE...]

SHAPE is one or more of (default: all):

  deep-single       one path of DEPTH levels (1,000), every level an entry
                    (d/, d/d/, d/d/d/, ...)
  deep-chains       COUNT chains (8) of DEPTH levels (1,000), one after
                    another, every level an entry
  deep-chains-tiny  COUNT chains (8) of DEPTH levels (1,000), each a single
                    entry whose parents are implied: with the default sizes,
                    a .tar.xz of 300 bytes, like the attacker's 304-byte one
  alternating       COUNT directories (1,000) at the ends of two chains of
                    DEPTH levels (1,000), taking turns between them; the
                    chains' directories are implied
  long-links        COUNT symlinks (1,000) in one directory, each with a
                    target of DEPTH names (2,048: "a/a/.../a", 4,095 bytes,
                    just under Linux's 4,096) where nothing is

--count and --depth apply to every shape named. Each archive is written as
DIR/SHAPE.tar.xz (xz's default preset, 6; the default) or DIR/SHAPE.tar, and a line
is printed for it:

    SHAPE FILE entries=E directories=D symlinks=S bytes=B

where E counts the archive's entries, D and S what unpacking it makes
(implied directories included) and B the archive's size.

The archives are pax tars written by Python's tarfile, the same bytes on
every run: fixed names, mode 0755 (0777 for symlinks), owner 0 with no
names, modification time 2026-01-01T00:00:00Z, no randomness. They are
small enough to build in memory: 18 MB of tar for the default deep-chains.
"""

import argparse
import io
import lzma
import os
import sys
import tarfile

MTIME = 1767225600  # 2026-01-01T00:00:00Z


def directory(name):
    entry = tarfile.TarInfo(name)
    entry.type = tarfile.DIRTYPE
    entry.mode = 0o755
    entry.mtime = MTIME
    return entry


def symlink(name, target):
    entry = tarfile.TarInfo(name)
    entry.type = tarfile.SYMTYPE
    entry.linkname = target
    entry.mode = 0o777
    entry.mtime = MTIME
    return entry


# Each shape: its default COUNT and DEPTH, and a function of (count, depth)
# that returns its entries and how many directories and symlinks unpacking
# them makes.

def deep_single(count, depth):
    entries = [directory("d/" * level) for level in range(1, depth + 1)]
    return entries, depth, 0


def deep_chains(count, depth):
    entries = [directory("c%d/" % chain + "d/" * level) for chain in range(count) for level in range(depth)]
    return entries, count * depth, 0


def deep_chains_tiny(count, depth):
    entries = [directory("c%d/" % chain + "d/" * (depth - 1)) for chain in range(count)]
    return entries, count * depth, 0


def alternating(count, depth):
    chains = ["a/" + "d/" * (depth - 2), "b/" + "d/" * (depth - 2)]
    entries = [directory(chains[index % 2] + "x%d/" % index) for index in range(count)]
    return entries, 2 * (depth - 1) + count, 0


def long_links(count, depth):
    target = "/".join(["a"] * depth)
    entries = [directory("d/")] + [symlink("d/l%d" % index, target) for index in range(count)]
    return entries, 1, count


SHAPES = {
    "deep-single": (deep_single, 1, 1000),
    "deep-chains": (deep_chains, 8, 1000),
    "deep-chains-tiny": (deep_chains_tiny, 8, 1000),
    "alternating": (alternating, 1000, 1000),
    "long-links": (long_links, 1000, 2048),
}


def write(shape, out, count, depth, compression):
    make, default_count, default_depth = SHAPES[shape]
    entries, directories, symlinks = make(count or default_count, depth or default_depth)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for entry in entries:
            tar.addfile(entry)
    data = buffer.getvalue()
    name = shape + ".tar"
    if compression == "xz":
        data = lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=6)
        name += ".xz"
    path = os.path.join(out, name)
    with open(path, "wb") as file:
        file.write(data)
    print("%s %s entries=%d directories=%d symlinks=%d bytes=%d" % (shape, path, len(entries), directories, symlinks, len(data)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shapes", nargs="*", metavar="SHAPE", help=", ".join(SHAPES) + " (default: all)")
    parser.add_argument("--out", default=".", help="where the archives go (default: .)")
    parser.add_argument("--count", type=int, help="chains, directories or symlinks (default: each shape's own)")
    parser.add_argument("--depth", type=int, help="levels, or names in a symlink's target (default: each shape's own)")
    parser.add_argument("--compression", choices=["xz", "none"], default="xz")
    arguments = parser.parse_args()
    if (arguments.count is not None and arguments.count < 1) or (arguments.depth is not None and arguments.depth < 2):
        parser.error("--count must be at least 1 and --depth at least 2")
    for shape in arguments.shapes:
        if shape not in SHAPES:
            parser.error("unknown shape %r; choose from %s" % (shape, ", ".join(SHAPES)))
    os.makedirs(arguments.out, exist_ok=True)
    for shape in arguments.shapes or list(SHAPES):
        write(shape, arguments.out, arguments.count, arguments.depth, arguments.compression)


if __name__ == "__main__":
    sys.exit(main())
