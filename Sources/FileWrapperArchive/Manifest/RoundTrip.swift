import FileWrapperKit
import Foundation
import Glibc

/// Round trips of a tree: read into a `FileWrapper`, written as a bundle
/// and as each archive format, read back, and compared with the original
/// under what each form can keep. What `wrapinspect verify` runs.
public enum RoundTrip {
    /// Where a tree goes and comes back from.
    public enum Form: Sendable, Hashable, CustomStringConvertible {
        /// Written with `FileWrapper.write(to:)` and read from disk.
        case bundle
        /// Written with ``ArchiveWriter`` and read back as it streams.
        case archive(ArchiveFormat)

        /// `bundle`, or the format's usual ending (`zip`, `tar.zst`), or
        /// its container name where the ending is shared (`ustar`).
        public var description: String {
            guard case .archive(let format) = self else { return "bundle" }
            switch format.container {
            case .ustar, .gnutar: return format.description.replacingOccurrences(of: "+", with: ".")
            default: return format.fileExtension
            }
        }

        /// The modification-time granularity the form keeps, in nanoseconds.
        public var timeResolution: Int64 {
            guard case .archive(let format) = self else { return 1 }
            switch format.container {
            case .pax: return 1
            case .sevenZip: return 100
            case .zip, .ustar, .gnutar, .cpio: return 1_000_000_000
            }
        }

        /// Whether the form records user and group IDs.
        var keepsOwners: Bool {
            guard case .archive(let format) = self else { return true }
            return ![.zip, .sevenZip].contains(format.container)
        }

        /// Whether the form keeps `user.*` extended attributes (archives
        /// are written without them).
        var keepsExtendedAttributes: Bool {
            self == .bundle
        }
    }

    /// What a form cannot keep, by a code that programs can rely on
    /// (`wrapinspect verify --json`, docs/cli-json.md).
    public enum Omission: String, Sendable, Hashable {
        /// Modification times to the form's resolution (1 s, or 100 ns for 7z).
        case times
        /// User and group IDs.
        case owners
        /// Extended attributes.
        case xattrs
        /// The root directory's own mode and time.
        case rootMetadata = "root-metadata"
    }

    /// One form's round trip.
    public struct Result: Sendable {
        public var form: Form
        /// What changed on the way, beyond what the form cannot keep; empty
        /// when the form kept the tree.
        public var diff: ManifestDiff?
        /// Why the form could not be written or read back, if it could not.
        public var failure: String?
        /// What the form cannot keep that this tree has, for example
        /// `times to 1 s` or `owners`.
        public var notKept: [String]
        /// The same, by code, in the same order.
        public var omissions: [Omission] = []

        /// Whether the tree came back as it went, but for ``notKept``.
        public var keepsTree: Bool { failure == nil && diff?.isEmpty == true }
    }

    /// Reads the bundle or archive at `url`, round-trips it through each
    /// form in a temporary directory that only this user can enter
    /// (removed at the end), and compares. With `workspace`, an empty
    /// directory the caller made (and removes), the forms are written there
    /// instead. `starting` is told each form as its round trip begins, and
    /// `finished` its result as soon as it is known.
    /// Throws for input that is not a bundle or an archive, or that cannot
    /// be read; a form that fails to hold the tree is a result, not an error.
    ///
    /// - Parameters:
    ///   - url: The bundle or archive.
    ///   - forms: The forms to write and read back.
    ///   - options: How to read `url` and each form.
    ///   - given: An empty directory for the forms; nil for a temporary one.
    ///   - starting: Told each form as its round trip begins.
    ///   - finished: Told each result as soon as it is known.
    /// - Returns: The manifest of `url` and one result a form, in the order of
    ///   `forms`.
    /// - Throws: `ManifestError` when `url` is neither a bundle nor an
    ///   archive; ``ArchiveError`` when an archive cannot be read; a
    ///   `CocoaError` wrapping a `FileWrapperError` when a bundle cannot
    ///   be read; `FileWrapperError` when the temporary directory cannot
    ///   be made; whatever `finished` throws.
    public static func check(
        _ url: URL, through forms: [Form], options: ManifestReadOptions = ManifestReadOptions(), workspace given: URL? = nil,
        starting: (Form) -> Void = { _ in }, finished: (Result) throws -> Void = { _ in }
    ) throws -> (original: Manifest, results: [Result]) {
        let name = url.relativePath
        let wrapper: FileWrapper
        switch try Manifest.inputKind(of: url, options: options) {
        case .bundle:
            wrapper = try FileWrapper(url: url)
        case .archive:
            wrapper = try ArchiveReader.fileWrapper(contentsOf: url, formats: options.archiveFormats)
        case .file:
            throw ManifestError(file: name, message: "a single file has no tree to round-trip; verify takes a bundle or an archive")
        case .manifest:
            throw ManifestError(file: name, message: "a manifest holds no contents to round-trip; verify takes a bundle or an archive")
        }
        var hashed = options
        hashed.hashingContents = true
        let original = try Manifest(reading: url, options: hashed)

        let workspace = given ?? FileManager.default.temporaryDirectory.appendingPathComponent("wrapinspect-verify-\(UUID().uuidString)")
        if given == nil {
            // Private (mkdirat 0700): the copies inside keep the input's modes, 0644 files among them.
            try Syscall.makeDirectory(workspace.path, in: AT_FDCWD, mode: 0o700, path: { workspace.path })
        }
        defer { if given == nil { try? FileManager.default.removeItem(at: workspace) } }
        let results = try forms.map { form in
            starting(form)
            let result = roundTrip(wrapper, original: original, through: form, in: workspace, limits: options.limits)
            try finished(result)
            return result
        }
        return (original, results)
    }

