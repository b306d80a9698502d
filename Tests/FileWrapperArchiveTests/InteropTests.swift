import FileWrapperArchive
import FileWrapperKit
import Foundation
import Testing
import TestSupport

/// Archives of the sample document (and of a tree of non-ASCII names) that
/// we write, other programs read; archives they write, we read. "The same
/// tree" means the same paths, kinds, file bytes and symlink targets, and
/// modes and modification times as far as the format and the program keep
/// them (``Interop/Fidelity``).
///
/// The programs run as separate processes, as a user runs them; `make test`
/// installs them (Tools/ensure-system-packages.sh --test).
@Suite(.startsProcesses) struct InteropTests {
    // MARK: Ours -> theirs

    /// A program that reads archives.
    enum Reader: String, Sendable {
        case bsdtar
        case gnuTar = "GNU tar"
        case unzip = "Info-ZIP unzip"
        case tarfile = "Python tarfile"
        case zipfile = "Python zipfile"
    }

    /// One of our formats, read by one program.
    struct Reading: Sendable, CustomTestStringConvertible {
        var reader: Reader
        var format: ArchiveFormat
        var zipMethod = ArchiveWriteOptions.ZipMethod.deflate

        var formatName: String { format.container == .zip ? "zip (\(zipMethod.rawValue))" : format.description }
        var testDescription: String { "\(reader.rawValue) reads our \(formatName)" }

        /// What survives our archive and the program's extraction.
        var fidelity: Interop.Fidelity {
            let kept = Interop.Fidelity.Times(keptBy: format.container)
            return switch reader {
            case .bsdtar, .gnuTar: Interop.Fidelity(times: kept)
            // Info-ZIP unzip sets no time on the symlinks it makes.
            case .unzip: Interop.Fidelity(times: kept, symlinkTimes: false)
            // tarfile reads pax times as floats, and sets no time on symlinks.
            case .tarfile: Interop.Fidelity(times: format.container == .pax ? .binaryFloat : kept, symlinkTimes: false)
            // zipfile restores no modes and no times, and makes each symlink
            // a regular file holding the target: only names, kinds of files
            // and directories, and bytes can be compared.
            case .zipfile: Interop.Fidelity(times: .none, modes: false, symlinksAsFiles: true)
            }
        }

        private static let tarContainers: [ArchiveFormat.Container] = [.pax, .ustar, .gnutar]

        private static func formats(_ containers: [ArchiveFormat.Container], _ compressions: [ArchiveFormat.Compression]) -> [ArchiveFormat] {
            containers.flatMap { container in compressions.map { ArchiveFormat(container, compression: $0) } }
        }

        private static func zips(_ reader: Reader) -> [Reading] {
            [.deflate, .store].map { Reading(reader: reader, format: .zip, zipMethod: $0) }
        }

        /// Every program with every format of ours it reads. Left out, as the
        /// programs cannot read them: cpio, zip and 7z by GNU tar; anything
        /// but zip by unzip and zipfile; cpio, 7z, zip, zstd and lz4 by
        /// tarfile (zstd came in Python 3.14; lz4 never).
        static let all: [Reading] =
            // bsdtar reads every container and filter libarchive writes.
            (formats(tarContainers + [.cpio], ArchiveFormat.Compression.allCases) + [.sevenZip]).map { Reading(reader: .bsdtar, format: $0) }
            + zips(.bsdtar)
            // GNU tar 1.34 has no --lz4; it runs lz4 through -I.
            + formats(tarContainers, ArchiveFormat.Compression.allCases).map { Reading(reader: .gnuTar, format: $0) }
            + zips(.unzip)
            + formats(tarContainers, [.none, .gzip, .bzip2, .xz]).map { Reading(reader: .tarfile, format: $0) }
            + zips(.zipfile)

