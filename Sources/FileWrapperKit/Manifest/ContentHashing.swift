import Dispatch
import Foundation
import Glibc
import Synchronization

/// Hashes files on disk with SHA-256 on every core: each worker takes the
/// next file, reads it in 1 MiB blocks and hashes as it reads, so memory
/// stays at one block a worker whatever the files' sizes.
enum ContentHashing {
    /// A file to hash and the identity the walk saw, which it must still have.
    struct Job: Sendable {
        var path: [UInt8]
        var identity: FileIdentity
    }

    static let blockSize = 1 << 20

    /// The digests of `jobs`, in order. Throws the first failure, for
    /// example a file that changed after the walk saw it.
    static func hash(_ jobs: [Job], progress: ManifestProgress?) throws(FileWrapperError) -> [SHA256Digest] {
        guard !jobs.isEmpty else { return [] }
        let results = Results(count: jobs.count)
        let next = Atomic<Int>(0)
        let workers = min(jobs.count, max(1, ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 64)
            defer { buffer.deallocate() }
            while !results.hasFailed {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < jobs.count else { return }
                do throws(FileWrapperError) {
                    results.store(try hash(jobs[index], buffer: buffer, progress: progress), at: index)
                } catch {
                    results.fail(error)
                }
            }
        }
        return try results.digests()
    }

    /// Reads and hashes one file, checking it is still the file the walk saw.
    private static func hash(
        _ job: Job, buffer: UnsafeMutableRawBufferPointer, progress: ManifestProgress?
    ) throws(FileWrapperError) -> SHA256Digest {
        let path = { PathDisplay.text(job.path) }
        let fd = try Syscall.open(bytes: job.path, in: AT_FDCWD, flags: O_RDONLY | O_NOFOLLOW, path: path)
        defer { Syscall.close(fd) }
        let info = try Syscall.status(of: fd, path: path)
        guard job.identity.isSameInode(as: info), Int64(info.st_size) == job.identity.size else {
            throw FileWrapperError(.changedOnDisk, path: path(), detail: "the file was replaced or changed size while the tree was read")
        }
        var hasher = ContentHasher()
        var total: Int64 = 0
        while true {
            let count = try Syscall.read(fd, into: buffer, path: path)
            guard count > 0 else { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += Int64(count)
            progress?.count(bytes: Int64(count))
        }
        guard total == job.identity.size else {
            throw FileWrapperError(.changedOnDisk, path: path(), detail: "the file changed size while it was read")
        }
        return hasher.finalize()
    }

    /// The workers' results: each slot written by one worker only, the
    /// first failure kept under a lock.
    private final class Results: @unchecked Sendable {
        /// Allocated once and never moved, so that workers writing their
        /// own slots touch nothing in common (an array's
        /// `withUnsafeMutableBufferPointer` writes the array itself back,
        /// from every worker at once: a data race).
        private let slots: UnsafeMutableBufferPointer<SHA256Digest?>
        private let failure = Mutex<FileWrapperError?>(nil)
        private let failed = Atomic<Bool>(false)

        init(count: Int) {
            slots = .allocate(capacity: count)
            slots.initialize(repeating: nil)
        }

        deinit {
            slots.deinitialize().deallocate()
        }

        var hasFailed: Bool { failed.load(ordering: .relaxed) }

        func store(_ digest: SHA256Digest, at index: Int) {
            slots[index] = digest
        }

        func fail(_ error: FileWrapperError) {
            failure.withLock { if $0 == nil { $0 = error } }
            failed.store(true, ordering: .relaxed)
        }

        func digests() throws(FileWrapperError) -> [SHA256Digest] {
            if let error = failure.withLock({ $0 }) { throw error }
            return slots.map { $0! }
        }
    }
}
