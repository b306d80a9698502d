#!/usr/bin/env python3
"""Prints the tree digest (and, with --metadata, the metadata digest) of a
directory, flat file or symbolic link on disk, or of a zip or tar archive
(--archive), as docs/tree-digest.md specifies them: a second
implementation, written from that page alone, that the tests compare with
FileWrapperKit's.

    Tools/tree_digest.py [--metadata] PATH
    Tools/tree_digest.py [--metadata] --archive ARCHIVE.zip|ARCHIVE.tar

Standard library only. Names are read as bytes, so any name Linux allows
works; a final symbolic link is not followed. Archives are read with
Python's zipfile and tarfile (uncompressed or compressed tars), following
"What archives hold"; an archive that page refuses exits with status 1.
"""

import base64
import hashlib
import os
import stat
import struct
import sys
import tarfile
import urllib.parse
import zipfile


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


class Refused(Exception):
    """An archive that docs/tree-digest.md refuses."""


class Entry:
    """One entry of an archive: the fields of "What archives hold"."""

    def __init__(self, kind, permissions=None, modified=None, owner=None, xattrs=None,
                 contents=None, target=b""):
        self.kind = kind  # b"f", b"d", b"l", b"h", b"o"
        self.permissions = permissions
        self.modified = modified  # (seconds, nanoseconds)
        self.owner = owner  # (uid, gid)
        self.xattrs = xattrs or {}
        self.contents = contents  # H(contents) of a file or hard link
        self.target = target  # a symlink's target, a hard link's cleaned path


def clean(name):
    """The path's components: "./", empty and "." components dropped."""
    parts = [part for part in name.split(b"/") if part not in (b"", b".")]
    if name.startswith(b"/") or b".." in parts:
        raise Refused("unsafe path %r" % name)
    return tuple(parts)


def archive_fields(entry):
    """fields(e) of an archive entry."""
    fields = b"m" + entry.kind
    if entry.permissions is None:
        fields += b"\x00"
    else:
        fields += b"\x01" + struct.pack(">H", entry.permissions & 0o7777)
    if entry.modified is None:
        fields += b"\x00"
    else:
        fields += b"\x01" + struct.pack(">qI", *entry.modified)
    if entry.owner is None:
        fields += b"\x00"
    else:
        fields += b"\x01" + u32(entry.owner[0]) + u32(entry.owner[1])
    if entry.xattrs:
        fields += b"\x01" + u32(len(entry.xattrs))
        for name in sorted(entry.xattrs):
            value = entry.xattrs[name]
            fields += u32(len(name)) + name + u32(len(value)) + value
    else:
        fields += b"\x00"
    return fields


def tree_digests(entries):
    """(T(root), M(root)) of entries by cleaned path; the root is ()."""
    entries = dict(entries)
    for path in list(entries):
        for depth in range(len(path)):
            parent = path[:depth]
            if parent not in entries:
                entries[parent] = Entry(b"d")  # implied
            elif entries[parent].kind != b"d":
                raise Refused("an entry below %r, which is not a directory" % b"/".join(parent))
    children = {}
    for path in entries:
        if path:
            children.setdefault(path[:-1], []).append(path)

    def digest(path):
        entry = entries[path]
        fields = archive_fields(entry)
        if entry.kind == b"d":
            tree_children, metadata_children = [], []
            for child in children.get(path, []):
                tree, meta = digest(child)
                tree_children.append((child[-1], tree))
                metadata_children.append((child[-1], meta))
            return h(b"d" + children_bytes(tree_children)), h(fields + children_bytes(metadata_children))
        if entry.kind in (b"f", b"h"):
            executable = b"\x01" if (entry.permissions or 0) & 0o100 else b"\x00"
            return h(b"f" + executable + entry.contents), h(fields)
        if entry.kind == b"l":
            return h(b"l" + entry.target), h(fields)
        return h(b"o"), h(fields)

    return digest(())


def add_member(entries, groups, shown, path, entry, carries_contents):
    """Adds an archive member, joining a hard link to its group."""
    if path in entries:
        raise Refused("the path %r twice" % b"/".join(path))
    if entry.kind == b"f":
        groups[path] = path
        shown[path] = entry
    elif entry.kind == b"h":
        if entry.target not in groups:
            raise Refused("a hard link to %r, not an earlier file" % b"/".join(entry.target))
        group = groups[entry.target]
        groups[path] = group
        if carries_contents:
            shown[group] = entry
    entries[path] = entry


def share_groups(entries, groups, shown):
    """Every member of a hard-link group shows its last member with contents."""
    for path, group in groups.items():
        file = shown[group]
        entry = entries[path]
        entry.contents, entry.permissions = file.contents, file.permissions
        entry.modified, entry.owner = file.modified, file.owner


def decimal_time(text):
    """A pax time: seconds, a dot and up to nine digits, maybe negative."""
    negative = text.startswith("-")
    whole, _, fraction = text.lstrip("-").partition(".")
    nanoseconds = int((fraction + "000000000")[:9])
    seconds = int(whole)
    if negative:
        seconds = -seconds
        if nanoseconds:
            seconds, nanoseconds = seconds - 1, 1_000_000_000 - nanoseconds
    return seconds, nanoseconds


