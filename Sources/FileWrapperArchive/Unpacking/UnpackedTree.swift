/// What an unpack has made so far, by path, and the checks that depend on
/// it: no entry below a symlink or a file, no path twice, and no symlink
/// that leads out of the tree, following the links made before it.
///
/// Paths are keys of their exact bytes (`a/b`), so two spellings of one
/// name in Unicode are two paths, as they are two files on Linux.
struct UnpackedTree {
    enum Node: Equatable {
        /// `explicit` when the archive has an entry for it, not only entries below it.
        case directory(explicit: Bool)
        case file
        case symlink(target: [UInt8])
    }

    /// Why a path cannot be made; the unpacker turns it into an error that
    /// names the entry.
    enum Conflict: Error, Equatable {
        case belowSymlink(String)
        case belowFile(String)
        case duplicate
        case fileAndDirectory
        case escapes
        case tooManyLinks
        case redirectsEarlierLink
    }

    private var nodes: [PathKey: Node] = [:]
    /// Paths an earlier symlink's target climbs out of with `..` while
    /// nothing was there. A symlink made there later would change where that
    /// link leads (`a/..` is the tree's parent once `a -> .`), so it is refused.
    private var climbedThrough: Set<PathKey> = []

    static func key(_ names: ArraySlice<String>) -> PathKey {
        var key: [UInt8] = []
        key.reserveCapacity(names.reduce(names.count) { $0 + $1.utf8.count })
        for name in names {
            if !key.isEmpty { key.append(UInt8(ascii: "/")) }
            key.append(contentsOf: name.utf8)
        }
        return PathKey(bytes: key)
    }

    /// The parents of `names` that do not exist yet, after checking that none
    /// of the existing ones is a file or a symlink.
    func missingParents(of names: [String]) throws(Conflict) -> [Int] {
        var missing: [Int] = []
        for depth in 0..<(names.count - 1) {
            switch nodes[Self.key(names[...depth])] {
            case nil: missing.append(depth)
            case .directory: continue
            case .symlink: throw .belowSymlink(names[...depth].joined(separator: "/"))
            case .file: throw .belowFile(names[...depth].joined(separator: "/"))
            }
        }
        return missing
    }

    /// Records a directory made only as a parent.
    mutating func addImplicitDirectory(_ names: ArraySlice<String>) {
        nodes[Self.key(names)] = .directory(explicit: false)
    }

    /// Records an explicit directory; returns `false` when it already exists
    /// as an implicit one (nothing to make, only its attributes to set).
    mutating func addDirectory(_ names: [String]) throws(Conflict) -> Bool {
        let key = Self.key(names[...])
        switch nodes[key] {
        case nil:
            nodes[key] = .directory(explicit: true)
            return true
        case .directory(explicit: false):
            nodes[key] = .directory(explicit: true)
            return false
        case .directory(explicit: true): throw .duplicate
        case .file, .symlink: throw .fileAndDirectory
        }
    }

    /// Records a regular file (or a hard link to one).
    mutating func addFile(_ names: [String]) throws(Conflict) {
        let key = Self.key(names[...])
        switch nodes[key] {
        case nil: nodes[key] = .file
        case .directory: throw .fileAndDirectory
        case .file, .symlink: throw .duplicate
        }
    }

    /// Whether `names` is a regular file made earlier.
    func isFile(_ names: [String]) -> Bool {
        nodes[Self.key(names[...])] == .file
    }

    /// Records a symlink to the relative `target` after checking that it
    /// stays inside the tree, following the symlinks made so far.
    mutating func addSymlink(_ names: [String], target: [UInt8]) throws(Conflict) {
        let key = Self.key(names[...])
        switch nodes[key] {
        case nil: break
        case .directory: throw .fileAndDirectory
        case .file, .symlink: throw .duplicate
        }
        guard !climbedThrough.contains(key) else { throw .redirectsEarlierLink }
        try checkInside(target, from: names.dropLast().map { Array($0.utf8) })
        nodes[key] = .symlink(target: target)
    }

    /// Resolves `target` from the directory `start` as the kernel would,
    /// expanding the symlinks made so far, and throws if it leaves the tree.
    /// Paths climbed out of while they do not exist are remembered.
    private mutating func checkInside(_ target: [UInt8], from start: [[UInt8]]) throws(Conflict) {
        guard target.first != UInt8(ascii: "/") else { throw .escapes }
        var position = start
        var pending = Array(target.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).reversed())
        var expansions = 0
        while let component = pending.popLast() {
            if component.elementsEqual([UInt8(ascii: ".")]) { continue }
            if component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                guard !position.isEmpty else { throw .escapes }
                let key = Self.key(position)
                if nodes[key] == nil { climbedThrough.insert(key) }
                position.removeLast()
                continue
            }
            position.append(Array(component))
            guard case .symlink(let next) = nodes[Self.key(position)] else { continue }
            // Linux gives up after 40 links (ELOOP); so do we.
            expansions += 1
            guard expansions <= 40 else { throw .tooManyLinks }
            guard next.first != UInt8(ascii: "/") else { throw .escapes }
            position.removeLast()
            pending += next.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).reversed()
        }
    }

    private static func key(_ names: [[UInt8]]) -> PathKey {
        PathKey(bytes: Array(names.joined(separator: [UInt8(ascii: "/")])))
    }
}

/// A path's bytes (`a/b`) as a dictionary key, hashed in one call: an array
/// of bytes hashes itself byte by byte, which took an unpack of 20,000
/// files tens of milliseconds on its reading thread.
struct PathKey: Hashable {
    var bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
