import Glibc

/// Checks an unpacked tree on disk: every symlink in it resolves inside it,
/// no file is one of the surroundings' inodes (a hard link out), no entry is
/// a device, FIFO or socket, and no file or directory has setuid, setgid,
/// sticky or group or other write (the unpacker drops them).
enum DestinationCheck {
    /// The first problem found, or nil.
    static func problem(in destination: [UInt8], outsideInodes: Set<ino_t>) -> String? {
        guard let top = RawPath.status(destination), RawPath.isDirectory(top) else { return "the destination is not a directory" }
        if top.st_mode & 0o7022 != 0 { return "the destination has mode \(String(top.st_mode, radix: 8))" }
        var pending: [[[UInt8]]] = [[]]
        while let directory = pending.popLast() {
            for name in RawPath.names(in: RawPath.join(destination, directory)) ?? [] {
                let names = directory + [name]
                // Built only for a report: escaping every name of a deep tree costs more than the unpack.
                let shown = { "dest/" + names.map(UnpackProgram.escaped).joined(separator: "/") }
                guard let info = RawPath.status(RawPath.join(destination, names)) else { return "\(shown()): lstat failed, errno \(errno)" }
                if RawPath.isSymlink(info) {
                    if let way = leadsOut(names, in: destination) { return "the symlink \(shown()) leads out of the destination: \(way)" }
                    continue
                }
                guard RawPath.isDirectory(info) || RawPath.isFile(info) else { return "\(shown()) is neither a file, a directory nor a symlink" }
                if info.st_mode & 0o7022 != 0 { return "\(shown()) has mode \(String(info.st_mode, radix: 8))" }
                if outsideInodes.contains(info.st_ino) { return "\(shown()) is a file outside the destination (inode \(info.st_ino))" }
                if RawPath.isDirectory(info) { pending.append(names) }
            }
        }
        return nil
    }

    /// Whether the symlink at `names` below `destination` leads out of it,
    /// and how (the names it resolved through); nil when it stays inside.
    /// Resolved as `readlink -m` does, never looking outside: symlinks
    /// inside are followed (absolute targets lead out), and past the first
    /// name that is missing or not a directory the rest is taken lexically.
    /// After 40 symlinks the kernel gives up (ELOOP), and so does this.
    static func leadsOut(_ names: [[UInt8]], in destination: [UInt8]) -> String? {
        var position = Array(names.dropLast())
        /// Each link followed: where it is and its target; shown only if it leads out.
        var trail: [(at: [[UInt8]], target: [UInt8])] = []
        func report(_ why: String) -> String {
            trail.map { "\"\($0.at.map(UnpackProgram.escaped).joined(separator: "/"))\" -> \"\(UnpackProgram.escaped($0.target))\"" }
                .joined(separator: ", ") + " (\(why))"
        }
        var at = names
        guard var target = RawPath.linkTarget(RawPath.join(destination, names)) else { return nil }
        var pending: [[UInt8]] = []
        var expansions = 1
        var lexical = false
        while true {
            trail.append((at, target))
            if target.first == UInt8(ascii: "/") { return report("absolute") }
            pending += target.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init).reversed()
            var next: [UInt8]?
            while next == nil, let name = pending.popLast() {
                if name == [UInt8(ascii: ".")] { continue }
                if name == [UInt8(ascii: "."), UInt8(ascii: ".")] {
                    guard !position.isEmpty else { return report("climbs above it") }
                    position.removeLast()
                    continue
                }
                position.append(name)
                if lexical { continue }
                let path = RawPath.join(destination, position)
                guard let info = RawPath.status(path) else {
                    lexical = true
                    continue
                }
                if RawPath.isSymlink(info) {
                    expansions += 1
                    guard expansions <= 40, let link = RawPath.linkTarget(path) else { return nil }
                    at = position
                    position.removeLast()
                    next = link
                } else if !RawPath.isDirectory(info), !pending.isEmpty {
                    lexical = true
                }
            }
            guard let link = next else { return nil }
            target = link
        }
    }
}
