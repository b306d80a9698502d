@testable import FileWrapperKit
import Foundation
import Glibc
import Synchronization
import SystemPackage
import Testing
import TestSupport

/// The funnel's fault hook scoped to one piece of work in the test process
/// (`FaultInjection.failing`), beside the child processes that arm it for
/// a whole process (`FaultInjectionTests`): an atomic save over a package
/// that fails at its create, its sync or its swap leaves the old package
/// whole and nothing beside it; `EINTR` there changes nothing; and the
/// work on other threads meets no fault.
@Suite struct ScopedFaultTests {
    /// A folder holding `saved`, the old package, and a new tree to save over it.
    static func bench() throws -> (TemporaryDirectory, FileWrapper) {
        let directory = try TemporaryDirectory()
        try Disk.write("old contents\n", to: directory.appending("saved/a.txt"))
        let tree = FileWrapper(directoryWithFileWrappers: [:])
        tree.addRegularFile(withContents: Data("new contents\n".utf8), preferredFilename: "a.txt")
        let folder = FileWrapper(directoryWithFileWrappers: [:])
        folder.preferredFilename = "b"
        folder.addRegularFile(withContents: Data("new b\n".utf8), preferredFilename: "c.txt")
        tree.addFileWrapper(folder)
        return (directory, tree)
    }

    static func save(_ tree: FileWrapper, in directory: TemporaryDirectory) throws {
        try tree.write(to: directory.appending("saved"), options: .atomic, originalContentsURL: nil)
    }

    @Test(arguments: [(SystemCall.openatCreate, ENOSPC), (.syncfs, EIO), (.renameat2, EROFS)])
    func aFailedCallLeavesTheOldPackage(call: SystemCall, errno: CInt) throws {
        let (directory, tree) = try Self.bench()
        let error = try #require(throws: CocoaError.self) {
            try FaultInjection.failing(call, at: 1, with: errno) { try Self.save(tree, in: directory) }
        }
        let cause = try #require(error.fileWrapperError)
        #expect(cause.errno == Errno(rawValue: errno), "\(cause)")
        #expect(cause.systemCall == call.rawValue, "\(cause)")
        #expect(try String(contentsOf: directory.appending("saved/a.txt"), encoding: .utf8) == "old contents\n")
        #expect(try Disk.names(in: directory.url) == ["saved"])
        #expect(try Disk.names(in: directory.appending("saved")) == ["a.txt"])
    }

    @Test(arguments: [SystemCall.openatCreate, .syncfs, .renameat2])
    func anInterruptedCallIsMadeAgain(call: SystemCall) throws {
        let (directory, tree) = try Self.bench()
        try FaultInjection.failing(call, at: 1, with: EINTR) { try Self.save(tree, in: directory) }
        #expect(try String(contentsOf: directory.appending("saved/a.txt"), encoding: .utf8) == "new contents\n")
        #expect(try String(contentsOf: directory.appending("saved/b/c.txt"), encoding: .utf8) == "new b\n")
        #expect(try Disk.names(in: directory.url) == ["saved"])
    }

    /// A save on another thread, started while a plan is armed here, is
    /// made as if there were none; the save here fails.
    @Test func anotherThreadMeetsNoFault() throws {
        let (directory, tree) = try Self.bench()
        let elsewhere = Mutex<Result<String, any Error>?>(nil)
        let thread = FaultInjection.failing(.renameat2, at: 1, with: EROFS) {
            let thread = Thread {
                let saved = Result {
                    let (other, otherTree) = try Self.bench()
                    try Self.save(otherTree, in: other)
                    return try String(contentsOf: other.appending("saved/a.txt"), encoding: .utf8)
                }
                elsewhere.withLock { $0 = saved }
            }
            thread.start()
            #expect(throws: CocoaError.self) { try Self.save(tree, in: directory) }
            return thread
        }
        while !thread.isFinished { usleep(1000) }
        #expect(try #require(elsewhere.withLock { $0 }).get() == "new contents\n")
        #expect(try String(contentsOf: directory.appending("saved/a.txt"), encoding: .utf8) == "old contents\n")
    }
}
