import Foundation
import Glibc
import Testing
import TestSupport

/// The tests' temporary directories are removed in the test process,
/// whatever the tests left in them.
@Suite struct TemporaryDirectoryTests {
    /// A tree 10,000 levels deep (its paths far past `PATH_MAX`), directories
    /// without permissions, a name that is not UTF-8, and a symbolic link to
    /// a directory outside: all gone with the ``TemporaryDirectory``, and
    /// what the link led to untouched.
    @Test func aTreeOfAnyDepthAndAnyPermissionsIsRemoved() throws {
        let outside = try TemporaryDirectory()
        try Disk.write("kept", to: outside.appending("target/file.txt"))
        let root: String
        do {
            let directory = try TemporaryDirectory()
            root = directory.url.path
            var fd = open(root, O_RDONLY | O_DIRECTORY)
            for _ in 0..<10_000 {
                try #require(mkdirat(fd, "d", 0o755) == 0)
                let next = openat(fd, "d", O_RDONLY | O_DIRECTORY)
                close(fd)
                fd = next
                try #require(fd >= 0)
            }
            let file = openat(fd, "bottom.txt", O_WRONLY | O_CREAT, 0o444)
            try #require(file >= 0)
            close(file)
            fchmod(fd, 0)
            close(fd)

            try Disk.write("locked", to: directory.appending("locked/inner/file.txt"))
            chmod(directory.appending("locked/inner").path, 0)
            chmod(directory.appending("locked").path, 0o500)
            // "caf" and 0xE9 (é in Latin-1), a name that is not UTF-8.
            let rootFD = open(root, O_RDONLY | O_DIRECTORY)
            defer { close(rootFD) }
            let name: [UInt8] = [0x63, 0x61, 0x66, 0xE9, 0]
            let notUTF8 = name.withUnsafeBytes { openat(rootFD, $0.baseAddress!.assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT, 0o644) }
            try #require(notUTF8 >= 0)
            close(notUTF8)
            try #require(symlink(outside.appending("target").path, root + "/link") == 0)
        }
        #expect(access(root, F_OK) != 0 && errno == ENOENT, "\(root) is still there")
        #expect(try String(contentsOf: outside.appending("target/file.txt"), encoding: .utf8) == "kept")
    }
}