        /// Checks the archive where the program has a check of its own (the
        /// CRCs, for unzip and zipfile), lists it and extracts it into
        /// `destination`. Returns the listing, one name a line, and what the
        /// program printed on standard error.
        func listAndExtract(_ archive: URL, into destination: URL, in workspace: Interop.Workspace) throws -> (listing: String, stderr: String) {
            let path = archive.path
            switch reader {
            case .bsdtar:
                let list = try workspace.run("bsdtar", ["-tf", path])
                let extract = try workspace.run("bsdtar", ["-xf", path, "-C", destination.path])
                return (list.stdout, list.stderr + extract.stderr)
            case .gnuTar:
                let filter: [String] = switch format.compression {
                case .none: []
                case .gzip: ["-z"]
                case .bzip2: ["-j"]
                case .xz: ["-J"]
                case .zstd: ["--zstd"]
                case .lz4: ["-I", "lz4"]
                case .lzma: ["--lzma"]
                }
                let list = try workspace.run("tar", filter + ["--quoting-style=literal", "-tf", path])
                let extract = try workspace.run("tar", filter + ["-xf", path, "-C", destination.path])
                return (list.stdout, list.stderr + extract.stderr)
            case .unzip:
                let test = try workspace.run("unzip", ["-t", path])
                guard test.stdout.contains("No errors detected") else {
                    throw Interop.ToolFailure(command: ["unzip", "-t", path], output: test)
                }
                let list = try workspace.run("unzip", ["-Z1", path])
                let extract = try workspace.run("unzip", ["-q", path, "-d", destination.path])
                return (list.stdout, test.stderr + list.stderr + extract.stderr)
            case .tarfile:
                let run = try workspace.run("python3", ["-c", Interop.Python.tarfileExtract, path, destination.path])
                return (run.stdout, run.stderr)
            case .zipfile:
                let run = try workspace.run("python3", ["-c", Interop.Python.zipfileExtract, path, destination.path])
                return (run.stdout, run.stderr)
            }
        }
    }

    /// Each reading with the sample; those without compression with the
    /// non-ASCII tree too (compression does not touch names).
    static let readings: [(Reading, Interop.Tree)] =
        Reading.all.map { ($0, .sample) } + Reading.all.filter { $0.format.compression == .none }.map { ($0, .nonASCII) }

    @Test(arguments: readings)
    func theyReadOurs(_ reading: Reading, tree: Interop.Tree) throws {
        let workspace = try Interop.Workspace(tree)
        let context = "\(reading.reader.rawValue) reading our \(reading.formatName) of \(tree.rawValue)"
        let archive = workspace.url("ours.\(reading.format.fileExtension)")
        let original = try DiskTree(workspace.tree)

        let options = ArchiveWriteOptions(format: reading.format, zipMethod: reading.zipMethod)
        guard Interop.attempt(context, "packing with ours", {
            try ArchiveWriter.write(FileWrapper(url: workspace.tree), to: archive, options: options)
        }) != nil else { return }
        let destination = try workspace.newDirectory("extracted")
        guard let (listing, stderr) = Interop.attempt(context, "reading", {
            try reading.listAndExtract(archive, into: destination, in: workspace)
        }) else { return }

        Interop.expectNothing(stderr.isEmpty ? [] : [stderr], "\(context): the program warned")
        Interop.expectNothing(Interop.listingDifferences(listing, expected: original), "\(context), listing")
        Interop.expectNothing(
            Interop.differences(expected: original, actual: try DiskTree(destination), fidelity: reading.fidelity),
            "\(context), extracted")
    }

    // MARK: Theirs -> ours

    /// An archive another program writes, and what its format keeps once we
    /// unpack it (we restore modes and times, symlinks' included).
    struct Writing: Sendable, CustomTestStringConvertible {
        var writer: String
        var formatName: String
        /// The archive's file name, for the programs that choose by it.
        var fileName: String
        /// The program and its arguments; the archive's path and the tree's
        /// top-level names follow. Runs in the tree.
        var command: [String]
        var times: Interop.Fidelity.Times
        var compressed = false

        var testDescription: String { "we read \(writer)'s \(formatName)" }

        /// `bsdtar --format pax` (bsdtar's default "restricted pax" writes a
        /// pax header, and so nanoseconds, only for entries that need one),
        /// through every filter; zip, cpio newc and 7z.
        private static let bsdtar: [Writing] =
            [("", "", "tar"), ("+gzip", "-z", "tar.gz"), ("+bzip2", "-j", "tar.bz2"), ("+xz", "-J", "tar.xz"),
             ("+zstd", "--zstd", "tar.zst"), ("+lz4", "--lz4", "tar.lz4"), ("+lzma", "--lzma", "tlz")].map { name, flag, ext in
                Writing(writer: "bsdtar", formatName: "pax" + name, fileName: "bsdtar.\(ext)",
                        command: ["bsdtar", "--format", "pax"] + (flag.isEmpty ? [] : [flag]) + ["-cf"],
                        times: .nanoseconds, compressed: !flag.isEmpty)
            } + [
                Writing(writer: "bsdtar", formatName: "zip", fileName: "bsdtar.zip", command: ["bsdtar", "--format", "zip", "-cf"], times: .seconds),
                Writing(writer: "bsdtar", formatName: "cpio newc", fileName: "bsdtar.cpio", command: ["bsdtar", "--format", "newc", "-cf"], times: .seconds),
                Writing(writer: "bsdtar", formatName: "7z", fileName: "bsdtar.7z", command: ["bsdtar", "--format", "7zip", "-cf"], times: .hundredNanoseconds),
            ]

