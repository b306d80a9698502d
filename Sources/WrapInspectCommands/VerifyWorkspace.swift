import FileWrapperKit
import Foundation
import Glibc

/// The folder `verify` writes its forms in: one private folder (mode 0700)
/// in `$TMPDIR`, named and locked as ``Replacement`` names and locks a
/// temporary (`.wrapinspect-verify.fwk-save-<pid>-<key>`), so that a run
/// ended by a signal removes it (``Interruption``) and one killed outright
/// leaves it to the next `verify`, which removes every such folder whose
/// owner is dead (its lock gone with it).
enum VerifyWorkspace {
    static let name = "wrapinspect-verify"

    /// Runs `body` with a new, empty workspace, removed when it returns or throws.
    static func withWorkspace<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.path
        let fd = try Syscall.open(folder, in: AT_FDCWD, flags: O_RDONLY | O_DIRECTORY, path: { folder })
        // Open while the workspace exists: the lock that marks it live is on this descriptor.
        defer { Syscall.close(fd) }
        Replacement.removeLeftovers(of: name, in: fd, parentPath: folder)
        Interruption.removesTemporaries(replacing: PathDisplay.join(folder, [name]))
        let workspace = Replacement.temporaryName(for: name, lockingIn: fd)
        try Syscall.makeDirectory(workspace, in: fd, mode: 0o700, path: { PathDisplay.join(folder, [workspace]) })
        defer { try? TreeRemover.remove(Array(workspace.utf8), in: fd, parentPath: folder) }
        return try body(URL(fileURLWithPath: folder).appendingPathComponent(workspace))
    }
}
