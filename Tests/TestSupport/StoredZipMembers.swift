import Foundation

/// A zip's members as the zip stores them, found by Python's zipfile after
/// `testzip()` (which reads and checks every member) found nothing wrong:
/// what tells a member copied as stored from one written anew.
public enum StoredZipMembers {
    /// A member's name, method, extra field length, and the SHA-256 of
    /// its local header and data.
    public struct Member: Decodable, Equatable, Sendable {
        public var name: String
        public var method: Int
        public var raw: String
        public var extra: Int
    }

    /// Python's zipfile refused the zip.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The members of the zip at `url`, in order.
    public static func list(_ url: URL) throws -> [Member] {
        let result = try ChildProcess.run("/bin/sh", ["-c", "exec python3 -c \"$0\" \"$@\"", program, url.path])
        guard result.exited, result.status == 0 else {
            throw Failure(description: "python3's zipfile refused \(url.path): \(result.stderr)")
        }
        return try JSONDecoder().decode([Member].self, from: Data(result.stdout.utf8))
    }

    private static let program = """
        import hashlib, json, struct, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as z:
            bad = z.testzip()
            assert bad is None, "zipfile: bad member " + bad
            raw = open(sys.argv[1], "rb").read()
            members = []
            for info in z.infolist():
                at = info.header_offset
                n, e = struct.unpack("<HH", raw[at + 26:at + 30])
                end = at + 30 + n + e + info.compress_size
                members.append({"name": info.filename, "method": info.compress_type,
                                "raw": hashlib.sha256(raw[at:end]).hexdigest(), "extra": e})
            print(json.dumps(members))
        """
}
