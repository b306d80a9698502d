#!/usr/bin/env python3
"""Writes the hostile (and a few legitimate) archives that FileWrapperArchive's
safe unpacker is tested against.

    Tools/make-hostile-archives.py [OUT_DIR]      (default: Fixtures/Hostile)

One small archive per rule of the unpacker (DESIGN.md, "Archives:
FileWrapperArchive"), named <rule>[-<variant>].<ext>, plus manifest.json (what
each file is and what the unpacker must do with it) and README.md (the same as
a table, with why each case is dangerous).

Every archive is written byte by byte here (tar headers, pax records, zip
headers, cpio newc headers, ZipCrypto), so that the hostile details survive:
Python's tarfile and zipfile normalise names, refuse some of these cases and
cannot encrypt. Only the Python standard library is used, and the output is the
same bytes on every run: fixed times, owner 0 with no names, entries in a fixed
order (sorted where the order is not part of the attack), gzip with no name and
time 0, zlib level 9, bzip2 level 9, no randomness.

The bombs are streamed: nothing larger than a few MiB is held in memory. A run
takes about a minute (most of it bzip2 over 5 GiB of zeros).
"""

import bz2
import io
import json
import os
import struct
import sys
import unicodedata
import zlib

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30

MTIME = 1767225600                 # 2026-01-01T00:00:00Z, every tar and cpio entry
ZIP_DATE_TIME = (2026, 1, 1, 0, 0, 0)
MAX_FIXTURE_SIZE = 2 * MiB         # every file written stays under this
CHUNK = 1 * MiB                    # zeros are streamed in chunks of this size

# Places a buggy unpacker would write to. Harmless, and easy to look for
# afterwards: /tmp for absolute paths, the destination's parent for `..`.
OUTSIDE = "FileWrapperKit-hostile"


def nfc(s):
    return unicodedata.normalize("NFC", s)


class Zeros:
    """A run of n zero bytes inside an archive stream, expanded lazily."""

    def __init__(self, n):
        self.n = n


def iter_chunks(pieces):
    """Expands a list of bytes and Zeros into chunks of bytes."""
    for piece in pieces:
        if isinstance(piece, Zeros):
            left = piece.n
            block = bytes(min(CHUNK, left))
            while left:
                step = min(CHUNK, left)
                yield block if step == len(block) else block[:step]
                left -= step
        elif piece:
            yield piece


def join(pieces):
    return b"".join(iter_chunks(pieces))


def pad(n, unit):
    return (-n) % unit


# --------------------------------------------------------------------------
# tar: ustar headers, pax extended headers for what ustar cannot hold.
# --------------------------------------------------------------------------

REGTYPE, LNKTYPE, SYMTYPE, CHRTYPE, BLKTYPE, DIRTYPE, FIFOTYPE = b"0123456"
PAXTYPE = ord("x")


def octal(value, width):
    digits = b"%o" % value
    if len(digits) > width - 1:
        raise ValueError("%d does not fit a %d-byte octal field" % (value, width))
    return digits.rjust(width - 1, b"0") + b"\0"


def ustar_header(name, typeflag, size=0, mode=0o644, linkname=b"",
                 devmajor=0, devminor=0, checksum_delta=0):
    """One 512-byte ustar header. Names longer than their field are cut (the
    caller puts the full name in a pax header first)."""
    h = bytearray(512)

    def put(offset, width, value):
        value = value[:width]
        h[offset:offset + len(value)] = value

    put(0, 100, name)
    put(100, 8, octal(mode & 0o7777, 8))
    put(108, 8, octal(0, 8))                # uid
    put(116, 8, octal(0, 8))                # gid
    put(124, 12, octal(size, 12))
    put(136, 12, octal(MTIME, 12))
    put(148, 8, b" " * 8)                   # checksum, computed below
    h[156] = typeflag
    put(157, 100, linkname)
    put(257, 8, b"ustar\x0000")             # magic and version
    # uname, gname (265, 297) stay empty: numeric owner 0 only
    if typeflag in (CHRTYPE, BLKTYPE):
        put(329, 8, octal(devmajor, 8))
        put(337, 8, octal(devminor, 8))
    checksum = sum(h) + checksum_delta
    put(148, 8, b"%06o\0 " % checksum)
    return bytes(h)


def pax_records(records):
    out = b""
    for key, value in records:
        body = b" " + key + b"=" + value + b"\n"
        length = len(body) + 1
        while len(b"%d" % length) + len(body) != length:
            length = len(b"%d" % length) + len(body)
        out += b"%d" % length + body
    return out


class Tar:
    """Builds a tar stream as a list of pieces (bytes and Zeros).

    pax=True puts non-ASCII names in pax records (as bsdtar does); pax=False
    writes raw UTF-8 bytes into the ustar name field (as GNU tar does). Names
    and link targets over 100 bytes always go into pax records.
    """

    def __init__(self, pax=True):
        self.pax = pax
        self.pieces = []

    def entry(self, name, typeflag, data=b"", mode=0o644, linkname="",
              devmajor=0, devminor=0, size=None, checksum_delta=0):
        bname = name.encode("utf-8")
        blink = linkname.encode("utf-8")
        records = []
        if len(bname) > 100 or (self.pax and not bname.isascii()):
            records.append((b"path", bname))
        if len(blink) > 100 or (self.pax and not blink.isascii()):
            records.append((b"linkpath", blink))
        if records:
            body = pax_records(records)
            self.pieces.append(ustar_header(b"././@PaxHeader", PAXTYPE, size=len(body)))
            self.pieces.append(body + bytes(pad(len(body), 512)))
        if size is None:
            size = data.n if isinstance(data, Zeros) else len(data)
        self.pieces.append(ustar_header(bname, typeflag, size=size, mode=mode,
                                        linkname=blink, devmajor=devmajor,
                                        devminor=devminor,
                                        checksum_delta=checksum_delta))
        if isinstance(data, Zeros):
            self.pieces.append(data)
            self.pieces.append(bytes(pad(data.n, 512)))
        elif data:
            self.pieces.append(data + bytes(pad(len(data), 512)))

    def file(self, name, data=b"", mode=0o644, **kw):
        self.entry(name, REGTYPE, data=data, mode=mode, **kw)

    def dir(self, name, mode=0o755):
        self.entry(name, DIRTYPE, mode=mode)

    def symlink(self, name, target):
        self.entry(name, SYMTYPE, mode=0o777, linkname=target)

    def hardlink(self, name, target):
        self.entry(name, LNKTYPE, mode=0o644, linkname=target)

    def end(self):
        self.pieces.append(bytes(1024))
        return self.pieces


# --------------------------------------------------------------------------
# Compressors (streaming).
# --------------------------------------------------------------------------