        /// GNU tar's own format (whole seconds) and POSIX pax (nanoseconds),
        /// plain and through gzip, bzip2, xz, zstd and lzma (`xz
        /// --format=lzma`: Debian's GNU tar 1.34 writes xz for --lzma).
        private static let gnuTar: [Writing] =
            [("gnu", "gnutar", Interop.Fidelity.Times.seconds), ("posix", "pax", .nanoseconds)].flatMap { format, name, times in
                [("", [], "tar"), ("+gzip", ["-z"], "tar.gz"), ("+bzip2", ["-j"], "tar.bz2"), ("+xz", ["-J"], "tar.xz"),
                 ("+zstd", ["--zstd"], "tar.zst"), ("+lzma", ["-I", "xz --format=lzma"], "tlz")].map { suffix, flags, ext in
                    Writing(writer: "GNU tar", formatName: name + suffix, fileName: "gnu-\(format).\(ext)",
                            command: ["tar", "--format=\(format)"] + flags + ["-cf"],
                            times: times, compressed: !flags.isEmpty)
                }
            }

        /// Python writes pax times as floats; GNU and ustar whole seconds.
        private static let tarfile: [Writing] =
            [("", "w", "tar"), ("+gzip", "w:gz", "tar.gz"), ("+bzip2", "w:bz2", "tar.bz2"), ("+xz", "w:xz", "tar.xz")].map { name, mode, ext in
                Writing(writer: "Python tarfile", formatName: "pax" + name, fileName: "tarfile.\(ext)",
                        command: ["python3", "-c", Interop.Python.tarfileCreate, mode, "PAX_FORMAT"],
                        times: .binaryFloat, compressed: mode != "w")
            } + [("GNU_FORMAT", "gnutar"), ("USTAR_FORMAT", "ustar")].map { format, name in
                Writing(writer: "Python tarfile", formatName: name, fileName: "tarfile-\(name).tar",
                        command: ["python3", "-c", Interop.Python.tarfileCreate, "w", format], times: .seconds)
            }

        /// Every program with the formats it writes; GNU tar writes no
        /// cpio, zip or 7z, and Python's tarfile no zstd (before 3.14) or lz4.
        static let all: [Writing] = bsdtar + gnuTar + tarfile + [
            // -y stores symlinks as links; the extended-timestamp field keeps whole seconds.
            Writing(writer: "Info-ZIP zip", formatName: "zip", fileName: "zip.zip", command: ["zip", "-qry"], times: .seconds),
            // DOS times only, to two seconds.
            Writing(writer: "Python zipfile", formatName: "zip", fileName: "zipfile.zip",
                    command: ["python3", "-c", Interop.Python.zipfileCreate], times: .evenSeconds),
        ]
    }

    /// Each writing of the sample; those without compression of the
    /// non-ASCII tree too.
    static let writings: [(Writing, Interop.Tree)] =
        Writing.all.map { ($0, .sample) } + Writing.all.filter { !$0.compressed }.map { ($0, .nonASCII) }

    @Test(arguments: writings)
    func weReadTheirs(_ writing: Writing, tree: Interop.Tree) throws {
        let workspace = try Interop.Workspace(tree)
        let context = "our reading of \(writing.writer)'s \(writing.formatName) of \(tree.rawValue)"
        let archive = workspace.url(writing.fileName)
        let original = try DiskTree(workspace.tree)

        let names = try workspace.topLevelNames()
        guard let packed = Interop.attempt(context, "packing", {
            try workspace.run(writing.command[0], Array(writing.command.dropFirst()) + [archive.path] + names, in: workspace.tree)
        }) else { return }
        Interop.expectNothing(packed.stderr.isEmpty ? [] : [packed.stderr], "\(context): \(writing.writer) warned")

        let destination = workspace.url("unpacked")
        guard Interop.attempt(context, "unpacking with ours", { try Interop.unpackWithOurs(archive, into: destination) }) != nil else { return }
        Interop.expectNothing(
            Interop.differences(expected: original, actual: try DiskTree(destination), fidelity: Interop.Fidelity(times: writing.times)),
            "\(context), unpacked")
    }
}