    private static func roundTrip(_ wrapper: FileWrapper, original: Manifest, through form: Form, in workspace: URL, limits: ArchiveReadLimits) -> Result {
        let omissions = omissions(of: original, by: form)
        var result = Result(form: form, notKept: notKept(omissions, of: original, by: form), omissions: omissions)
        do {
            let copy: Manifest
            switch form {
            case .bundle:
                let url = workspace.appendingPathComponent("bundle")
                try wrapper.write(to: url, options: [], originalContentsURL: nil)
                copy = try Manifest(contentsOf: url)
                try? FileManager.default.removeItem(at: url)
            case .archive(let format):
                copy = try packedManifest(of: wrapper, options: ArchiveWriteOptions(format: format), limits: limits)
            }
            var ignored: Set<ManifestDiff.Field> = []
            if !form.keepsOwners { ignored.insert(.owner) }
            if !form.keepsExtendedAttributes { ignored.insert(.xattrs) }
            result.diff = try ManifestDiff(from: original, to: copy, ignoring: ignored)
        } catch {
            result.failure = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        }
        return result
    }

    /// Packs `wrapper` as `options` say and reads the archive back as a
    /// manifest while it is written: through a pipe, packed on a thread of
    /// its own, so that nothing is stored; a zip or a 7z, which are read by
    /// seeking, through an unnamed temporary file (``ArchiveSpool``), which
    /// holds no more than one within `limits` can take
    /// (``ArchiveSpool/capacity(within:)``): writing stops past it.
    /// Reading never stops the writer midway: what follows a failure to
    /// read is drained, so no write meets a closed pipe (no `SIGPIPE`).
    static func packedManifest(of wrapper: FileWrapper, options: ArchiveWriteOptions, limits: ArchiveReadLimits) throws -> Manifest {
        let name = "archive." + options.format.fileExtension
        if [.zip, .sevenZip].contains(options.format.container) {
            let spool = try ArchiveSpool.make(for: name)
            defer { Syscall.close(spool) }
            let capacity = ArchiveSpool.capacity(within: limits)
            var written: Int64 = 0
            try ArchiveWriter.write(wrapper, rootName: nil, options: options, name: name) { bytes in
                written += Int64(bytes.count)
                guard written <= capacity else { throw ArchiveSpool.refusal("the archive written", name: name, capacity: capacity, advice: "") }
                try ArchiveError.io(archive: name) { try Syscall.writeAll(bytes, to: spool, path: { name }) }
            }
            _ = try ArchiveError.io(archive: name) { try Syscall.retrying(.lseek, { name }) { lseek(spool, 0, SEEK_SET) } }
            return try Manifest(archiveFrom: spool, name: name, limits: limits)
        }
        let ends = try ArchiveError.io(archive: name) { try Syscall.pipe(path: { name }) }
        nonisolated(unsafe) let wrapper = wrapper
        nonisolated(unsafe) var writeFailure: Error?
        var writer = WorkerThreads()
        do {
            try writer.start {
                do {
                    try ArchiveWriter.write(wrapper, to: ends.write, options: options, name: name)
                } catch {
                    writeFailure = error
                }
                Syscall.close(ends.write)
            }
        } catch {
            Syscall.close(ends.write)
            Syscall.close(ends.read)
            throw ArchiveError(.io, archive: name, message: "cannot start a thread: \(error)")
        }
        defer { Syscall.close(ends.read) }
        let manifest: Manifest
        do {
            manifest = try Manifest(archiveFrom: ends.read, name: name, limits: limits)
        } catch {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { buffer.deallocate() }
            while (try? Syscall.read(ends.read, into: buffer, path: { name })) ?? 0 > 0 {}
            writer.joinAll()
            throw writeFailure ?? error
        }
        writer.joinAll()
        if let writeFailure { throw writeFailure }
        return manifest
    }

    /// What `form` cannot keep and `manifest` has.
    private static func omissions(of manifest: Manifest, by form: Form) -> [Omission] {
        var omissions: [Omission] = []
        if form.timeResolution > manifest.timeResolution {
            omissions.append(.times)
        }
        if !form.keepsOwners, manifest.entries.contains(where: { $0.owner != nil }) {
            omissions.append(.owners)
        }
        if !form.keepsExtendedAttributes, manifest.entries.contains(where: { !($0.extendedAttributes ?? [:]).isEmpty }) {
            omissions.append(.xattrs)
        }
        if case .archive(let format) = form, !format.recordsRoot, manifest.root.kind == .directory, manifest.root.permissions != nil {
            omissions.append(.rootMetadata)
        }
        return omissions
    }

    /// The omissions in words for people: `times to 1 s`, `extended attributes (2 entries)`.
    private static func notKept(_ omissions: [Omission], of manifest: Manifest, by form: Form) -> [String] {
        omissions.map { omission in
            switch omission {
            case .times:
                return form.timeResolution >= 1_000_000_000 ? "times to 1 s" : "times to \(form.timeResolution) ns"
            case .owners:
                return "owners"
            case .xattrs:
                let count = manifest.entries.count { !($0.extendedAttributes ?? [:]).isEmpty }
                return "extended attributes (\(count) \(count == 1 ? "entry" : "entries"))"
            case .rootMetadata:
                return "the root directory's own mode and time"
            }
        }
    }
}
