import CCRC32
import FileWrapperKit
import Glibc

/// One unpack's walk through the archive: checks each entry against
/// ``UnpackedTree`` and the limits, then makes it below `root` (the fresh
/// temporary directory) through directory descriptors.
///
/// Checks, directories, symlinks, hard links and large files stay on this
/// thread, in archive order; small regular files are read into memory and
/// handed to ``FileWorkers``, which create them on the other cores. A small
/// zip member goes to them as it is stored (found through ``ZipDirectory``),
/// and a worker inflates it.
final class Extraction {
    private let input: any ArchiveEntryStream
    private let place: UnpackDestination
    private let limits: ArchiveReadLimits
    /// Leading names taken off every path, as `tar --strip-components`.
    private let strip: Int
    /// Whether a symlink that leads out of the tree is made rather than refused.
    private let keepsOutsideLinks: Bool
    /// Counts the entries read and the bytes of regular files, for a display.
    private let progress: ManifestProgress?
    private let directories: DirectoryDescriptors
    private let workers: FileWorkers
    private let tree = UnpackedTree()
    private(set) var entries = 0
    private(set) var budget: ContentBudget
    /// The symlinks that lead out of the tree once every entry is made;
    /// counted by ``run()`` when they are kept.
    private(set) var outsideLinks = 0
    /// The process's umask, read once; files whose modes it leaves whole
    /// are created with them.
    private let umask = NewFile.processUmask()
    /// The folder of the last entry: its names, its nodes in ``tree`` from
    /// the root down, and its descriptor. Entries in one folder come one
    /// after another, and a directory in ``tree`` stays one, so the next
    /// entry there needs neither the tree's checks of its parents nor a
    /// lookup of the descriptor. Its names are compared by their bytes.
    private var lastParent: Parent?