def gzip_bytes(pieces):
    """gzip with no file name, time 0, OS 3 (Unix), deflate level 9."""
    out = io.BytesIO()
    out.write(b"\x1f\x8b\x08\x00" + struct.pack("<I", 0) + b"\x02\x03")
    comp = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    crc = 0
    size = 0
    for chunk in iter_chunks(pieces):
        crc = zlib.crc32(chunk, crc)
        size += len(chunk)
        out.write(comp.compress(chunk))
    out.write(comp.flush())
    out.write(struct.pack("<II", crc, size & 0xFFFFFFFF))
    return out.getvalue()


def bzip2_bytes(pieces):
    comp = bz2.BZ2Compressor(9)
    out = io.BytesIO()
    for chunk in iter_chunks(pieces):
        out.write(comp.compress(chunk))
    out.write(comp.flush())
    return out.getvalue()


# --------------------------------------------------------------------------
# zip: local headers, central directory, end record. No zip64, no extras.
# --------------------------------------------------------------------------

STORED, DEFLATED = 0, 8
FLAG_ENCRYPTED = 0x0001
FLAG_UTF8 = 0x0800
MADE_BY_UNIX = (3 << 8) | 30

_CRC_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0xEDB88320 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


class ZipCrypto:
    """Traditional PKWARE encryption (APPNOTE 6.1)."""

    def __init__(self, password):
        self.keys = [0x12345678, 0x23456789, 0x34567890]
        for byte in password:
            self.update(byte)

    @staticmethod
    def crc(value, byte):
        return _CRC_TABLE[(value ^ byte) & 0xFF] ^ (value >> 8)

    def update(self, byte):
        k = self.keys
        k[0] = self.crc(k[0], byte)
        k[1] = ((k[1] + (k[0] & 0xFF)) * 134775813 + 1) & 0xFFFFFFFF
        k[2] = self.crc(k[2], k[1] >> 24)

    def encrypt(self, data):
        out = bytearray()
        for byte in data:
            temp = (self.keys[2] | 2) & 0xFFFF
            out.append(byte ^ (((temp * (temp ^ 1)) >> 8) & 0xFF))
            self.update(byte)
        return bytes(out)


