import Glibc

/// What an unpack has made so far, as a tree of names compared by their
/// bytes (``EntryName``), and the checks that depend on it: no entry below a
/// symlink or a file, no path twice, and no symlink that leads out of the
/// tree, following the links made before it.
///
/// A tree and not a set of paths, so that each check costs the names it
/// looks at: finding an entry's folder walks its names once, and resolving
/// a link's target steps from node to node, whatever the depth.
final class UnpackedTree {
    /// A path of the tree and what is there.
    final class Node {
        enum Kind: Equatable {
            case directory
            case file
            case symlink(target: [UInt8])
            /// Nothing yet: a path that an earlier symlink's target went
            /// through, kept while it leads to one that `climbed` out of it
            /// with `..`. A symlink made where the target climbed would
            /// change where that link leads (`a/..` is the tree's parent
            /// once `a -> .`), so it is refused.
            case absent(climbed: Bool)
        }

        fileprivate(set) var kind: Kind
        fileprivate(set) var children: [EntryName: Node] = [:]
        /// A directory's permission bits and time, applied when the unpack
        /// ends; one made only as a parent gets 0755 and keeps the time it
        /// was made (nil).
        var mode: mode_t = 0o755
        var modified: timespec?

        fileprivate init(_ kind: Kind) {
            self.kind = kind
        }

        var isDirectory: Bool {
            if case .directory = kind { return true }
            return false
        }

        /// Whether nothing is here yet.
        fileprivate var isAbsent: Bool {
            if case .absent = kind { return true }
            return false
        }
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

    /// The destination itself.
    let root = Node(.directory)

    /// The nodes from the root down to the deepest existing directory of
    /// `names`, and how many of `names` that is: the rest are missing.
    /// Throws when one of them is a file or a symlink.
    func existingDirectories(_ names: ArraySlice<EntryName>) throws(Conflict) -> (chain: [Node], count: Int) {
        var chain = [root]
        for (count, name) in names.enumerated() {
            guard let node = chain[chain.count - 1].children[name] else { return (chain, count) }
            switch node.kind {
            case .directory: chain.append(node)
            case .absent: return (chain, count)
            case .symlink: throw .belowSymlink(PathKey(names.prefix(count + 1)).display)
            case .file: throw .belowFile(PathKey(names.prefix(count + 1)).display)
            }
        }
        return (chain, names.count)
    }

    /// The node at `names`, if something is there.
    func node(at names: [EntryName]) -> Node? {
        var node = root
        for name in names {
            guard let child = node.children[name], !child.isAbsent else { return nil }
            node = child
        }
        return node
    }

    /// Records a directory made only as a parent, named `name` in `parent`.
    func addImplicitDirectory(_ name: EntryName, in parent: Node) -> Node {
        if let node = parent.children[name] {
            node.kind = .directory
            return node
        }
        let node = Node(.directory)
        parent.children[name] = node
        return node
    }

    /// Records an explicit directory; `isNew` is `false` when it already
    /// exists (nothing to make, only its attributes to set): made as a
    /// parent, or stored before as a directory, which every tar accepts and
    /// gives the attributes of its last entry.
    func addDirectory(_ name: EntryName, in parent: Node) throws(Conflict) -> (node: Node, isNew: Bool) {
        guard let node = parent.children[name] else {
            let node = Node(.directory)
            parent.children[name] = node
            return (node, true)
        }
        switch node.kind {
        case .absent:
            node.kind = .directory
            return (node, true)
        case .directory:
            return (node, false)
        case .file, .symlink: throw .fileAndDirectory
        }
    }

    /// Records a regular file (or a hard link to one).
    func addFile(_ name: EntryName, in parent: Node) throws(Conflict) {
        switch parent.children[name]?.kind {
        case nil, .absent: parent.children[name] = Node(.file)
        case .directory: throw .fileAndDirectory
        case .file, .symlink: throw .duplicate
        }
    }

    /// Records a symlink to `target`, named `name` in the directory at the
    /// end of `chain` (the nodes from the root down), after checking that it
    /// stays inside the tree, following the symlinks made so far; with
    /// `keepingOutside`, one that leads out (or is absolute) is recorded too.
    /// Nothing is ever made below a symlink (``existingDirectories(_:)``),
    /// wherever it leads.
    func addSymlink(_ name: EntryName, in chain: [Node], target: [UInt8], keepingOutside: Bool = false) throws(Conflict) {
        let parent = chain[chain.count - 1]
        switch parent.children[name]?.kind {
        case nil: break
        // An earlier link's target went through here and climbed out with
        // `..` here or below; a symlink here would move where it leads.
        case .absent: throw .redirectsEarlierLink
        case .directory: throw .fileAndDirectory
        case .file, .symlink: throw .duplicate
        }
        do {
            try checkInside(target, from: chain)
        } catch .escapes where keepingOutside {
            // Kept as a link: it leads out of the tree.
        }
        parent.children[name] = Node(.symlink(target: target))
    }

