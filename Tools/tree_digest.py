#!/usr/bin/env python3
"""Prints the tree digest (and, with --metadata, the metadata digest) of a
directory, flat file or symbolic link on disk, as docs/tree-digest.md
specifies them: a second implementation, written from that page alone,
that the tests compare with FileWrapperKit's.

    Tools/tree_digest.py [--metadata] PATH

Standard library only. Names are read as bytes, so any name Linux allows
works; a final symbolic link is not followed.
"""

import hashlib
import os
import stat
import struct
import sys


def h(data):
    return hashlib.sha256(data).digest()


def u32(n):
    return struct.pack(">I", n)


def content_digest(path):
    hasher = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            hasher.update(block)
    return hasher.digest()


def children_bytes(children):
    """Each child as u32(len(name)) || name || digest, sorted by name bytes."""
    return b"".join(u32(len(name)) + name + digest for name, digest in sorted(children))


def kind_code(mode):
    if stat.S_ISREG(mode):
        return b"f"
    if stat.S_ISDIR(mode):
        return b"d"
    if stat.S_ISLNK(mode):
        return b"l"
    return b"o"


def user_xattrs(path):
    """The user.* extended attributes of path (not following a link)."""
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return {}
    attributes = {}
    for name in names:
        encoded = os.fsencode(name)
        if encoded.startswith(b"user."):
            attributes[encoded] = os.getxattr(path, name, follow_symlinks=False)
    return attributes


def metadata_fields(path, info):
    """fields(e): kind code, permissions, modification time, owner, attributes."""
    fields = b"m" + kind_code(info.st_mode)
    fields += b"\x01" + struct.pack(">H", stat.S_IMODE(info.st_mode))
    seconds, nanoseconds = divmod(info.st_mtime_ns, 1_000_000_000)
    fields += b"\x01" + struct.pack(">qI", seconds, nanoseconds)
    fields += b"\x01" + u32(info.st_uid) + u32(info.st_gid)
    attributes = user_xattrs(path) if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode) else {}
    if attributes:
        fields += b"\x01" + u32(len(attributes))
        for name in sorted(attributes):
            value = attributes[name]
            fields += u32(len(name)) + name + u32(len(value)) + value
    else:
        fields += b"\x00"
    return fields


def digests(path, with_metadata):
    """(T(e), M(e)) of the entry at path (bytes); M is None unless asked for."""
    info = os.lstat(path)
    mode = info.st_mode
    metadata = metadata_fields(path, info) if with_metadata else None
    if stat.S_ISDIR(mode):
        tree_children, metadata_children = [], []
        for name in os.listdir(path):
            tree, meta = digests(os.path.join(path, name), with_metadata)
            tree_children.append((name, tree))
            metadata_children.append((name, meta))
        tree = h(b"d" + children_bytes(tree_children))
        if with_metadata:
            metadata += children_bytes(metadata_children)
    elif stat.S_ISREG(mode):
        executable = b"\x01" if mode & 0o100 else b"\x00"
        tree = h(b"f" + executable + content_digest(path))
    elif stat.S_ISLNK(mode):
        tree = h(b"l" + os.readlink(path))
    else:
        tree = h(b"o")
    return tree, (h(metadata) if with_metadata else None)


def main(arguments):
    with_metadata = "--metadata" in arguments
    paths = [argument for argument in arguments if argument != "--metadata"]
    if len(paths) != 1:
        sys.stderr.write(__doc__)
        return 2
    tree, metadata = digests(os.fsencode(paths[0]), with_metadata)
    print("fwk-tree-v1:" + tree.hex())
    if with_metadata:
        print("fwk-meta-v1:" + metadata.hex())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