def dos_date_time(dt):
    year, month, day, hour, minute, second = dt
    return (((year - 1980) << 9) | (month << 5) | day,
            (hour << 11) | (minute << 5) | (second // 2))


def deflate_stream(pieces):
    """Raw deflate of pieces; returns (compressed, crc32, uncompressed size)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    out = io.BytesIO()
    crc = 0
    size = 0
    for chunk in iter_chunks(pieces):
        crc = zlib.crc32(chunk, crc)
        size += len(chunk)
        out.write(comp.compress(chunk))
    out.write(comp.flush())
    return out.getvalue(), crc, size


class Zip:
    def __init__(self):
        self.out = io.BytesIO()
        self.central = []

    def entry(self, name, data=b"", mode=0o100644, method=DEFLATED,
              password=None, crc_xor=0):
        bname = name.encode("utf-8")
        flags = 0 if bname.isascii() else FLAG_UTF8
        pieces = data if isinstance(data, list) else [data]
        if method == DEFLATED:
            payload, crc, size = deflate_stream(pieces)
        else:
            payload = join(pieces)
            crc, size = zlib.crc32(payload), len(payload)
        if password is not None:
            flags |= FLAG_ENCRYPTED
            cipher = ZipCrypto(password)
            # 11 fixed filler bytes (normally random), then the CRC's high
            # byte, which lets readers check the password.
            header = bytes(range(0xA0, 0xAB)) + bytes([crc >> 24])
            payload = cipher.encrypt(header) + cipher.encrypt(payload)
        crc ^= crc_xor
        need = 20 if (method == DEFLATED or password is not None
                      or name.endswith("/")) else 10
        date, time = dos_date_time(ZIP_DATE_TIME)
        external = (mode << 16) | (0x10 if name.endswith("/") else 0)
        offset = self.out.tell()
        self.out.write(struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, need, flags, method, time, date,
            crc, len(payload), size, len(bname), 0) + bname)
        self.out.write(payload)
        self.central.append(struct.pack(
            "<IHHHHHHIIIHHHHHII", 0x02014B50, MADE_BY_UNIX, need, flags,
            method, time, date, crc, len(payload), size, len(bname), 0, 0, 0,
            0, external, offset) + bname)

    def file(self, name, data=b"", mode=0o644, **kw):
        self.entry(name, data, mode=0o100000 | mode, **kw)

    def dir(self, name, mode=0o755):
        self.entry(name, b"", mode=0o040000 | mode, method=STORED)

    def symlink(self, name, target):
        self.entry(name, target.encode("utf-8"), mode=0o120777, method=STORED)

    def end(self):
        start = self.out.tell()
        for record in self.central:
            self.out.write(record)
        size = self.out.tell() - start
        count = len(self.central)
        self.out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count,
                                   count, size, start, 0))
        return self.out.getvalue()


# --------------------------------------------------------------------------
# cpio, "new ASCII" (newc) format.
# --------------------------------------------------------------------------

class Cpio:
    def __init__(self):
        self.out = io.BytesIO()
        self.ino = 0

    def entry(self, name, mode, data=b"", rdev=(0, 0), nlink=1, ino=None):
        bname = name.encode("utf-8") + b"\0"
        if ino is None:
            self.ino += 1
            ino = self.ino
        fields = [ino, mode, 0, 0, nlink, MTIME if name != "TRAILER!!!" else 0,
                  len(data), 0, 0, rdev[0], rdev[1], len(bname), 0]
        header = b"070701" + b"".join(b"%08X" % f for f in fields)
        self.out.write(header + bname + bytes(pad(len(header) + len(bname), 4)))
        self.out.write(data + bytes(pad(len(data), 4)))

    def end(self):
        self.entry("TRAILER!!!", 0, ino=0)
        self.out.write(bytes(pad(self.out.tell(), 512)))
        return self.out.getvalue()


# --------------------------------------------------------------------------
# Contents.
# --------------------------------------------------------------------------

WORDS = ("harbour quay tile azulejo tram hill river bridge wine market "
         "fado lantern window ochre terracotta stair cat boat gull salt").split()


def prose(n_bytes, seed):
    """Deterministic compressible text (a linear congruential generator)."""
    out = []
    size = 0
    state = seed
    while size < n_bytes:
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        word = WORDS[(state >> 8) % len(WORDS)]
        out.append(word)
        size += len(word) + 1
    return (" ".join(out) + "\n").encode("ascii")[:n_bytes]


def pseudo_random(n_bytes, seed):
    out = bytearray()
    state = seed
    while len(out) < n_bytes:
        state = (state * 6364136223846793005 + 1442695040888963407) & (2**64 - 1)
        out += struct.pack("<Q", state)
    return bytes(out[:n_bytes])


def constant_sum_names(count, length=8, digit_sum=36):
    """count distinct digit strings of one length and one digit sum, in order.
    Their tar headers then differ only in the name field (even the checksum is
    the same), so 200,000 of them gzip to under 1 MiB."""
    names = []

    def rec(prefix, remaining, left):
        if len(names) >= count:
            return
        if left == 0:
            if remaining == 0:
                names.append(prefix)
            return
        for d in range(10):
            if d <= remaining and remaining - d <= 9 * (left - 1):
                rec(prefix + chr(48 + d), remaining - d, left - 1)

    rec("", digit_sum, length)
    assert len(names) == count
    return names


SHELL_TOOL = b"#!/bin/sh\necho tool\n"

# --------------------------------------------------------------------------
# The fixtures.
# --------------------------------------------------------------------------

FIXTURES = []


def fixture(file, rule, expect, entry, note, must, why, limit=None, tree=None):
    """Registers a builder: a function returning the archive's bytes."""
    def register(build):
        FIXTURES.append(dict(file=file, rule=rule, expect=expect, entry=entry,
                             limit=limit, note=note, must=must, why=why,
                             tree=tree, build=build))
        return build
    return register


def file_format(name):
    for ext in ("tar.gz", "tar.bz2", "tar", "zip", "cpio"):
        if name.endswith("." + ext):
            return ext
    raise ValueError(name)


# ---- absolute paths ------------------------------------------------------

ABS_PATH = "/tmp/%s-absolute-path" % OUTSIDE
WHY_ABS = ("Extracted as given it writes anywhere on the system "
           "(here a file in /tmp; it could be ~/.ssh/authorized_keys).")


@fixture("absolute-path.tar", "absolute-path", "refuse", ABS_PATH,
         "A regular file whose stored name is an absolute path.",
         "refuse, naming the entry", WHY_ABS)
def _():
    t = Tar()
    t.file("ok.txt", b"harmless\n")
    t.file(ABS_PATH, b"written outside the destination\n")
    return join(t.end())


@fixture("absolute-path.zip", "absolute-path", "refuse", ABS_PATH,
         "A zip entry whose stored name is an absolute path.",
         "refuse, naming the entry", WHY_ABS)
def _():
    z = Zip()
    z.file("ok.txt", b"harmless\n")
    z.file(ABS_PATH, b"written outside the destination\n")
    return z.end()


@fixture("absolute-path.cpio", "absolute-path", "refuse", ABS_PATH,
         "A cpio (newc) file whose stored name is an absolute path.",
         "refuse, naming the entry", WHY_ABS)
def _():
    c = Cpio()
    c.entry("ok.txt", 0o100644, b"harmless\n")
    c.entry(ABS_PATH, 0o100644, b"written outside the destination\n")
    return c.end()


# ---- .. components -------------------------------------------------------

DOTDOT = "../%s-dotdot" % OUTSIDE
DOTDOT_MIDDLE = "sub/../../%s-dotdot-middle" % OUTSIDE
WHY_DOTDOT = ("Zip Slip: `..` climbs out of the destination and overwrites "
              "whatever is beside or above it.")


@fixture("dotdot.tar", "dotdot", "refuse", DOTDOT,
         "A regular file whose name starts with a `..` component.",
         "refuse, naming the entry", WHY_DOTDOT)
def _():
    t = Tar()
    t.file("ok.txt", b"harmless\n")
    t.file(DOTDOT, b"written beside the destination\n")
    return join(t.end())


@fixture("dotdot-middle.tar", "dotdot", "refuse", DOTDOT_MIDDLE,
         "A `..` component in the middle of the name (`sub/../../x`), which "
         "a check of the first component alone misses.",
         "refuse, naming the entry", WHY_DOTDOT)
def _():
    t = Tar()
    t.dir("sub/")
    t.file(DOTDOT_MIDDLE, b"written beside the destination\n")
    return join(t.end())


@fixture("dotdot.zip", "dotdot", "refuse", DOTDOT,
         "A zip entry whose name starts with a `..` component.",
         "refuse, naming the entry", WHY_DOTDOT)
def _():
    z = Zip()
    z.file("ok.txt", b"harmless\n")
    z.file(DOTDOT, b"written beside the destination\n")
    return z.end()


@fixture("dotdot.cpio", "dotdot", "refuse", DOTDOT,
         "A cpio (newc) file whose name starts with a `..` component.",
         "refuse, naming the entry", WHY_DOTDOT)
def _():
    c = Cpio()
    c.entry("ok.txt", 0o100644, b"harmless\n")
    c.entry(DOTDOT, 0o100644, b"written beside the destination\n")
    return c.end()


# ---- entries that would apply to the destination itself -------------------

WHY_DEST = ("The entry names the destination directory itself and is not a "
            "directory: extracted as given it would replace the destination "
            "by a file.")
WHY_ROOT_ENTRY = ("Not an attack: the root's own entry, which `tar -C dir .`, "
                  "`find . | cpio` and every `.deb` write. It describes the "
                  "destination, and its mode is made safe like any directory's.")


@fixture("root-entry-dot.tar", "root-entry", "accept", None,
         "A directory entry named `.` with mode 3777 (setgid, sticky, "
         "group/other write), then a file.",
         "unpack; the root gets the entry's mode without setgid, sticky and "
         "group/other write (0755)", WHY_ROOT_ENTRY,
         tree=[{"path": "", "kind": "directory", "mode": "0755"},
               {"path": "ok.txt", "kind": "file", "mode": "0644"}])
def _():
    t = Tar()
    t.entry(".", DIRTYPE, mode=0o3777)
    t.file("ok.txt", b"harmless\n")
    return join(t.end())


@fixture("root-entry-dot-slash.tar", "root-entry", "accept", None,
         "A directory entry named `./` with mode 0700, and `./ok.txt`, as "
         "`tar -C dir -cf x.tar .` writes them.",
         "unpack; the root gets the entry's mode (0700)", WHY_ROOT_ENTRY,
         tree=[{"path": "", "kind": "directory", "mode": "0700"},
               {"path": "ok.txt", "kind": "file", "mode": "0644"}])
def _():
    t = Tar()
    t.entry("./", DIRTYPE, mode=0o700)
    t.file("./ok.txt", b"harmless\n")
    return join(t.end())


@fixture("destination-itself-dot-file.tar", "destination-itself", "refuse", "./",
         "A regular file named `./`: the root's own entry, but not a directory.",
         "refuse, naming the entry", WHY_DEST)
def _():
    t = Tar()
    t.file("ok.txt", b"harmless\n")
    t.file("./", b"would replace the destination\n")
    return join(t.end())


@fixture("destination-itself-empty.tar", "destination-itself", "refuse", "",
         "A regular file with an empty name.",
         "refuse, naming the entry (by its empty name, e.g. `\"\"`)", WHY_DEST)
def _():
    t = Tar()
    t.file("ok.txt", b"harmless\n")
    t.file("", b"would replace the destination\n")
    return join(t.end())


# ---- symlinks whose targets leave the tree ---------------------------------

WHY_SYMLINK = ("A link out of the tree lets later entries (or the program "
               "that reads the unpacked tree) read and write outside the "
               "destination.")


@fixture("symlink-escape-absolute.tar", "symlink-escape", "refuse", "link",
         "A symlink `link -> /tmp`, then a file `link/%s-evil` written "
         "through it." % OUTSIDE,
         "refuse at the symlink, naming it", WHY_SYMLINK)
def _():
    t = Tar()
    t.symlink("link", "/tmp")
    t.file("link/%s-evil" % OUTSIDE, b"written through an absolute symlink\n")
    return join(t.end())


@fixture("symlink-escape-absolute.zip", "symlink-escape", "refuse", "link",
         "A zip symlink (external attributes 0120777) `link -> /tmp`, then a "
         "file `link/%s-evil`." % OUTSIDE,
         "refuse at the symlink, naming it", WHY_SYMLINK)
def _():
    z = Zip()
    z.symlink("link", "/tmp")
    z.file("link/%s-evil" % OUTSIDE, b"written through an absolute symlink\n")
    return z.end()


@fixture("symlink-escape-dotdot.tar", "symlink-escape", "refuse", "up",
         "A symlink `up -> ..`, then a file `up/%s-evil` written through "
         "it." % OUTSIDE,
         "refuse at the symlink, naming it", WHY_SYMLINK)
def _():
    t = Tar()
    t.symlink("up", "..")
    t.file("up/%s-evil" % OUTSIDE, b"written beside the destination\n")
    return join(t.end())


@fixture("symlink-escape-dotdot.zip", "symlink-escape", "refuse", "up",
         "A zip symlink `up -> ..`, then a file `up/%s-evil`." % OUTSIDE,
         "refuse at the symlink, naming it", WHY_SYMLINK)
def _():
    z = Zip()
    z.symlink("up", "..")
    z.file("up/%s-evil" % OUTSIDE, b"written beside the destination\n")
    return z.end()


@fixture("symlink-escape-chain.tar", "symlink-escape", "refuse", "b",
         "`a -> .` (inside), then `b -> a/../%s-outside`: lexically `%s-outside`, "
         "inside the tree, but `a` is the destination, so `a/..` is its "
         "parent." % (OUTSIDE, OUTSIDE),
         "refuse at `b`, naming it (accepting `a`)", WHY_SYMLINK +
         " Here only resolving through the links made earlier shows it.")
def _():
    t = Tar()
    t.symlink("a", ".")
    t.symlink("b", "a/../%s-outside" % OUTSIDE)
    return join(t.end())


@fixture("symlink-escape-chain-nested.tar", "symlink-escape", "refuse", "esc",
         "`d/up -> ..` (the destination, inside), then `esc -> d/up/..` "
         "(lexically `d`, really the destination's parent), then a file "
         "`esc/%s-evil`." % OUTSIDE,
         "refuse at `esc`, naming it (accepting `d/up`)", WHY_SYMLINK +
         " Here only resolving through the links made earlier shows it.")
def _():
    t = Tar()
    t.dir("d/")
    t.symlink("d/up", "..")
    t.symlink("esc", "d/up/..")
    t.file("esc/%s-evil" % OUTSIDE, b"written beside the destination\n")
    return join(t.end())


# ---- writes through a symlink ---------------------------------------------

WHY_THROUGH = ("Writing through a link means the path checks done on the "
               "entry's name say nothing about where the bytes land; with a "
               "link that is swapped or escapes, this is the classic "
               "symlink-then-file attack.")


@fixture("symlink-write-through.tar", "symlink-write-through", "refuse", "s/f",
         "A directory `sub/`, a symlink `s -> sub` (inside the tree), then a "
         "regular file `s/f` that would be written through the link.",
         "refuse at `s/f`, naming it (accepting `s`)", WHY_THROUGH)
def _():
    t = Tar()
    t.dir("sub/")
    t.symlink("s", "sub")
    t.file("s/f", b"written through a symlink\n")
    return join(t.end())


@fixture("symlink-write-through.zip", "symlink-write-through", "refuse", "s/f",
         "The zip form: `sub/`, a symlink `s -> sub`, then a file `s/f`.",
         "refuse at `s/f`, naming it (accepting `s`)", WHY_THROUGH)
def _():
    z = Zip()
    z.dir("sub/")
    z.symlink("s", "sub")
    z.file("s/f", b"written through a symlink\n")
    return z.end()


# ---- hard links ------------------------------------------------------------

WHY_HARDLINK = ("A hard link to a file outside the tree gives the unpacked "
                "tree (and any later entry or chmod) a handle on that file, "
                "e.g. /etc/passwd.")


@fixture("hardlink-escape-dotdot.tar", "hardlink-escape", "refuse", "h",
         "A hard link `h` to `../%s-target`, outside the tree." % OUTSIDE,
         "refuse, naming the entry", WHY_HARDLINK)
def _():
    t = Tar()
    t.hardlink("h", "../%s-target" % OUTSIDE)
    return join(t.end())


@fixture("hardlink-escape-absolute.tar", "hardlink-escape", "refuse", "h",
         "A hard link `h` to `/etc/passwd`.",
         "refuse, naming the entry", WHY_HARDLINK)
def _():
    t = Tar()
    t.hardlink("h", "/etc/passwd")
    return join(t.end())


@fixture("hardlink-to-symlink.tar", "hardlink-to-symlink", "refuse", "h",
         "A file `target.txt`, a symlink `s -> target.txt`, then a hard link "
         "`h` to `s`.",
         "refuse at `h`, naming it (accepting `target.txt` and `s`)",
         "Whether link() follows a symlink differs by platform (macOS "
         "follows, Linux does not), so a hard link to a symlink can end up on "
         "the symlink's target, wherever that points at the time.")
def _():
    t = Tar()
    t.file("target.txt", b"the target\n")
    t.symlink("s", "target.txt")
    t.hardlink("h", "s")
    return join(t.end())


# ---- device nodes, FIFOs, sockets ------------------------------------------

WHY_DEVICE = ("A device node is a door to hardware or kernel memory "
              "(1,1 is /dev/mem, 8,0 a whole disk); created as root it gives "
              "whoever can reach the tree raw access.")
WHY_FIFO = ("Opening a FIFO blocks until a writer appears, so any program "
            "that reads the tree hangs; it is never a document's content.")
WHY_SOCKET = ("A socket file is never a document's content; creating one "
              "binds a name other processes may connect to.")


@fixture("device-node-char.tar", "device-node", "refuse", "null",
         "A character device `null` (1,3).",
         "refuse, naming the entry", WHY_DEVICE)
def _():
    t = Tar()
    t.entry("null", CHRTYPE, mode=0o666, devmajor=1, devminor=3)
    return join(t.end())


@fixture("device-node-block.tar", "device-node", "refuse", "loop0",
         "A block device `loop0` (7,0).",
         "refuse, naming the entry", WHY_DEVICE)
def _():
    t = Tar()
    t.entry("loop0", BLKTYPE, mode=0o660, devmajor=7, devminor=0)
    return join(t.end())


@fixture("fifo.tar", "fifo", "refuse", "pipe",
         "A FIFO `pipe`.", "refuse, naming the entry", WHY_FIFO)
def _():
    t = Tar()
    t.entry("pipe", FIFOTYPE, mode=0o644)
    return join(t.end())


@fixture("device-node-char.cpio", "device-node", "refuse", "null",
         "A cpio (newc) character device `null` (1,3).",
         "refuse, naming the entry", WHY_DEVICE)
def _():
    c = Cpio()
    c.entry("null", 0o020666, rdev=(1, 3))
    return c.end()


@fixture("device-node-block.cpio", "device-node", "refuse", "loop0",
         "A cpio (newc) block device `loop0` (7,0).",
         "refuse, naming the entry", WHY_DEVICE)
def _():
    c = Cpio()
    c.entry("loop0", 0o060660, rdev=(7, 0))
    return c.end()


@fixture("fifo.cpio", "fifo", "refuse", "pipe",
         "A cpio (newc) FIFO `pipe`.", "refuse, naming the entry", WHY_FIFO)
def _():
    c = Cpio()
    c.entry("pipe", 0o010644)
    return c.end()


@fixture("socket.cpio", "socket", "refuse", "sock",
         "A cpio (newc) socket `sock` (tar has no socket type).",
         "refuse, naming the entry", WHY_SOCKET)
def _():
    c = Cpio()
    c.entry("sock", 0o140755)
    return c.end()


# ---- the same path twice ---------------------------------------------------

WHY_DUP = ("Which copy wins depends on the reader, so a checker (or a "
           "signature) that looks at the first copy is fooled by the second.")


@fixture("duplicate-path.tar", "duplicate-path", "refuse", "a.txt",
         "Two regular files named `a.txt` with different contents.",
         "refuse at the second `a.txt`, naming it", WHY_DUP)
def _():
    t = Tar()
    t.file("a.txt", b"first copy\n")
    t.file("a.txt", b"second copy\n")
    return join(t.end())


@fixture("duplicate-path-dot-slash.tar", "duplicate-path", "refuse", "./a.txt",
         "A file `a.txt`, then a file `./a.txt`: the same path spelled "
         "differently.",
         "refuse at `./a.txt`, naming it", WHY_DUP)
def _():
    t = Tar()
    t.file("a.txt", b"first copy\n")
    t.file("./a.txt", b"second copy\n")
    return join(t.end())


@fixture("duplicate-path.zip", "duplicate-path", "refuse", "a.txt",
         "Two zip entries named `a.txt` (both in the central directory).",
         "refuse at the second `a.txt`, naming it", WHY_DUP)
def _():
    z = Zip()
    z.file("a.txt", b"first copy\n")
    z.file("a.txt", b"second copy\n")
    return z.end()


# ---- a file and a directory at one path ------------------------------------

WHY_CONFLICT = ("Replacing one kind by the other deletes what was unpacked "
                "before (a whole directory) or makes later entries land "
                "somewhere unexpected.")


@fixture("file-directory-conflict-dir-then-file.tar", "file-directory-conflict",
         "refuse", "x", "A directory `x/`, then a regular file `x`.",
         "refuse at the file `x`, naming it", WHY_CONFLICT)
def _():
    t = Tar()
    t.dir("x/")
    t.file("x", b"a file where a directory is\n")
    return join(t.end())


@fixture("file-directory-conflict-file-then-dir.tar", "file-directory-conflict",
         "refuse", "x/", "A regular file `x`, then a directory `x/`.",
         "refuse at the directory `x/`, naming it", WHY_CONFLICT)
def _():
    t = Tar()
    t.file("x", b"a file where a directory will be\n")
    t.dir("x/")
    return join(t.end())


@fixture("file-directory-conflict-file-then-child.tar", "file-directory-conflict",
         "refuse", "x/y", "A regular file `x`, then a file `x/y`, which needs "
         "`x` to be a directory.",
         "refuse at `x/y`, naming it", WHY_CONFLICT)
def _():
    t = Tar()
    t.file("x", b"a file where a directory will be needed\n")
    t.file("x/y", b"a child of a file\n")
    return join(t.end())


# ---- corrupt data ----------------------------------------------------------

WHY_CORRUPT = ("Half-written or altered files must not be passed off as "
               "the archive's contents; the error has to reach the caller.")


def corrupt_gzip():
    """A tar.gz with one bit of the deflate data flipped so that inflate
    itself fails: libarchive (3.6.2) does not check the gzip CRC-32, so a
    flip that still inflates would go unnoticed. The stream is flushed
    (Z_FULL_FLUSH, as pigz does) three quarters of the way into `story.txt`;
    the byte after the flush starts a new block, and flipping bit 1 turns its
    type from 2 (dynamic Huffman) into the reserved 3: "invalid block type".
    `first.txt` is unpacked before the error (libarchive inflates 64 KiB at a
    time)."""
    t = Tar()
    t.file("first.txt", prose(4 * KiB, seed=6))
    t.file("story.txt", prose(256 * KiB, seed=7))
    tar = join(t.end())
    split = 3 * 512 + 4 * KiB + 192 * KiB
    comp = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    body = comp.compress(tar[:split]) + comp.flush(zlib.Z_FULL_FLUSH)
    offset = len(body)
    body += comp.compress(tar[split:]) + comp.flush()
    body = bytearray(body)
    assert (body[offset] >> 1) & 3 == 2, "expected a dynamic block after the flush"
    body[offset] ^= 0x02
    try:
        zlib.decompress(bytes(body), -15)
    except zlib.error as error:
        assert "invalid block type" in str(error), error
    else:
        raise AssertionError("the flipped bit did not break the deflate stream")
    return (b"\x1f\x8b\x08\x00" + struct.pack("<I", 0) + b"\x02\x03" + bytes(body)
            + struct.pack("<II", zlib.crc32(tar), len(tar) & 0xFFFFFFFF))


@fixture("corrupt-gzip.tar.gz", "corrupt", "refuse", None,
         "A tar.gz (`first.txt`, 4 KiB, then `story.txt`, 256 KiB) with one "
         "bit flipped in a deflate block header three quarters of the way "
         "into `story.txt`, so inflate fails there (invalid block type); the "
         "gzip CRC-32 and length are those of the intact data.",
         "refuse with a read error; remove what was written", WHY_CORRUPT)
def _():
    return corrupt_gzip()


@fixture("corrupt-crc.zip", "corrupt", "refuse", "story.txt",
         "A zip whose entry `story.txt` has intact data but a wrong CRC-32 in "
         "both the local header and the central directory.",
         "refuse when reading the data, naming the entry", WHY_CORRUPT)
def _():
    z = Zip()
    z.file("story.txt", prose(16 * KiB, seed=11), crc_xor=0xFFFFFFFF)
    return z.end()


@fixture("corrupt-tar-checksum.tar", "corrupt", "refuse", None,
         "A tar whose second header's checksum is off by one, so the header "
         "(and its name) cannot be trusted.",
         "refuse with a read error; remove what was written", WHY_CORRUPT)
def _():
    t = Tar()
    t.file("first.txt", b"fine\n")
    t.file("second.txt", b"header checksum is wrong\n", checksum_delta=1)
    return join(t.end())


# ---- truncated data ----------------------------------------------------------

WHY_TRUNC = ("A cut archive must not leave a shorter file that looks "
             "complete; the error has to reach the caller.")


@fixture("truncated.tar", "truncated", "refuse", None,
         "A tar cut in the middle of the second file's data: the header "
         "declares 64 KiB, 32 KiB follow, then the file ends (no end blocks).",
         "refuse with a read error; remove what was written", WHY_TRUNC)
def _():
    t = Tar()
    t.file("complete.txt", b"this one is whole\n")
    t.file("cut.bin", pseudo_random(64 * KiB, seed=3))
    whole = join(t.end())
    cut_at = 512 + 512 + 512 + 32 * KiB    # two headers, one data block, half
    return whole[:cut_at]


@fixture("truncated.tar.gz", "truncated", "refuse", None,
         "A tar.gz (four 64 KiB text files) cut at 60 % of its compressed "
         "length, inside the third file: the deflate stream stops, there is "
         "no gzip trailer.",
         "refuse with a read error; remove what was written", WHY_TRUNC)
def _():
    t = Tar()
    for n, name in enumerate(("one.txt", "two.txt", "three.txt", "four.txt")):
        t.file(name, prose(64 * KiB, seed=n + 1))
    whole = gzip_bytes(t.end())
    return whole[:len(whole) * 6 // 10]


# ---- encrypted entries -------------------------------------------------------

ENCRYPTED_PASSWORD = b"filewrapperkit"


@fixture("encrypted.zip", "encrypted", "refuse", "secret.txt",
         "A zip whose entry `secret.txt` is encrypted with traditional PKWARE "
         "encryption (ZipCrypto, password `filewrapperkit`, stored, plaintext "
         "`top secret\\n`).",
         "refuse, naming the entry (never prompt for a password)",
         "Without the password the bytes cannot be checked or unpacked; "
         "writing the ciphertext would produce garbage that looks like a "
         "file, and ZipCrypto is broken anyway.")
def _():
    z = Zip()
    z.file("secret.txt", b"top secret\n", method=STORED,
           password=ENCRYPTED_PASSWORD)
    return z.end()


# ---- limits --------------------------------------------------------------------

MANY_ENTRIES = 200_000
BIG_FILE = 5 * GiB
BOMB_FILE = 1 * GiB
LONG_PATH = "/".join(["p" * 200] * 21) + "/file"
DEEP_PATH = "a/" * 1500 + "f"
LONG_TARGET = "/".join(["q" * 200] * 21) + "/target"
LONG_NAME = "n" * 300


@fixture("too-many-entries.tar.gz", "too-many-entries", "refuse", None,
         "200,000 empty regular files (names: 8 digits summing to 36) in "
         "one tar.gz of under 1 MiB.",
         "refuse once the entry count passes the limit (default about "
         "100,000), naming the limit",
         "Each entry costs an inode, a directory slot and bookkeeping; "
         "millions of empty files exhaust inodes and time for a few KiB.",
         limit="entries")
def _():
    t = Tar()
    for name in constant_sum_names(MANY_ENTRIES):
        t.file(name)
    return gzip_bytes(t.end())


@fixture("too-many-bytes.tar.bz2", "too-many-bytes", "refuse", "zeros.bin",
         "One file `zeros.bin` of 5 GiB of zeros, declared in the header and "
         "present in the stream, in a tar.bz2 of a few KiB. bzip2, not gzip: "
         "deflate cannot pass 1032:1, so 5 GiB would need 5 MiB of gzip.",
         "refuse, naming the limit and the entry; best at the header, whose "
         "declared size already exceeds the byte limit (the ratio is past "
         "any ratio limit too, so a streaming check alone may trip `ratio` "
         "first)",
         "Fills the disk: a few KiB expand to more than any document needs.",
         limit="bytes")
def _():
    t = Tar()
    t.file("zeros.bin", Zeros(BIG_FILE))
    return bzip2_bytes(t.end())


@fixture("ratio-bomb.zip", "ratio-bomb", "refuse", "zeros.bin",
         "One deflated entry `zeros.bin` of 1 GiB of zeros, about 1 MiB on "
         "disk (about 1030:1); under the byte limit, over the ratio limit.",
         "refuse, naming the limit and the entry",
         "A compression bomb: a small download that expands to far more "
         "than it looks, to exhaust disk or memory.",
         limit="ratio")
def _():
    z = Zip()
    z.file("zeros.bin", [Zeros(BOMB_FILE)])
    return z.end()


@fixture("path-too-long.tar", "path-too-long", "refuse", LONG_PATH,
         "A file whose path (in a pax `path` record) is %d bytes: 21 "
         "components of 200 bytes, then `file`; no single name passes 255 "
         "bytes and the depth is 22." % len(LONG_PATH),
         "refuse, naming the limit (and the entry, shortened if it likes)",
         "Paths past PATH_MAX break every tool that later handles the tree "
         "and are a classic way to smuggle names past checks that truncate.",
         limit="path-length")
def _():
    t = Tar()
    t.file(LONG_PATH, b"deep\n")
    return join(t.end())


@fixture("too-deep.tar", "too-deep", "refuse", DEEP_PATH,
         "A file `a/a/.../f` 1,501 components deep (pax `path`, %d bytes, "
         "under the path-length limit)." % len(DEEP_PATH),
         "refuse, naming the limit (and the entry, shortened if it likes)",
         "Deep trees overflow recursive walkers (stack exhaustion in "
         "deleters, copiers, indexers) and cost one directory per level.",
         limit="depth")
def _():
    t = Tar()
    t.file(DEEP_PATH, b"deep\n")
    return join(t.end())


@fixture("link-target-too-long.tar", "link-target-too-long", "refuse",
         "long-link",
         "A symlink `long-link` whose target (pax `linkpath`) is %d bytes, "
         "relative and inside the tree." % len(LONG_TARGET),
         "refuse, naming the limit and the entry",
         "Linux refuses targets of 4096 bytes or more (ENAMETOOLONG) and "
         "other systems differ, so such a link cannot round-trip; long "
         "targets are also a cheap way to blow up memory in path resolution.",
         limit="link-length")
def _():
    t = Tar()
    t.symlink("long-link", LONG_TARGET)
    return join(t.end())


@fixture("name-too-long.tar", "name-too-long", "refuse", LONG_NAME,
         "A file whose single name is 300 bytes (pax `path`), over NAME_MAX "
         "(255); the path is otherwise short.",
         "refuse, naming the limit and the entry",
         "No common file system stores names over 255 bytes, so the entry "
         "cannot be written as named; a reader that truncates it may "
         "collide with another entry.",
         limit="name-length")
def _():
    t = Tar()
    t.file(LONG_NAME, b"long name\n")
    return join(t.end())


# ---- accepted --------------------------------------------------------------------

def tree_entry(path, kind, mode=None, target=None):
    entry = {"path": path, "kind": kind}
    if kind == "symlink":
        entry["target"] = target
        entry["mode"] = None
    else:
        entry["mode"] = "%04o" % (mode & ~0o7022)
    return entry


RELATIVE_LINKS = [
    ("App/", "directory", 0o755, None),
    ("App/MacOS/", "directory", 0o755, None),
    ("App/MacOS/tool", "symlink", None, "../Resources/tool"),
    ("App/Resources/", "directory", 0o755, None),
    ("App/Resources/tool", "file", 0o755, SHELL_TOOL),
    ("Latest", "symlink", None, "Versions/Current/file"),
    ("Versions/", "directory", 0o755, None),
    ("Versions/A/", "directory", 0o755, None),
    ("Versions/A/file", "file", 0o644, b"version A\n"),
    ("Versions/Current", "symlink", None, "A"),
]

SPECIAL_BITS = [
    ("bin/", "directory", 0o1777, None),
    ("bin/everything", "file", 0o7777, SHELL_TOOL),
    ("bin/setgid-tool", "file", 0o2755, SHELL_TOOL),
    ("bin/setuid-tool", "file", 0o4755, SHELL_TOOL),
    ("bin/sticky-file", "file", 0o1644, b"sticky\n"),
    ("bin/world-writable", "file", 0o666, b"anyone could write this\n"),
    ("shared/", "directory", 0o2775, None),
    ("shared/group-writable", "file", 0o664, b"the group could write this\n"),
]

NON_ASCII = [(nfc(p), k, m, (nfc(c) if isinstance(c, str) else c)) for p, k, m, c in [
    ("Entrées/", "directory", 0o755, None),
    ("Entrées/Sintra – Palácio da Pena.md", "file", 0o644, b"# Sintra\n"),
    ("Entrées/café.txt", "file", 0o644, "café com leite\n".encode("utf-8")),
    ("Ünïcødé → café", "symlink", None, "Entrées/café.txt"),
    ("emoji-📦.txt", "file", 0o644, b"box\n"),
    ("日本語/", "directory", 0o755, None),
    ("日本語/ファイル.txt", "file", 0o644, "ファイル\n".encode("utf-8")),
]]


def sorted_entries(entries):
    return sorted(entries, key=lambda e: e[0].encode("utf-8"))


def tree_of(entries):
    return [tree_entry(p.rstrip("/"), k, m, c if k == "symlink" else None)
            for p, k, m, c in sorted_entries(entries)]


def tar_of(entries, pax=True):
    t = Tar(pax=pax)
    for path, kind, mode, content in sorted_entries(entries):
        if kind == "directory":
            t.dir(path, mode)
        elif kind == "symlink":
            t.symlink(path, content)
        else:
            t.file(path, content, mode)
    return join(t.end())


def zip_of(entries):
    z = Zip()
    for path, kind, mode, content in sorted_entries(entries):
        if kind == "directory":
            z.dir(path, mode)
        elif kind == "symlink":
            z.symlink(path, content)
        else:
            z.file(path, content, mode)
    return z.end()


WHY_ACCEPT = "Must keep working: refusing this would break real bundles."


@fixture("accepted-relative-links.tar", "accepted-relative-links", "accept", None,
         "A bundle's relative links inside the tree: `App/MacOS/tool -> "
         "../Resources/tool`, `Versions/Current -> A` and `Latest -> "
         "Versions/Current/file` (through another link).",
         "unpack exactly the tree listed", WHY_ACCEPT,
         tree=tree_of(RELATIVE_LINKS))
def _():
    return tar_of(RELATIVE_LINKS)


@fixture("accepted-relative-links.zip", "accepted-relative-links", "accept", None,
         "The same tree as accepted-relative-links.tar, as a zip with Unix "
         "symlinks (external attributes 0120777).",
         "unpack exactly the tree listed", WHY_ACCEPT,
         tree=tree_of(RELATIVE_LINKS))
def _():
    return zip_of(RELATIVE_LINKS)


@fixture("accepted-special-bits.tar", "accepted-special-bits", "accept", None,
         "Files and directories with setuid, setgid, sticky and group/other "
         "write bits (e.g. 7777, 1777, 2775, 0666).",
         "unpack, dropping suid, sgid, sticky and group/other write (modes "
         "as listed)",
         WHY_ACCEPT + " The bits are dropped because a setuid binary or a "
         "world-writable file in a user's tree is a privilege hole.",
         tree=tree_of(SPECIAL_BITS))
def _():
    return tar_of(SPECIAL_BITS)


@fixture("accepted-non-ascii.tar", "accepted-non-ascii", "accept", None,
         "Non-ASCII names (NFC: accents, an en dash, Japanese, an emoji) and "
         "a non-ASCII symlink target, in pax `path`/`linkpath` records.",
         "unpack exactly the tree listed, names byte for byte", WHY_ACCEPT +
         " In the C locale libarchive cannot convert pax UTF-8 names.",
         tree=tree_of(NON_ASCII))
def _():
    return tar_of(NON_ASCII, pax=True)


@fixture("accepted-non-ascii-ustar.tar", "accepted-non-ascii", "accept", None,
         "The same names as raw UTF-8 bytes in plain ustar headers, no pax "
         "records (as GNU tar writes them).",
         "unpack exactly the tree listed, names byte for byte", WHY_ACCEPT +
         " Raw bytes pass libarchive unconverted in any locale; the names "
         "must still come out as the same UTF-8.",
         tree=tree_of(NON_ASCII))
def _():
    return tar_of(NON_ASCII, pax=False)


@fixture("accepted-non-ascii.zip", "accepted-non-ascii", "accept", None,
         "The same names in a zip, with the UTF-8 flag (bit 11) set on the "
         "non-ASCII entries.",
         "unpack exactly the tree listed, names byte for byte", WHY_ACCEPT +
         " In the C locale libarchive returns NULL for such zip names.",
         tree=tree_of(NON_ASCII))
def _():
    return zip_of(NON_ASCII)


# --------------------------------------------------------------------------
# manifest.json and README.md
# --------------------------------------------------------------------------

def manifest():
    out = []
    for f in sorted(FIXTURES, key=lambda f: f["file"]):
        item = {
            "file": f["file"],
            "format": file_format(f["file"]),
            "rule": f["rule"],
            "expect": f["expect"],
            "entry": f["entry"],
            "limit": f["limit"],
            "note": f["note"],
        }
        if f["tree"] is not None:
            item["tree"] = f["tree"]
        out.append(item)
    return (json.dumps(out, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def md_cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def md_code(text):
    """A table cell showing text as code; long names are shortened."""
    if text is None:
        return "(whole archive)"
    if text == "":
        return '`""` (empty)'
    if len(text) > 48:
        text = "%s…%s (%d bytes)" % (text[:20], text[-12:], len(text.encode("utf-8")))
    return "`%s`" % md_cell(text)


def readme(sizes):
    lines = [
        "# Hostile archives",
        "",
        "Archives that FileWrapperArchive's safe unpacker must refuse, and a few",
        "it must accept (DESIGN.md, \"Archives: FileWrapperArchive\"). Generated,",
        "byte for byte the same on every run, by",
        "",
        "    python3 Tools/make-hostile-archives.py [OUT_DIR]   # default Fixtures/Hostile",
        "",
        "Do not edit these files by hand: change the generator and run it again.",
        "`manifest.json` is the machine-readable form of the table below, sorted",
        "by file name: `file`, `format`, `rule`, `expect` (`refuse` or `accept`),",
        "`entry` (the offending entry's path exactly as stored, or null when the",
        "whole archive is at fault), `limit` (null or one of `entries`, `bytes`,",
        "`ratio`, `path-length`, `depth`, `link-length`, `name-length`), `note`,",
        "and for accepted archives `tree`: every entry expected after unpacking",
        "(`path` without a trailing slash, `kind`, `target` for symlinks, `mode`",
        "as octal after dropping suid, sgid, sticky and group/other write; null",
        "for symlinks, whose mode Linux does not keep).",
        "",
        "A refusal is an error that names the archive and the entry (and, for",
        "limits, the limit), after which the destination is as it was. Where a",
        "buggy unpacker would write outside the destination, the name contains",
        "`%s`: look for it in /tmp and beside the destination." % OUTSIDE,
        "",
        "The bombs are small on disk but expand hugely: `too-many-bytes.tar.bz2`",
        "holds 5 GiB, `ratio-bomb.zip` 1 GiB, `too-many-entries.tar.gz` 200,000",
        "entries (about 100 MiB of tar headers). Do not unpack them with tools",
        "that have no limits.",
        "",
        "| File | Size | Rule | Expect | The unpacker must | Entry | What it is, and why it is dangerous |",
        "| --- | ---: | --- | --- | --- | --- | --- |",
    ]
    for f in sorted(FIXTURES, key=lambda f: f["file"]):
        rule = f["rule"] + (" (limit `%s`)" % f["limit"] if f["limit"] else "")
        lines.append("| `%s` | %s | %s | **%s** | %s | %s | %s %s |" % (
            f["file"], human(sizes[f["file"]]), rule, f["expect"],
            md_cell(f["must"]),
            md_code(f["entry"]) if f["expect"] == "refuse" else "",
            md_cell(f["note"]), md_cell(f["why"])))
    lines += [
        "",
        "Not here: a socket in tar (tar has no socket type; see `socket.cpio`),",
        "and a tar.gz over 4 GiB under 2 MiB (deflate stops at about 1032:1, so",
        "5 GiB of zeros is at least 5 MiB of gzip; `too-many-bytes` is a tar.bz2).",
        "",
        "## What libarchive 3.6.2 (bsdtar) does with them",
        "",
        "- It does not check the gzip CRC-32 or length: corruption that still",
        "  inflates goes unnoticed. `corrupt-gzip.tar.gz` therefore breaks",
        "  inflate itself: `bsdtar -x` fails in `story.txt` with \"gzip",
        "  decompression failed\" (`bsdtar -t`, which skips the data, calls it",
        "  \"Truncated input file\").",
        "- A tar header with a bad checksum gives `ARCHIVE_RETRY` (\"Damaged tar",
        "  archive\"), after which libarchive skips ahead to the next good header;",
        "  `bsdtar -t corrupt-tar-checksum.tar` exits 0. Treat `ARCHIVE_RETRY`",
        "  (and `ARCHIVE_WARN`) as errors.",
        "- A zip's CRC is checked only when the data is read: `bsdtar -t`",
        "  lists `corrupt-crc.zip` without complaint, `bsdtar -x` fails with",
        "  \"ZIP bad CRC\".",
        "- For an encrypted entry libarchive asks the passphrase callback (bsdtar",
        "  prompts over and over). Register no passphrase and refuse when",
        "  `archive_entry_is_encrypted` is set. The password of `encrypted.zip`",
        "  is `%s`, so a test can check the entry is a real one." % ENCRYPTED_PASSWORD.decode(),
        "- bsdtar skips the entry with the empty name (\"Archive entry has",
        "  empty or unreadable filename\") and goes on; the unpacker must refuse",
        "  it instead.",
        "- In the C locale the non-ASCII names of `accepted-non-ascii.tar` (pax)",
        "  and `accepted-non-ascii.zip` cannot be converted (\"Pathname cannot be",
        "  converted from UTF-8 to current locale\"): they fail unless the reading",
        "  thread uses a UTF-8 locale. The raw bytes of",
        "  `accepted-non-ascii-ustar.tar` pass in any locale.",
        "- `too-many-bytes.tar.bz2` takes 12 s or more to decompress in full",
        "  (bzip2, 5 GiB); refuse on the size declared in the header. Its ratio",
        "  is about 1,400,000:1, so a ratio check that runs first says `ratio`.",
        "- `too-many-entries.tar.gz` holds no file data, but its tar stream is",
        "  100 MiB, about 116 times the gzip: a ratio limit computed over the",
        "  decompressed stream (`archive_filter_bytes`) must be above that, or",
        "  count file bytes only, for this one to be refused for `entries`.",
        "",
    ]
    return "\n".join(lines).encode("utf-8")


def human(n):
    if n < 10 * KiB:
        return "%d B" % n
    if n < 10 * MiB:
        return "%d KiB" % (n // KiB)
    return "%d MiB" % (n // MiB)


def write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        sys.stderr.write(__doc__)
        return 2
    out_dir = argv[1] if len(argv) == 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "Hostile")
    out_dir = os.path.normpath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    names = [f["file"] for f in FIXTURES]
    assert len(names) == len(set(names)), "duplicate fixture names"
    sizes = {}
    for f in sorted(FIXTURES, key=lambda f: f["file"]):
        data = f["build"]()
        if len(data) >= MAX_FIXTURE_SIZE:
            raise SystemExit("%s is %d bytes, over the %d-byte budget"
                             % (f["file"], len(data), MAX_FIXTURE_SIZE))
        write(os.path.join(out_dir, f["file"]), data)
        sizes[f["file"]] = len(data)
        print("%-48s %9d bytes" % (f["file"], len(data)))
    write(os.path.join(out_dir, "manifest.json"), manifest())
    write(os.path.join(out_dir, "README.md"), readme(sizes))
    print("%d archives, manifest.json and README.md in %s" % (len(FIXTURES), out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
