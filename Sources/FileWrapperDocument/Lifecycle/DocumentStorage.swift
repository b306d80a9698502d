import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc

/// How a document of a type is stored: a type that conforms to
/// `public.directory` (every package type does) is a directory bundle; one
/// that conforms to `public.zip-archive` is a zip container whose entries
/// are the document's files; anything else is one flat file.
enum DocumentStorage: Sendable, CustomStringConvertible {
    case bundle, zipContainer, flatFile

    init(_ type: UTType) {
        if type.conforms(to: .directory) {
            self = .bundle
        } else if type.conforms(to: .zip) {
            self = .zipContainer
        } else {
            self = .flatFile
        }
    }

    var description: String {
        switch self {
        case .bundle: "a directory bundle"
        case .zipContainer: "a zip container"
        case .flatFile: "a flat file"
        }
    }

    /// Whether this storage is a directory on disk.
    private var isDirectory: Bool { self == .bundle }

    /// The document's file wrapper: the bundle's tree (file contents read
    /// lazily), the zip container's members (each read on first use,
    /// ``ZipContainer``), or the flat file.
    func read(_ url: URL, as type: UTType) throws -> FileWrapper {
        try checkKindOnDisk(at: url, as: type, reading: true)
        do {
            switch self {
            case .bundle, .flatFile:
                return try FileWrapper(url: url)
            case .zipContainer:
                // Lazily, but for a zip the lazy reader does not read (no central directory, a member of another method).
                do {
                    return try ZipContainer.fileWrapper(contentsOf: url)
                } catch let error as ArchiveError where error.code == .unsupportedFormat {
                    return try ArchiveReader.fileWrapper(contentsOf: url, formats: .zip)
                }
            }
        } catch {
            throw DocumentError(.unreadable, url: url, "cannot be read as \(self) of type \(type.identifier)", underlying: error)
        }
    }

    /// Writes `wrapper` to `url` atomically: a failure at any point leaves
    /// what was at `url` whole. A bundle links the files it shares with
    /// `originalContentsURL` instead of writing them again; a zip container
    /// copies the members it did not change as they are stored.
    func write(_ wrapper: FileWrapper, to url: URL, as type: UTType, originalContentsURL: URL?) throws {
        let wanted = isDirectory || self == .zipContainer ? "a directory" : "a regular file"
        guard isDirectory || self == .zipContainer ? wrapper.isDirectory : wrapper.isRegularFile else {
            throw DocumentError(.wrongKind, url: url,
                                "cannot be saved: type \(type.identifier) is stored as \(self), so the document's file wrapper must be \(wanted)")
        }
        try checkKindOnDisk(at: url, as: type, reading: false)
        do {
            switch self {
            case .bundle:
                try wrapper.write(to: url, options: .atomic, originalContentsURL: originalContentsURL)
            case .flatFile:
                try wrapper.write(to: url, options: .atomic, originalContentsURL: nil)
            case .zipContainer:
                let mimetype = wrapper.fileWrappers?["mimetype"]?.isRegularFile == true ? "mimetype" : nil
                try ZipContainer.write(wrapper, to: url, options: ArchiveWriteOptions(format: .zip, firstStoredEntry: mimetype))
            }
        } catch {
            throw DocumentError(.writeFailed, url: url, "cannot be saved as \(self); the previous version is unchanged", underlying: error)
        }
    }

    /// Whether `url` is a directory (not a symbolic link to one), by `lstat`.
    static func isDirectory(at url: URL) -> Bool {
        var info = stat()
        return Syscall.invoke(.lstat, { lstat(url.path, &info) }) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Refuses a directory where this storage keeps a file and the reverse,
    /// and a symbolic link, so that nothing of another kind is replaced or
    /// misread. Nothing at `url` is fine for writing.
    private func checkKindOnDisk(at url: URL, as type: UTType, reading: Bool) throws {
        var info = stat()
        guard Syscall.invoke(.lstat, { lstat(url.path, &info) }) == 0 else { return }
        let kind = info.st_mode & S_IFMT
        let found = kind == S_IFDIR ? "a directory" : kind == S_IFLNK ? "a symbolic link" : kind == S_IFREG ? "a file" : "a special file"
        let fits = isDirectory ? kind == S_IFDIR : kind == S_IFREG
        guard !fits else { return }
        let verb = reading ? "cannot be opened" : "is not replaced"
        throw DocumentError(.wrongKind, url: url, "\(verb): it is \(found), but type \(type.identifier) is stored as \(self)")
    }
}