    /// How many symlinks lead out of the tree, each resolved as
    /// ``addSymlink(_:in:target:keepingOutside:)`` resolves a new one, now
    /// that every link is made: one that stayed inside when it was made may
    /// lead out through a link made after it.
    func linksLeadingOutside() -> Int {
        var count = 0
        var chains = [[root]]
        while let chain = chains.popLast() {
            for child in chain[chain.count - 1].children.values {
                switch child.kind {
                case .directory:
                    chains.append(chain + [child])
                case .symlink(let target):
                    do {
                        try checkInside(target, from: chain)
                    } catch {
                        if error == .escapes { count += 1 }
                    }
                case .file, .absent:
                    break
                }
            }
        }
        return count
    }

    /// Resolves `target` from the directory at the end of `start` as the
    /// kernel would, expanding the symlinks made so far, and throws if it
    /// leaves the tree. The paths it climbs out of while nothing is there
    /// stay in the tree as absent nodes; names below them that are only
    /// passed through are removed again, and names that are never climbed
    /// out of get no node at all.
    private func checkInside(_ target: [UInt8], from start: [Node]) throws(Conflict) {
        guard target.first != UInt8(ascii: "/") else { throw .escapes }
        var chain = start
        /// Names past the end of `chain` where nothing is.
        var missing: [ArraySlice<UInt8>] = []
        var stepped: [(parent: Node, name: EntryName, node: Node)] = []
        defer { prune(stepped) }
        var pending = Self.names(target).reversed() as [ArraySlice<UInt8>]
        var expansions = 0
        while let component = pending.popLast() {
            if component.elementsEqual([UInt8(ascii: ".")]) { continue }
            if component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                for name in missing {
                    let node = Node(.absent(climbed: false))
                    let entryName = name.withUnsafeBufferPointer(EntryName.init)
                    chain[chain.count - 1].children[entryName] = node
                    stepped.append((chain[chain.count - 1], entryName, node))
                    chain.append(node)
                }
                missing.removeAll()
                guard chain.count > 1 else { throw .escapes }
                let left = chain.removeLast()
                if left.isAbsent { left.kind = .absent(climbed: true) }
                continue
            }
            guard missing.isEmpty,
                  let node = chain[chain.count - 1].children[component.withUnsafeBufferPointer(EntryName.init)]
            else {
                missing.append(component)
                continue
            }
            guard case .symlink(let next) = node.kind else {
                chain.append(node)
                continue
            }
            // Linux gives up after 40 links (ELOOP); so do we.
            expansions += 1
            guard expansions <= 40 else { throw .tooManyLinks }
            guard next.first != UInt8(ascii: "/") else { throw .escapes }
            pending += Self.names(next).reversed()
        }
    }

    /// Removes the absent nodes made while resolving a target, newest first,
    /// that nothing climbed out of and that lead to no node that did.
    private func prune(_ stepped: [(parent: Node, name: EntryName, node: Node)]) {
        for (parent, name, node) in stepped.reversed()
        where node.kind == .absent(climbed: false) && node.children.isEmpty && parent.children[name] === node {
            parent.children[name] = nil
        }
    }

    /// The names of a target, empty ones (`a//b`, a trailing slash) left out.
    private static func names(_ target: [UInt8]) -> [ArraySlice<UInt8>] {
        target.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
    }

    /// Calls `body` with every directory and its names, each after all the
    /// directories inside it, so the root (no names) last; without
    /// recursion, so any depth will do.
    func forEachDirectoryDeepestFirst(_ body: ([EntryName], Node) throws -> Void) throws {
        var names: [EntryName] = []
        var stack = [(node: root, children: Self.directories(in: root), next: 0)]
        while var top = stack.popLast() {
            if top.next < top.children.count {
                let (name, child) = top.children[top.next]
                top.next += 1
                stack.append(top)
                names.append(name)
                stack.append((child, Self.directories(in: child), 0))
            } else {
                try body(names, top.node)
                if !names.isEmpty { names.removeLast() }
            }
        }
    }

    private static func directories(in node: Node) -> [(EntryName, Node)] {
        node.children.compactMap { $0.value.isDirectory ? ($0.key, $0.value) : nil }
    }
}
