import Foundation

/// Zip archives made byte by byte (by Python's `struct` and `zlib`), with
/// the fields a test wants wrong: what a writer's library would never
/// write. Each member's local header and central record agree, unless a
/// test says otherwise.
struct ZipBuilder {
    struct Member: Encodable {
        var name: String
        var contents: [UInt8]
        /// 0 stored, 8 deflated.
        var method = 8
        /// Written instead of the contents' CRC-32 and size.
        var crc: UInt32?
        var size: Int?
        /// Bytes added after the stored data (counted in its compressed
        /// size), or cut from its end.
        var trailing = 0
        var cut = 0
        /// The first byte of the stored data made 0xFF: a deflate block of
        /// the reserved type.
        var damaged = false
        /// Sizes and offset in zip64 extra fields, 0xFFFFFFFF in the fixed ones.
        var zip64 = false
        /// The offset the central record gives, when not the local header's.
        var localHeaderOffset: Int?
    }

    var members: [Member] = []
    /// Bytes before the first local header (as in a self-extracting
    /// archive), not counted in the offsets.
    var prefix = 0
    /// A zip64 end record and locator before the end record, which then
    /// holds 0xFFFF and 0xFFFFFFFF.
    var zip64End = false

    private struct Spec: Encodable {
        var members: [Member]
        var prefix: Int
        var zip64End: Bool
    }

    /// Where a member's data lies in the file, how many bytes it takes,
    /// and the CRC-32 of its contents.
    struct Placement: Decodable, Equatable {
        var dataOffset: Int64
        var compressedSize: Int
        var crc: UInt32
    }

    /// Writes the archive to `url`; returns where each member's data lies, by name.
    @discardableResult
    func write(to url: URL, scratch: URL) throws -> [String: Placement] {
        let spec = scratch.appendingPathComponent("zip-spec-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: spec) }
        try JSONEncoder().encode(Spec(members: members, prefix: prefix, zip64End: zip64End)).write(to: spec)
        let output = try Interop.run("python3", ["-c", Self.program, spec.path, url.path], in: scratch)
        return try JSONDecoder().decode([String: Placement].self, from: Data(output.stdout.utf8))
    }

    /// `SPEC OUT`: the archive described by the JSON in SPEC, written to
    /// OUT; prints each member's ``Placement``, by name, as JSON.
    static let program = """
        import json, struct, sys, zlib
        spec = json.load(open(sys.argv[1]))
        out = bytearray(b"x" * spec["prefix"])
        central = bytearray()
        placements = {}
        for m in spec["members"]:
            contents = bytes(m["contents"])
            name = m["name"].encode()
            if m["method"] == 8:
                packer = zlib.compressobj(9, zlib.DEFLATED, -15)
                data = packer.compress(contents) + packer.flush()
            else:
                data = contents
            data = data[:len(data) - m["cut"]] + b"\\x00" * m["trailing"]
            if m["damaged"]:
                data = b"\\xff" + data[1:]
            crc = m.get("crc") if m.get("crc") is not None else zlib.crc32(contents)
            size = m.get("size") if m.get("size") is not None else len(contents)
            offset = len(out) - spec["prefix"]
            listed = m.get("localHeaderOffset") if m.get("localHeaderOffset") is not None else offset
            if m["zip64"]:
                local_extra = struct.pack("<HHQQ", 1, 16, size, len(data))
                central_extra = struct.pack("<HHQQQ", 1, 24, size, len(data), listed)
                fields = (0xFFFFFFFF, 0xFFFFFFFF)
                listed32 = 0xFFFFFFFF
            else:
                local_extra = central_extra = b""
                fields = (len(data), size)
                listed32 = listed
            version = 45 if m["zip64"] else 20
            out += struct.pack("<IHHHHHIIIHH", 0x04034b50, version, 0, m["method"], 0, 0x21, crc,
                               fields[0], fields[1], len(name), len(local_extra)) + name + local_extra
            placements[m["name"]] = {"dataOffset": len(out), "compressedSize": len(data), "crc": zlib.crc32(contents)}
            out += data
            central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x031E, version, 0, m["method"], 0, 0x21, crc,
                                   fields[0], fields[1], len(name), len(central_extra), 0, 0, 0, 0o100644 << 16,
                                   listed32) + name + central_extra
        directory = len(out) - spec["prefix"]
        count = len(spec["members"])
        out += central
        if spec["zip64End"]:
            end64 = len(out) - spec["prefix"]
            out += struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 0x031E, 45, 0, 0, count, count, len(central), directory)
            out += struct.pack("<IIQI", 0x07064b50, 0, end64, 1)
            out += struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
        else:
            out += struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, count, count, len(central), directory, 0)
        open(sys.argv[2], "wb").write(out)
        print(json.dumps(placements))
        """
}
