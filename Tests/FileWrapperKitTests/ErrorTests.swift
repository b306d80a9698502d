import Foundation
import Glibc
import Testing
import TestSupport
@testable import FileWrapperKit

/// Errors name the path and the failing call, and a failed save loses nothing.
@Suite(.startsProcesses) struct ErrorTests {
    @Test func aMissingPathNamesThePathAndTheCall() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.appending("Missing.package")
        let error = try FileWrapperError.thrown { try FileWrapper(url: missing) }
        #expect(error.code == .noSuchFile)
        #expect(String(describing: error) == "fstatat(\"\(missing.path)\") failed: No such file or directory (ENOENT)")
        let bridged = error as NSError
        #expect(bridged.domain == NSCocoaErrorDomain)
        #expect(bridged.code == CocoaError.fileReadNoSuchFile.rawValue)
    }

    /// Code written for Apple's systems catches FileWrapper's failures as
    /// `CocoaError`s, by code or by type, and reads the path from them.
    @Test func foundationMethodsThrowCocoaErrorsAsOnApplesSystems() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.appending("Missing.package")
        var caughtByCode = false
        do {
            _ = try FileWrapper(url: missing)
        } catch CocoaError.fileReadNoSuchFile {
            caughtByCode = true
        }
        #expect(caughtByCode)

        let readError = try #require(throws: CocoaError.self) { try FileWrapper(url: missing) }
        #expect(readError.code == .fileReadNoSuchFile)
        #expect(readError.filePath == missing.path)
        #expect(readError.url == missing)
        #expect(readError.localizedDescription == "fstatat(\"\(missing.path)\") failed: No such file or directory (ENOENT)")
        #expect(readError.fileWrapperError?.systemCall == "fstatat")

        let wrapper = FileWrapper(directoryWithFileWrappers: [:])
        let rereadError = try #require(throws: CocoaError.self) { try wrapper.read(from: missing) }
        #expect(rereadError.code == .fileReadNoSuchFile)

        let file = directory.appending("plain.txt")
        try Disk.write("x", to: file)
        let destination = file.appendingPathComponent("Out.package")
        let writeError = try #require(throws: CocoaError.self) {
            try wrapper.write(to: destination, options: .atomic, originalContentsURL: nil)
        }
        #expect(writeError.code == .fileReadUnknown, "the failing call opens the parent, a read, and ENOTDIR has no code of its own")
        #expect(writeError.url == destination)
        #expect(writeError.fileWrapperError?.code == .notADirectory)
    }

    /// A failed call that changes the file system is a Cocoa write error,
    /// one that only looks a read error, as Foundation reports them. The
    /// set of writing calls was a list of names, which missed `renameat`,
    /// `fchownat` and `fchmodat`; each call now says which it is.
    @Test(arguments: [("renameat", true), ("renameat2", true), ("fchownat", true), ("fchmodat", true), ("openat(create)", true),
                      ("openat", false), ("fstatat", false), ("readlinkat", false), ("getxattr", false)])
    func aFailedCallIsAReadOrWriteErrorByWhatItDoes(call: String, writes: Bool) throws {
        let systemCall = try #require(SystemCall(rawValue: call))
        let error = FileWrapperError(systemCall: systemCall, path: "/x", errno: .permissionDenied)
        #expect(error.systemCall == call)
        #expect((error as NSError).code == (writes ? CocoaError.fileWriteNoPermission : CocoaError.fileReadNoPermission).rawValue)
    }

    @Test func aFileWhereADirectoryWasExpected() throws {
        let directory = try TemporaryDirectory()
        let file = directory.appending("plain.txt")
        try Disk.write("x", to: file)

        let readError = try FileWrapperError.thrown { try FileWrapper(url: file.appendingPathComponent("child")) }
        #expect(readError.code == .notADirectory)
        #expect(readError.path == file.path + "/child")

        let wrapper = FileWrapper(regularFileWithContents: Data("y".utf8))
        let writeError = try FileWrapperError.thrown {
            try wrapper.write(to: file.appendingPathComponent("out.txt"), options: .atomic, originalContentsURL: nil)
        }
        #expect(writeError.code == .notADirectory)
        #expect(writeError.systemCall == "openat")
        #expect(writeError.path == file.path)
    }

    @Test func permissionDeniedNamesThePath() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Locked.package")
        try Disk.write("secret", to: package.appendingPathComponent("Inner/data.txt"))
        chmod(package.appendingPathComponent("Inner").path, 0o000)
        defer { chmod(package.appendingPathComponent("Inner").path, 0o755) }

        if geteuid() == 0 {
            // Root ignores permission bits: run the read as an unprivileged user.
            chmod(directory.url.deletingLastPathComponent().path, 0o755)
            chmod(directory.url.path, 0o755)
            let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
            let result = try Disk.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", child, "read", package.path])
            #expect(result.status == 2)
            #expect(result.stderr.contains("openat(\"\(package.path)/Inner\") failed: Permission denied (EACCES)"), "\(result.stderr)")
        } else {
            let error = try FileWrapperError.thrown { try FileWrapper(url: package) }
            #expect(error.code == .permissionDenied)
            #expect(error.path == package.path + "/Inner")
        }
    }

    @Test func aFailedAtomicSaveLeavesTheOldDocumentUntouched() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        try IncrementalSaveTests.makePackage(at: package, files: 5)
        let before = try DiskTree(package)

        let document = try FileWrapper(url: package)
        IncrementalSaveTests.replace("index.json", in: document, with: "new")
        document.fileWrappers?["Pages"]?.addFileWrapper({
            let bad = FileWrapper(regularFileWithContents: Data())
            bad.preferredFilename = ".."
            return bad
        }())
        #expect(throws: CocoaError.self) {
            try document.write(to: package, options: .atomic, originalContentsURL: package)
        }

        #expect(try DiskTree(package) == before)
        #expect(try Disk.names(in: directory.url) == ["Doc.package"])
    }

    @Test(.enabled(if: geteuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskIsAClearErrorAndKeepsTheOldDocument() throws {
        let directory = try TemporaryDirectory()
        let mountPoint = try Disk.mountTmpfs(size: "1m", named: "small", in: directory)
        defer { Disk.unmount(mountPoint) }
        let package = mountPoint.appendingPathComponent("Doc.package")
        try FileWrapper(directoryWithFileWrappers: ["a.txt": FileWrapper(regularFileWithContents: Data("old".utf8))])
            .write(to: package, options: .atomic, originalContentsURL: nil)
        let before = try DiskTree(package)

        let big = FileWrapper(directoryWithFileWrappers: [
            "a.txt": FileWrapper(regularFileWithContents: Data("new".utf8)),
            "big.bin": FileWrapper(regularFileWithContents: Data(count: 2 << 20)),
        ])
        let error = try FileWrapperError.thrown {
            try big.write(to: package, options: .atomic, originalContentsURL: nil)
        }

        #expect(error.code == .outOfSpace)
        #expect(String(describing: error).contains("(\"\(package.path)/big.bin\") failed: No space left on device (ENOSPC)"), "the error names the file at its destination: \(error)")
        #expect(try DiskTree(package) == before)
        #expect(try Disk.names(in: mountPoint) == ["Doc.package"], "the temporary was left behind")
    }

    @Test func leftoversOfAKilledSaveAreRemovedByTheNextSave() throws {
        let directory = try TemporaryDirectory()
        let package = directory.appending("Doc.package")
        let deadProcess = try ChildProcess.spawn("/bin/true", [], standardOutput: STDERR_FILENO, standardError: STDERR_FILENO)
        _ = ChildProcess.wait(for: deadProcess)
        let leftover = directory.appending(".Doc.package.fwk-save-\(deadProcess)-abc")
        try Disk.write("half written", to: leftover.appendingPathComponent("Pages/x.txt"))
        let unrelated = directory.appending(".Other.fwk-save-\(deadProcess)-abc")
        try Disk.write("not ours", to: unrelated)

        try FileWrapper(directoryWithFileWrappers: [:]).write(to: package, options: .atomic, originalContentsURL: nil)

        #expect(try Disk.names(in: directory.url) == [".Other.fwk-save-\(deadProcess)-abc", "Doc.package"])
    }
}

extension FileWrapperError {
    /// The detail of a failure of one of `FileWrapper`'s Foundation methods,
    /// which throw it wrapped in a `CocoaError`, as Foundation's do.
    static func thrown<Result>(sourceLocation: SourceLocation = #_sourceLocation, by body: () throws -> Result) throws -> FileWrapperError {
        let error = try #require(throws: CocoaError.self, sourceLocation: sourceLocation) { try body() }
        return try #require(error.fileWrapperError, "a CocoaError without its FileWrapperError: \(error)", sourceLocation: sourceLocation)
    }
}
