import ArgumentParser
import FileWrapperArchive
import FileWrapperKit
import Foundation

/// `wrapinspect pack SOURCE ARCHIVE`: a bundle (or a single file) into an archive.
struct Pack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Pack a bundle or a file into an archive.",
        discussion: """
            The contents of the directory SOURCE become the archive's top-level \
            entries (a file SOURCE becomes its one entry). The format comes from \
            ARCHIVE's ending (.zip .epub .tar .tgz .taz .tar.gz .tbz .tbz2 .tar.bz2 \
            .txz .tar.xz .tzst .tar.zst .tar.zstd .tar.lz4 .tlz .tar.lzma .cpio .cpio.gz \
            .cpio.bz2 .cpio.xz .cpio.zst .7z) or from --format. An EPUB stores \
            its mimetype first and uncompressed. The archive is written \
            beside ARCHIVE under a temporary name and renamed over it when \
            complete, so an existing ARCHIVE is replaced whole or not at all. \
            ARCHIVE "-" is standard output (refused when it is a terminal); a \
            device, FIFO or socket is written to as a stream; a symbolic link \
            is kept, and what it points at is replaced.

            --format flat-rtfd, or an ARCHIVE ending in .rtfd (pack writes a \
            file, and the one file form of an RTFD is the flat one), writes \
            Apple's flat RTFD, what serializedRepresentation writes on Apple's \
            systems and ours: permissions and whole-second times kept, owners \
            and extended attributes dropped, each file under 2 GiB \
            (docs/flat-rtfd.md). It is made whole in memory, then written.

            Examples:
              wrapinspect pack Travel.journal Travel.tar.zst
              wrapinspect pack --format tar.zst Travel.journal - | ssh host 'cat > Travel.tar.zst'
              wrapinspect pack --reproducible --first-stored mimetype Book Book.epub --format zip
              wrapinspect pack Notes Notes.rtfd
            """
    )

    @Argument(help: "The bundle (directory) or file to pack.", completion: .file())
    var source: String

    @Argument(help: "The archive to write (- for standard output).", completion: .file())
    var archive: String

    @Option(help: ArgumentHelp(
        "The format: zip, tar (pax), ustar, gnutar, cpio or 7z, optionally with a compression (tar.gz, tar.bz2, tar.xz, tar.zst, tar.lz4, tar.lzma, cpio.gz), an ending such as tgz or epub, or flat-rtfd (Apple's serialized file wrapper).",
        valueName: "format"), completion: .list(Pack.formatNames + [Pack.flatRTFDName]))
    var format: String?

    /// The archive format names that shells complete (`verify --via` too):
    /// the containers, each with each compression, and the short endings.
    static let formatNames: [String] = {
        let tars = ["tar", "ustar", "gnutar", "cpio"].flatMap { container in
            [container] + ["gz", "bz2", "xz", "zst", "lz4", "lzma"].map { "\(container).\($0)" }
        }
        return ["zip", "epub", "7z", "pax"] + tars + ["tgz", "taz", "tbz", "tbz2", "txz", "tzst", "tlz"]
    }()

    @Option(help: ArgumentHelp("The compression level (gzip, bzip2, lz4 1-9; zip 0-9, 0 stores; xz, lzma 0-9; zstd 1-22).", valueName: "n"))
    var level: Int?

    @Flag(help: "Zip: store every entry uncompressed.")
    var store = false

    @Option(help: ArgumentHelp("Zip: write this top-level file first and uncompressed (mimetype for EPUB and OpenDocument).", valueName: "name"))
    var firstStored: String?

    @Flag(help: "The same bytes for the same tree: owner 0 without names, times clamped to SOURCE_DATE_EPOCH when set, gzip without a timestamp.")
    var reproducible = false

    /// The `--format` of Apple's flat RTFD.
    static let flatRTFDName = "flat-rtfd"

    /// Whether ARCHIVE is a flat RTFD: `--format flat-rtfd`, or, without
    /// `--format`, an ending `.rtfd`.
    private var isFlatRTFD: Bool {
        format.map { $0.lowercased() == Self.flatRTFDName } ?? archive.lowercased().hasSuffix(".rtfd")
    }

    func validate() throws {
        if isFlatRTFD {
            if level != nil || store || firstStored != nil || reproducible {
                throw ValidationError("--level, --store, --first-stored and --reproducible apply to archives; a flat RTFD is stored uncompressed, always in one order.")
            }
            return
        }
        let format = try archiveFormat()
        if firstStored != nil || store, format.container != .zip {
            throw ValidationError("--store and --first-stored apply to zip archives only.")
        }
        if level != nil, format.compression == .none, [.pax, .ustar, .gnutar, .cpio].contains(format.container) {
            throw ValidationError("--level applies to a compressed format; \(format.fileExtension) is not compressed (use tar.gz, tar.zst, ...).")
        }
    }

    /// Whether the archive is an EPUB, by its ending or `--format epub`.
    private var isEPUB: Bool {
        (format ?? archive).lowercased().hasSuffix("epub")
    }

    /// The top-level file to store first: `--first-stored`, or an EPUB's
    /// `mimetype`. Throws unless SOURCE is a folder with such a file at its
    /// top (looked up by its bytes, `lstat`): a name that names nothing is
    /// a mistake, not a wish to ignore.
    private func firstStoredName() throws -> String? {
        guard let name = firstStored ?? (isEPUB ? "mimetype" : nil) else { return nil }
        var status = stat()
        guard !name.contains("/"), Syscall.invoke(.lstat, { lstat(source + "/" + name, &status) }) == 0, status.st_mode & S_IFMT == S_IFREG
        else {
            let flag = firstStored == nil ? "an EPUB stores its mimetype first, and" : "--first-stored \(Format.name(name.utf8)):"
            throw PackRefused(message: "\(flag) \(Format.name(source.utf8)) has no top-level file named \(Format.name(name.utf8))")
        }
        return name
    }

    private func archiveFormat() throws -> ArchiveFormat {
        if let format {
            guard let named = ArchiveFormat(name: format) else {
                throw ValidationError("Unknown format \"\(format)\"; use zip, tar, ustar, gnutar, cpio or 7z, optionally with .gz, .bz2, .xz, .zst, .lz4 or .lzma, or an ending such as tgz, txz, tlz or epub.")
            }
            return named
        }
        guard let fromName = ArchiveFormat(fileExtensionOf: archive) else {
            if archive == "-" {
                throw ValidationError("Standard output has no ending to tell the format from; give --format.")
            }
            throw ValidationError("Cannot tell the format from \"\(archive)\"; give --format or an ending such as .zip or .tar.zst.")
        }
        return fromName
    }

    /// Refuses to write the archive over SOURCE itself (the same file,
    /// by device and inode): the writer leaves its own archive out, so
    /// nothing would be packed and SOURCE would be lost.
    private func refuseIfSource(_ path: String) throws {
        var written = stat(), packed = stat()
        guard stat(path, &written) == 0, stat(source, &packed) == 0, InodeIdentity(written) == InodeIdentity(packed) else { return }
        throw PackRefused(message: "\(Format.name(archive.utf8)) is \(Format.name(source.utf8)) itself; an archive is written beside what it packs")
    }

    /// Says, as bsdtar does, that an archive written inside the folder it
    /// packs is left out of itself (the writer passes over it and its
    /// temporary): the folders above the archive's are compared with
    /// SOURCE by device and inode.
    private func warnIfInsideSource(_ path: String) {
        var status = stat()
        guard stat(source, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if InodeIdentity.folders(from: folder).contains(InodeIdentity(status)) {
            printError("\(Format.name(archive.utf8)) is inside \(Format.name(source.utf8)): the archive is left out of itself")
        }
    }

    func run() throws {
        if isFlatRTFD { return try packFlatRTFD() }
        let options = ArchiveWriteOptions(
            format: try archiveFormat(), compressionLevel: level, zipMethod: store ? .store : .deflate,
            reproducible: reproducible, firstStoredEntry: try firstStoredName())
        switch try OutputDestination.resolving(archive, binary: true) {
        case .file(let path):
            try refuseIfSource(path)
            Interruption.removesTemporaries(replacing: path)
            warnIfInsideSource(path)
            try ProgressLine.showing("packing", source) { progress in
                Self.countTotal(of: source, into: progress)
                try ArchiveWriter.write(contentsOf: URL(fileURLWithPath: source), to: URL(fileURLWithPath: path), options: options, progress: progress)
            }
        case .stream(let fd, let name, let owned):
            defer { if owned { Syscall.close(fd) } }
            // A failed write is the stream's error, whatever the writer wraps it in.
            nonisolated(unsafe) var failure: Error?
            do {
                try ProgressLine.showing("packing", source) { progress in
                    Self.countTotal(of: source, into: progress)
                    try ArchiveWriter.write(contentsOf: URL(fileURLWithPath: source), options: options, name: name, progress: progress) { bytes in
                        do {
                            try Syscall.writeAll(bytes, to: fd, path: { name })
                        } catch {
                            failure = fd == STDOUT_FILENO && !owned ? StandardOutputError(error) : error
                            throw error
                        }
                    }
                }
            } catch {
                throw failure ?? error
            }
        }
    }
}

extension Pack {
    /// Writes SOURCE as a flat RTFD (`FileWrapper.serializedRepresentation`),
    /// made whole in memory, to ARCHIVE as the files wrapinspect makes are
    /// written (``OutputDestination/write(_:)``).
    private func packFlatRTFD() throws {
        let wrapper = try FileWrapper(url: URL(fileURLWithPath: source))
        guard let blob = wrapper.serializedRepresentation else {
            throw PackRefused(message: "\(Format.name(source.utf8)) cannot be a flat RTFD, which Apple's reader must read back as the same tree: "
                              + "it has a file (or a folder's contents) of 2 GiB or more, a time before 1970 or after 2038-01-19, "
                              + "a link target that is not UTF-8, or a file that cannot be read (docs/flat-rtfd.md)")
        }
        let destination = try OutputDestination.resolving(archive, binary: true)
        if case .file(let path) = destination { try refuseIfSource(path) }
        try destination.write(blob)
    }
}

/// SOURCE cannot be packed as asked.
struct PackRefused: Error, LocalizedError {
    var message: String
    var errorDescription: String? { message }
}
