/// Hostile zips whose members overlap, written by Python (struct,
/// zlib.crc32), byte for byte the same on every run: `python3 -c script
/// KIND OUT`, KIND one of
/// - `into-directory`: a stored member, then another whose sizes take the
///   first 12 bytes of the central directory into its data, its CRC-32
///   forged to match (`into-directory-extra`: the same, its local header
///   given a 16-byte extra field, so that only the header's real length
///   shows the overlap);
/// - `bomb-stored`, `bomb-quoted`: David Fifield's overlapping zip bomb,
///   small: 300 members whose local headers follow one another, each
///   member's data running over every later local header to one shared
///   kernel, stored, or deflated with each later header quoted in a
///   stored deflate block.
public enum OverlappingZips {
    public static let count = 300

    public static let script = """
        import struct, sys, zlib
        kind, out = sys.argv[1], sys.argv[2]

        def local(name, method, crc, csize, size, extra=b""):
            return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, csize, size, len(name), len(extra)) + name + extra

        def central(name, method, crc, csize, size, offset):
            return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, 0, method, 0, 0x21, crc, csize, size,
                               len(name), 0, 0, 0, 0, 0o100644 << 16, offset) + name

        members, body = [], b""
        if kind.startswith("into-directory"):
            extra = struct.pack("<HH", 0x6666, 12) + bytes(12) if kind.endswith("-extra") else b""
            first, data = b"first.txt", b"a member that keeps to itself\\n"
            members.append((first, 0, zlib.crc32(data), len(data), len(data), 0))
            body += local(first, 0, zlib.crc32(data), len(data), len(data)) + data
            # The first 12 bytes of the directory: the first record's signature, versions, flags and method.
            taken = struct.pack("<IHHHH", 0x02014B50, 0x031E, 20, 0, 0)
            runs, data = b"runs.txt", b"this member runs into the central directory\\n"
            crc, size = zlib.crc32(data + taken), len(data) + len(taken)
            members.append((runs, 0, crc, size, size, len(body)))
            body += local(runs, 0, crc, size, size, extra) + data
        else:
            quoted = kind == "bomb-quoted"
            method, kernel = (8 if quoted else 0), b"kernel " * 150
            squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
            # What follows each local header, from the last to the first, and what it expands to.
            body, expanded, entries = (squeeze.compress(kernel) + squeeze.flush() if quoted else kernel), kernel, []
            for i in reversed(range(\(count))):
                name = b"member%03d.txt" % i
                header = local(name, method, zlib.crc32(expanded), len(body), len(expanded))
                # The member before holds this local header in its data (quoted: in a stored deflate block).
                quote = struct.pack("<BHH", 0, len(header), len(header) ^ 0xFFFF) if quoted and i > 0 else b""
                entries.insert(0, (name, zlib.crc32(expanded), len(body), len(expanded), len(quote) + len(header)))
                body, expanded = quote + header + body, header + expanded
            offset = 0
            for name, crc, csize, size, length in entries:
                offset += length - len(local(name, 0, 0, 0, 0))
                members.append((name, method, crc, csize, size, offset))
                offset += len(local(name, 0, 0, 0, 0))
        directory = b"".join(central(*member) for member in members)
        end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(directory), len(body), 0)
        open(out, "wb").write(body + directory + end)
        """
}
