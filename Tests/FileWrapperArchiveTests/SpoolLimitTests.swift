@testable import FileWrapperArchive
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// A zip or 7z read from a pipe is copied to an unnamed spool, since
/// libarchive reads them by seeking; the spool holds no more than an
/// archive within the reader's limits can take
/// (``ArchiveSpool/capacity(within:)``): a longer stream is refused, naming
/// the archive and `maxBytes`, once a byte past it has been read.
@Suite(.startsProcesses) struct SpoolLimitTests {
    /// Limits tight enough for a test: 1 MiB of contents in 100 entries.
    static let limits = ArchiveReadLimits(maxEntries: 100, maxBytes: 1 << 20)
    static let capacity = ArchiveSpool.capacity(within: limits)

    /// Whether `error` is the spool's refusal of the archive `name`.
    static func isSpoolRefusal(_ error: any Error, name: String) -> Bool {
        guard let error = error as? ArchiveError else { return false }
        return error.code == .limitExceeded && error.limit == .maxBytes && error.archive == name && error.entry == nil
            && error.message.contains("longer than \(capacity) bytes") && error.message.contains("read it from a file")
    }

    /// A zip's or a 7z's signature, then four times the capacity of random
    /// bytes: refused having read the capacity and one byte (the writer
    /// wrote no more than that and what the pipe holds), its spool closed,
    /// and the writer, its pipe closed, ends with EPIPE.
    @Test(arguments: [[0x50, 0x4B, 0x03, 0x04], [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]] as [[UInt8]])
    func aStreamLongerThanTheCapacityIsRefused(signature: [UInt8]) throws {
        var random = SplitMix64(seed: 2326)
        let (reader, writer) = try PipeFeed.feeding(Data(signature + random.bytes(4 * Int(Self.capacity))))
        let pipeSize = Int(fcntl(reader, 1032))  // F_GETPIPE_SZ, which Swift does not import
        try #require(pipeSize > 0)
        // libarchive is loaded on its first call; loading it reads its
        // files, which must not count as bytes read from the pipe.
        #expect(ArchiveLibrary.versionNumber > 0)
        let (_, read) = try ThreadIO.bytesRead {
            #expect {
                _ = try ArchiveReader.fileWrapper(readingFrom: reader, name: "the pipe", limits: Self.limits)
            } throws: { Self.isSpoolRefusal($0, name: "the pipe") }
        }
        let spools = try Self.openSpools(ofSize: Self.capacity + 1)
        close(reader)
        let written = writer.written()
        #expect(read >= Int(Self.capacity) + 1 && read <= Int(Self.capacity) + 1 + 4096, "read \(read), capacity \(Self.capacity)")
        #expect(written <= Int(Self.capacity) + 1 + pipeSize, "written \(written), capacity \(Self.capacity), pipe \(pipeSize)")
        #expect(spools == [], "the refused spool is closed")
    }

    /// A zip from Python's zipfile as large as the capacity allows: 100
    /// stored members of random bytes, 1 MiB in all, each with a path of
    /// 4096 bytes and an extra field that, with the archive's comment,
    /// makes the zip `capacity + overshoot` bytes long. At the capacity it
    /// reads whole from a pipe; one byte over it is refused.
    @Test(arguments: [0, 1])
    func aZipAtTheCapacityReadsAndOneByteMoreIsRefused(overshoot: Int) throws {
        let directory = try TemporaryDirectory()
        let zip = directory.appending("large.zip")
        let script = """
            import random, sys, zipfile
            path, size, entries, contents = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
            rng = random.Random(2327)
            names = [f"{i:03d}" + "a" * 252 + ("/" + "b" * 255) * 14 + "/" + "c" * 254 + "/d" for i in range(entries)]
            assert all(len(name) == 4096 for name in names)
            sizes = [contents // entries + (1 if i < contents % entries else 0) for i in range(entries)]
            # Fixed fields: 30 (local) + 46 (central) per member, 22 for the end record.
            room = size - contents - 22 - entries * (30 + 46 + 2 * 4096)
            extra = room // (2 * entries)
            comment = room - 2 * entries * extra
            assert 4 <= extra <= 65535 and 0 <= comment <= 65535, (extra, comment)
            with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
                archive.comment = b"c" * comment
                for name, count in zip(names, sizes):
                    info = zipfile.ZipInfo(name, (2026, 11, 26, 10, 0, 0))
                    info.extra = (0x6666).to_bytes(2, "little") + (extra - 4).to_bytes(2, "little") + b"x" * (extra - 4)
                    archive.writestr(info, rng.randbytes(count))
            """
        let made = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, zip.path, String(Self.capacity + Int64(overshoot)),
                                                         String(Self.limits.maxEntries), String(Self.limits.maxBytes)])
        try #require(made.status == 0, "\(made.stderr)")
        let data = try Data(contentsOf: zip)
        try #require(Int64(data.count) == Self.capacity + Int64(overshoot))
        let reader = try PipeFeed.reading(data)
        defer { close(reader) }
        if overshoot > 0 {
            #expect {
                _ = try ArchiveReader.fileWrapper(readingFrom: reader, name: "large.zip", limits: Self.limits)
            } throws: { Self.isSpoolRefusal($0, name: "large.zip") }
            return
        }
        let tree = try ArchiveReader.fileWrapper(readingFrom: reader, name: "large.zip", limits: Self.limits)
        var files = 0
        var bytes = 0
        func walk(_ wrapper: FileWrapper) {
            if wrapper.isDirectory {
                wrapper.fileWrappers?.values.forEach(walk)
            } else if wrapper.isRegularFile, let contents = wrapper.regularFileContents {
                files += 1
                bytes += contents.count
            }
        }
        walk(tree)
        #expect(files == Self.limits.maxEntries)
        #expect(Int64(bytes) == Self.limits.maxBytes)
    }

    /// `verify` reads back a zip or 7z form from a spool it writes: the
    /// writer stops once the archive passes the capacity, naming maxBytes.
    @Test(arguments: [ArchiveFormat.zip, .sevenZip])
    func verifyStopsWritingAFormPastTheCapacity(format: ArchiveFormat) throws {
        var random = SplitMix64(seed: 2328)
        let tree = FileWrapper(directoryWithFileWrappers: [
            "random.bin": FileWrapper(regularFileWithContents: Data(random.bytes(Int(Self.capacity) + (1 << 16)))),
        ])
        let name = "archive." + format.fileExtension
        #expect {
            var options = ArchiveWriteOptions(format: format)
            options.compressionLevel = 1
            _ = try RoundTrip.packedManifest(of: tree, options: options, limits: Self.limits)
        } throws: { error in
            guard let error = error as? ArchiveError else { return false }
            return error.code == .limitExceeded && error.limit == .maxBytes && error.archive == name
                && error.message.hasPrefix("the archive written is longer than \(Self.capacity) bytes")
        }
    }

    /// The capacity follows the limits, and saturates rather than overflow.
    @Test func theCapacityFollowsTheLimits() {
        #expect(Self.capacity == (1 << 20) + (1 << 16) + 100 * (4 * 4096 + 4096 + 5 * 1024) + (1 << 20))
        var larger = Self.limits
        larger.maxBytes *= 2
        #expect(ArchiveSpool.capacity(within: larger) > Self.capacity)
        let unbounded = ArchiveReadLimits(maxEntries: .max, maxBytes: .max, maxPathLength: .max)
        #expect(ArchiveSpool.capacity(within: unbounded) == .max)
    }

    /// The descriptors of this process open on an unnamed file in the
    /// temporary folder (a spool: `/proc/self/fd` shows it as
    /// `#INODE (deleted)`) of `size` bytes: a spool of another test running
    /// meanwhile has another size.
    static func openSpools(ofSize size: Int64) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.path
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + descriptor),
                  target.hasPrefix(folder), target.hasSuffix(" (deleted)")
            else { return false }
            var status = stat()
            return stat("/proc/self/fd/" + descriptor, &status) == 0 && Int64(status.st_size) == size
        }
    }
}