    private struct Parent {
        let names: ArraySlice<EntryName>
        let chain: [UnpackedTree.Node]
        let directory: OpenDirectory
        var node: UnpackedTree.Node { chain[chain.count - 1] }
    }
    /// Where the bytes of large files, and of small ones whose size the
    /// header does not give, are read.
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileWorkers.largeFile, alignment: 16)
    /// The small members of a zip that libarchive reads without a filter,
    /// found at its first regular file, and that reader; nil for any other
    /// archive. The directory's entries and sizes are the progress's total.
    private lazy var zip: (directory: ZipDirectory, handle: ArchiveReadHandle)? = {
        guard let handle = input as? ArchiveReadHandle, handle.isZip, let (source, _) = handle.unfilteredInput,
              let directory = ZipDirectory(source: source, maxEntries: limits.maxEntries, maxSize: FileWorkers.largeFile)
        else { return nil }
        progress?.setTotal(entries: directory.entryCount, bytes: directory.expandedBytes)
        return (directory, handle)
    }()

    init(input: any ArchiveEntryStream, root: OpenDirectory, place: UnpackDestination, limits: ArchiveReadLimits, strip: Int = 0,
         keepsOutsideLinks: Bool = false, progress: ManifestProgress? = nil) {
        self.input = input
        self.place = place
        self.limits = limits
        self.strip = strip
        self.keepsOutsideLinks = keepsOutsideLinks
        self.progress = progress
        budget = ContentBudget(limits: limits)
        directories = DirectoryDescriptors(root: root) { names in PathDisplay.join(place.path, names.map(\.text)) }
        workers = FileWorkers(count: Syscall.availableProcessors(), archive: input.name, destination: place.path)
    }

    deinit {
        buffer.deallocate()
    }

    /// Makes every entry, then, once the workers are done, applies the
    /// directories' attributes. On any error the workers have ended before
    /// it is thrown; a worker's failure, about an earlier entry, wins.
    func run() throws {
        do {
            while let header = try input.nextHeader() {
                entries += 1
                guard entries <= limits.maxEntries else {
                    throw refusal(.limitExceeded, header.rawPath, "the archive has more than \(limits.maxEntries) entries", limit: .maxEntries)
                }
                try workers.checkFailure()
                directories.trim()
                // A zip's directory, read now for a progress display's total.
                if entries == 1, progress != nil { _ = zip }
                try extract(header)
                progress?.count(entries: 1, bytes: header.type & S_IFMT == S_IFREG ? max(0, header.size ?? 0) : 0)
            }
            try workers.finish()
        } catch {
            throw workers.stop(after: error)
        }
        // A link kept inside may lead out through one made after it (`a -> b`, then `b -> /etc`).
        if keepsOutsideLinks { outsideLinks = tree.linksLeadingOutside() }
        try finishDirectories()
    }

    private func extract(_ header: ArchiveReadHandle.Header) throws {
        guard let path = header.path else {
            throw refusal(.unsafePath, header.rawPath, "the name cannot be decoded as UTF-8")
        }
        guard !header.isEncrypted else { throw refusal(.encrypted, path, "the entry is encrypted") }
        var names = try EntryPath(path, archive: input.name, limits: limits).components
        if strip > 0 {
            // As tar: an entry with no more names than are stripped is skipped.
            guard names.count > strip else { return }
            names.removeFirst(strip)
        }
        guard let name = names.last else { return try takeRootEntry(header, path: path) }
        let kind = header.type & S_IFMT
        guard header.hardlinkTarget != nil || [S_IFDIR, S_IFREG, S_IFLNK].contains(kind) else {
            throw refusal(.unsupportedEntry, path, "device nodes, FIFOs and sockets are not unpacked")
        }
        let parent = try makeParents(of: names, entry: path)
        let display = { PathDisplay.join(self.place.path, names.map(\.text)) }
        // Without a time in the archive, the entry keeps the time it was made.
        let modified = header.modifiedIsSet
            ? timespec(tv_sec: Int(header.modified.seconds), tv_nsec: Int(header.modified.nanoseconds)) : Syscall.omitTime

        if let target = header.hardlinkTarget {
            var targetNames = try EntryPath(target, entry: path, role: "the hard link's target", archive: input.name, limits: limits).components
            if strip > 0 {
                // Stripped as its entry was; a link to what was skipped is skipped too, as bsdtar does.
                guard targetNames.count > strip else { return }
                targetNames.removeFirst(strip)
            }
            guard tree.node(at: targetNames)?.kind == .file else {
                throw refusal(.unsafePath, path, "the hard link's target \"\(target)\" is not an earlier regular file")
            }
            try record(path) { () throws(UnpackedTree.Conflict) in try tree.addFile(name, in: parent.node) }
            // The target may still be queued for a worker.
            try workers.waitUntilDone()
            try place.io(entry: path) {
                let targetParent = try directories.directory(targetNames.dropLast())
                try Syscall.link(targetNames[targetNames.count - 1].text, in: targetParent.fd, as: name.text, in: parent.directory.fd, path: display)
            }
            // SVR4 cpio stores a group's contents with its last link; a pax
            // link may carry some too. They become the file's (LinkGroups).
            if header.carriesContents {
                try rewriteLinkedFile(NewFile(directory: parent.directory, name: name, names: names, entry: path,
                                              mode: Self.safeMode(header.permissions), modified: modified, umask: nil), display: display)
            }
            return
        }
        switch kind {
        case S_IFDIR:
            let (node, isNew) = try record(path) { () throws(UnpackedTree.Conflict) in try tree.addDirectory(name, in: parent.node) }
            if isNew {
                try place.io(entry: path) { try Syscall.makeDirectory(name.text, in: parent.directory.fd, mode: 0o700, path: display) }
            }
            node.mode = Self.safeMode(header.permissions)
            node.modified = header.modifiedIsSet ? modified : nil
        case S_IFREG:
            try record(path) { () throws(UnpackedTree.Conflict) in try tree.addFile(name, in: parent.node) }
            let file = NewFile(directory: parent.directory, name: name, names: names, entry: path, mode: Self.safeMode(header.permissions),
                               modified: modified, umask: umask)
            try make(file, size: header.size, display: display)
        default:
            let target = header.symlinkTarget ?? []
            guard target.count <= limits.maxLinkLength else {
                throw refusal(.limitExceeded, path, "the symlink's target is longer than \(limits.maxLinkLength) bytes", limit: .maxLinkLength)
            }
            guard !target.isEmpty else { throw refusal(.unsafePath, path, "the symlink's target is empty") }
            guard keepsOutsideLinks || target.first != UInt8(ascii: "/") else {
                throw refusal(.unsafePath, path, "the symlink's target \"\(PathDisplay.text(target))\" is absolute", option: .keepsOutsideLinks)
            }
            try record(path) { () throws(UnpackedTree.Conflict) in
                try tree.addSymlink(name, in: parent.chain, target: target, keepingOutside: keepsOutsideLinks)
            }
            try place.io(entry: path) {
                try Syscall.makeSymbolicLink(name.text, in: parent.directory.fd, target: target, path: display)
                let times = [Syscall.omitTime, modified]
                try Syscall.retrying(.utimensat, display) { utimensat(parent.directory.fd, name.text, times, AT_SYMLINK_NOFOLLOW) }
            }
        }
    }

    /// Takes the root's own entry (`.`, `./`, as `tar -C dir .`, `find . |
    /// cpio` and every `.deb` write it) as the destination's: its mode and
    /// time go to the new root (stored again, it is the same directory, and
    /// its last entry's attributes win). Anything but a directory there is refused.
    private func takeRootEntry(_ header: ArchiveReadHandle.Header, path: String) throws {
        guard header.hardlinkTarget == nil, header.type & S_IFMT == S_IFDIR else {
            throw refusal(.unsafePath, path, "the entry would replace the destination, a directory, with another kind")
        }
        tree.root.mode = Self.safeMode(header.permissions)
        tree.root.modified = header.modifiedIsSet
            ? timespec(tv_sec: Int(header.modified.seconds), tv_nsec: Int(header.modified.nanoseconds)) : nil
    }

    /// Makes the missing directories above `names` and returns its parent.
    private func makeParents(of names: [EntryName], entry: String) throws -> Parent {
        let parentNames = names.dropLast()
        if let lastParent, lastParent.names.elementsEqual(parentNames) { return lastParent }
        var (chain, existing) = try record(entry) { () throws(UnpackedTree.Conflict) in try tree.existingDirectories(parentNames) }
        return try place.io(entry: entry) {
            var directory = try directories.directory(parentNames.prefix(existing))
            for depth in existing..<parentNames.count {
                let display = { PathDisplay.join(self.place.path, names[...depth].map(\.text)) }
                try Syscall.makeDirectory(names[depth].text, in: directory.fd, mode: 0o700, path: display)
                chain.append(tree.addImplicitDirectory(names[depth], in: chain[chain.count - 1]))
                directory = OpenDirectory(try Syscall.openDirectory(names[depth].text, in: directory.fd, path: display))
            }
            if existing < parentNames.count { directories.remember(directory, at: parentNames) }
            let parent = Parent(names: parentNames, chain: chain, directory: directory)
            lastParent = parent
            return parent
        }
    }

    /// Makes `file` from the current entry's bytes: a worker does when they
    /// are no more than `FileWorkers.largeFile`, once they are read into the
    /// space it gives; this thread does, streaming them, otherwise.
    private func make(_ file: NewFile, size: Int64?, display: Syscall.Path) throws {
        guard let size else {
            // Without a size in the header, a full buffer may be the start of a larger file.
            let count = try fill(buffer, entry: file.entry)
            guard count < buffer.count else { return try write(file, startingWith: [UnsafeRawBufferPointer(buffer)], display: display) }
            let space = try workers.space(for: count)
            space.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            return workers.submit(file, contents: UnsafeRawBufferPointer(space))
        }
        guard size <= FileWorkers.largeFile else {
            if let stored = input.storedContents { return try copy(file, size: size, from: stored, display: display) }
            if try inflateZipMember(file, size: size, display: display) { return }
            return try write(file, startingWith: [], display: display)
        }
        if try submitZipMember(file, size: size) { return }
        let space = try workers.space(for: Int(size))
        let count = try fill(space, entry: file.entry)
        let contents = UnsafeRawBufferPointer(rebasing: space[..<count])
        // Bytes past the size the header gave are the file's too.
        let more = count < space.count ? 0 : try fill(buffer, entry: file.entry)
        guard more > 0 else { return workers.submit(file, contents: contents) }
        try write(file, startingWith: [contents, UnsafeRawBufferPointer(rebasing: buffer[..<more])], display: display)
    }

    /// Hands `file`, the current entry, to a worker as the stored bytes of
    /// the small zip member it is, to be inflated and checked there; false
    /// when it is not one that ``ZipDirectory`` finds, and libarchive is to
    /// read it.
    private func submitZipMember(_ file: NewFile, size: Int64) throws -> Bool {
        guard let zip, let (source, dataOffset) = zip.handle.unfilteredInput,
              let member = zip.directory.member(dataOffset: dataOffset, size: size), member.compressedSize <= FileWorkers.largeFile
        else { return false }
        let space = try workers.space(for: member.compressedSize)
        guard source.copyBytes(at: member.offset, into: space) else { return false }
        try budget.spend(member.size, entry: file.entry, from: input, archiveBytesRead: member.offset + Int64(member.compressedSize))
        try input.skipData(entry: file.entry)
        workers.submit(file, contents: UnsafeRawBufferPointer(space), member: member)
        return true
    }

    /// Makes the large `file`, the current entry, on this thread from the
    /// deflated zip member it is, read in pieces (`pread`) and inflated by
    /// ``RawInflater`` (ISA-L where the build has it) rather than by
    /// libarchive's zlib, then checked as a worker checks a small one: the
    /// stream ends with the stored bytes, gives the size and the CRC-32 the
    /// central directory gives. False when it is not one that
    /// ``ZipDirectory`` finds, and libarchive is to read it.
    private func inflateZipMember(_ file: NewFile, size: Int64, display: Syscall.Path) throws -> Bool {
        guard let zip, let (source, dataOffset) = zip.handle.unfilteredInput,
              let member = zip.directory.member(dataOffset: dataOffset, size: size), member.method == .deflated
        else { return false }
        guard let inflater = RawInflater() else {
            throw ArchiveError(.io, archive: input.name, entry: file.entry, message: "could not allocate an inflate stream")
        }
        // Skipped first, as libarchive skips a member (by its compressed
        // size, not decoding it): a truncated archive fails as it does when read.
        try input.skipData(entry: file.entry)
        try budget.spend(member.size, entry: file.entry, from: input, archiveBytesRead: member.offset + Int64(member.compressedSize))
        workers.wake()
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { input.deallocate() }
        let damage = { (message: String) in ArchiveError(.corrupt, archive: self.input.name, entry: file.entry, message: message) }
        try place.io(entry: file.entry) {
            let fd = try file.create(path: display)
            defer { Syscall.close(fd) }
            var (produced, crc) = (0, UInt32(0))
            try inflater.inflate(
                compressedSize: Int64(member.compressedSize), input: input, output: buffer,
                read: { piece, offset in
                    guard source.copyBytes(at: member.offset + offset, into: piece) else { throw damage("the archive ends inside the member's data") }
                },
                deliver: { block in
                    guard block.count <= member.size - produced else {
                        throw damage("the data expands to more than the \(member.size) bytes that the archive gives")
                    }
                    produced += block.count
                    crc = ccrc32_update(crc, block.baseAddress, block.count)
                    try Syscall.writeAll(block, to: fd, path: display)
                },
                failure: { failure in
                    failure == .outOfMemory
                        ? ArchiveError(.io, archive: self.input.name, entry: file.entry, message: failure.message) : damage(failure.message)
                })
            guard produced == member.size else {
                throw damage("the data expands to \(produced) bytes, not the \(member.size) that the archive gives")
            }
            guard crc == member.crc else { throw damage(ZipMemberExpander.crcMismatch(crc, member.crc)) }
            try file.finish(fd, path: display)
        }
        return true
    }

    /// Makes the large `file` from contents that lie as they are in the
    /// archive file (an uncompressed tar's): libarchive skips them and the
    /// kernel copies them (`copy_file_range`), as `cp -a` copies a file,
    /// never through this process's memory.
    private func copy(_ file: NewFile, size: Int64, from stored: (fd: CInt, offset: Int64), display: Syscall.Path) throws {
        // Skipped first: a truncated archive fails as it does when read,
        // and the ratio limit counts the bytes skipped.
        try input.skipData(entry: file.entry)
        try budget.spend(Int(size), entry: file.entry, from: input)
        workers.wake()
        let copied = try place.io(entry: file.entry) {
            let fd = try file.create(path: display)
            defer { Syscall.close(fd) }
            let copied = try Syscall.copy(Int(size), from: stored.fd, at: stored.offset, to: fd, path: display)
            try file.finish(fd, path: display)
            return copied
        }
        guard copied == size else {
            throw ArchiveError(.io, archive: input.name, entry: file.entry, message: "the archive became shorter while it was read")
        }
    }

    /// Replaces the contents of the regular file that the hard link `file`
    /// has just been made to with the current entry's bytes, counted as a
    /// new file's are, then gives it the entry's mode and time. The link is
    /// opened without following a symlink (`openat(O_TRUNC | O_NOFOLLOW)`).
    private func rewriteLinkedFile(_ file: NewFile, display: Syscall.Path) throws {
        try place.io(entry: file.entry) {
            let fd = try Syscall.open(file.name.text, in: file.directory.fd, flags: O_WRONLY | O_TRUNC | O_NOFOLLOW, path: display)
            defer { Syscall.close(fd) }
            try writeContents(to: fd, entry: file.entry, display: display)
            try file.finish(fd, path: display)
        }
    }

    /// Reads the current entry's next bytes into `target` until it is full
    /// or the entry ends, counting them against the byte and ratio limits;
    /// returns how many it read.
    private func fill(_ target: UnsafeMutableRawBufferPointer, entry: String) throws -> Int {
        var count = 0
        while count < target.count {
            let got = try input.readData(into: UnsafeMutableRawBufferPointer(rebasing: target[count...]), entry: entry)
            if got == 0 { break }
            try budget.spend(got, entry: entry, from: input)
            count += got
        }
        return count
    }

    /// Makes `file` on this thread: writes `first`, bytes of it already
    /// read, then the rest of the entry as it comes.
    private func write(_ file: NewFile, startingWith first: [UnsafeRawBufferPointer], display: Syscall.Path) throws {
        workers.wake()
        try place.io(entry: file.entry) {
            let fd = try file.create(path: display)
            defer { Syscall.close(fd) }
            for bytes in first { try Syscall.writeAll(bytes, to: fd, path: display) }
            try writeContents(to: fd, entry: file.entry, display: display)
            try file.finish(fd, path: display)
        }
    }

    /// Writes the current entry's bytes to `fd` as they come, counting them
    /// against the byte and ratio limits.
    private func writeContents(to fd: CInt, entry: String, display: Syscall.Path) throws {
        while true {
            let count = try input.readData(into: buffer, entry: entry)
            if count == 0 { return }
            try budget.spend(count, entry: entry, from: input)
            try place.io(entry: entry) {
                try Syscall.writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<count]), to: fd, path: display)
            }
        }
    }

    /// Applies the directories' modes and times, the root's last, each after
    /// every directory inside it: until then each must stay writable, and its time would
    /// change with every entry made in it. Each is opened without going
    /// through a symlink and changed through its own descriptor (`fchmod`,
    /// `futimens`), never by a name the kernel could resolve elsewhere.
    private func finishDirectories() throws {
        try tree.forEachDirectoryDeepestFirst { names, node in
            directories.trim()
            try place.io(entry: names.map(\.text).joined(separator: "/")) {
                let directory = try directories.directory(names[...])
                let display = { PathDisplay.join(self.place.path, names.map(\.text)) }
                try Syscall.retrying(.fchmod, display) { fchmod(directory.fd, node.mode) }
                if let modified = node.modified {
                    let times = [Syscall.omitTime, modified]
                    try Syscall.retrying(.futimens, display) { futimens(directory.fd, times) }
                }
            }
        }
    }

    /// Runs a check of ``UnpackedTree``, turning a conflict into a refusal of `entry`.
    private func record<Result>(_ entry: String, _ check: () throws(UnpackedTree.Conflict) -> Result) throws -> Result {
        do {
            return try check()
        } catch {
            let message = switch error {
            case .belowSymlink(let link): "the entry would be written through the symlink \"\(link)\""
            case .belowFile(let file): "\"\(file)\" is a file, not a directory"
            case .duplicate: "the archive has this path twice"
            case .fileAndDirectory: "the archive has a file and a directory at this path"
            case .escapes: "the symlink leads out of the tree (following the symlinks made before it)"
            case .tooManyLinks: "the symlink's target goes through more than 40 symlinks"
            case .redirectsEarlierLink: "a symlink here would change where an earlier symlink leads, out of the tree"
            }
            let code: ArchiveError.Code = switch error {
            case .belowFile, .duplicate, .fileAndDirectory: .duplicateEntry
            case .belowSymlink, .escapes, .tooManyLinks, .redirectsEarlierLink: .unsafePath
            }
            throw refusal(code, entry, message, option: error == .escapes ? .keepsOutsideLinks : nil)
        }
    }

    private func refusal(
        _ code: ArchiveError.Code, _ entry: String, _ message: String, limit: ArchiveReadLimits.Limit? = nil,
        option: ArchiveUnpackOptions.Option? = nil
    ) -> ArchiveError {
        ArchiveError(code, archive: input.name, entry: entry, message: message, limit: limit, option: option)
    }

    /// The permission bits without setuid, setgid, sticky and group or other write.
    private static func safeMode(_ permissions: UInt16) -> mode_t {
        mode_t(permissions) & 0o755
    }
}