def tar_entries(path):
    entries, groups, shown = {}, {}, {}
    with tarfile.open(path, encoding="utf-8", errors="surrogateescape") as archive:
        for member in archive:
            name = member.name.encode("utf-8", "surrogateescape")
            if member.type in (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE) and name.endswith(b"/"):
                if member.size > 0:
                    raise Refused("a file named as a directory holds contents")
                member.type = tarfile.DIRTYPE
            pax = member.pax_headers
            modified = decimal_time(pax["mtime"]) if "mtime" in pax else (int(member.mtime), 0)
            owner = (member.uid, member.gid) if 0 <= member.uid < 1 << 32 and 0 <= member.gid < 1 << 32 else None
            xattrs = {}
            for key, value in pax.items():
                if key.startswith("SCHILY.xattr.user."):
                    xattrs[key[len("SCHILY.xattr."):].encode("utf-8", "surrogateescape")] = value.encode("utf-8", "surrogateescape")
                elif key.startswith("LIBARCHIVE.xattr.user."):
                    xattrs[urllib.parse.unquote_to_bytes(key[len("LIBARCHIVE.xattr."):])] = base64.b64decode(value + "=" * (-len(value) % 4))
            entry = Entry(b"o", member.mode & 0o7777, modified, owner, xattrs)
            carries = False
            if member.isdir():
                entry.kind = b"d"
            elif member.issym():
                entry.kind, entry.target = b"l", member.linkname.encode("utf-8", "surrogateescape")
            elif member.islnk():
                entry.kind, entry.target = b"h", clean(member.linkname.encode("utf-8", "surrogateescape"))
                carries = member.size > 0
                if carries:
                    entry.contents = h(archive.extractfile(member).read())
            elif member.isreg():
                entry.kind, entry.contents, carries = b"f", h(archive.extractfile(member).read()), True
            add_member(entries, groups, shown, clean(name), entry, carries)
    share_groups(entries, groups, shown)
    return entries


ZIP_UNIX_HOST = 3


def zip_fields(extra):
    """The extra fields of a zip header, in order: (id, data)."""
    fields, at = [], 0
    while at + 4 <= len(extra):
        field_id, length = struct.unpack_from("<HH", extra, at)
        if at + 4 + length > len(extra):
            break
        fields.append((field_id, extra[at + 4:at + 4 + length]))
        at += 4 + length
    return fields


def zip_time(fields):
    """The time of the last time field among fields, or None."""
    for field_id, data in reversed(fields):
        if field_id == 0x5455 and len(data) >= 5 and data[0] & 1:
            return struct.unpack_from("<I", data, 1)[0], 0
        if field_id in (0x5855, 0x000D) and len(data) >= 8:
            return struct.unpack_from("<I", data, 4)[0], 0
        if field_id == 0x000A:
            at = 4
            while at + 4 <= len(data):
                tag, size = struct.unpack_from("<HH", data, at)
                if at + 4 + size > len(data):
                    break
                if tag == 1 and size == 24:
                    units = struct.unpack_from("<Q", data, at + 4)[0]
                    return units // 10_000_000 - 11_644_473_600, units % 10_000_000 * 100
                at += 4 + size
    return None


def zip_name(info):
    """The name's bytes: UTF-8 when flagged or valid, else code page 437."""
    if info.flag_bits & 0x800:
        return info.filename.encode("utf-8")
    raw = info.filename.encode("cp437")
    try:
        raw.decode("utf-8")
        return raw
    except UnicodeDecodeError:
        return info.filename.encode("utf-8")


def zip_entries(path):
    entries, groups, shown = {}, {}, {}
    with open(path, "rb") as file, zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            file.seek(info.header_offset)
            local = file.read(30)
            name_length, extra_length = struct.unpack_from("<HH", local, 26)
            file.seek(info.header_offset + 30 + name_length)
            local_fields = zip_fields(file.read(extra_length))
            modified = zip_time(local_fields) or zip_time(zip_fields(info.extra))
            mode = info.external_attr >> 16
            permissions = mode & 0o7777 if info.create_system == ZIP_UNIX_HOST and mode else None
            name = zip_name(info)
            entry = Entry(b"f", permissions, modified)
            if name.endswith(b"/") or (info.create_system != ZIP_UNIX_HOST and info.external_attr & 0x10):
                if info.file_size > 0:
                    raise Refused("a directory holds contents")
                entry.kind = b"d"
            elif info.create_system == ZIP_UNIX_HOST and stat.S_ISLNK(mode):
                entry.kind, entry.target = b"l", archive.read(info)
            elif info.create_system == ZIP_UNIX_HOST and stat.S_ISDIR(mode):
                entry.kind = b"d"
            elif info.create_system == ZIP_UNIX_HOST and stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                entry.kind = b"o"
            else:
                entry.contents = h(archive.read(info))
            add_member(entries, groups, shown, clean(name), entry, True)
    return entries


def archive_digests(path):
    entries = zip_entries(path) if zipfile.is_zipfile(path) else tar_entries(path)
    return tree_digests(entries)


def main(arguments):
    with_metadata = "--metadata" in arguments
    archive = "--archive" in arguments
    paths = [argument for argument in arguments if argument not in ("--metadata", "--archive")]
    if len(paths) != 1:
        sys.stderr.write(__doc__)
        return 2
    if archive:
        try:
            tree, metadata = archive_digests(paths[0])
        except Refused as refusal:
            sys.stderr.write("tree_digest.py: %s: refused: %s\n" % (paths[0], refusal))
            return 1
        metadata = metadata if with_metadata else None
    else:
        tree, metadata = digests(os.fsencode(paths[0]), with_metadata)
    print("fwk-tree-v1:" + tree.hex())
    if with_metadata:
        print("fwk-meta-v1:" + metadata.hex())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
