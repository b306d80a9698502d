import FileWrapperKit
import Foundation
import Glibc

/// SIGINT, SIGTERM and SIGHUP, taken by one thread of their own: before
/// the process ends of the signal, the temporaries of this run are removed.
///
/// The signals are blocked (`pthread_sigmask`) before any other thread
/// starts, so that every thread inherits the mask, and a thread waits for
/// them (`sigwait`). When one comes it removes, in each folder registered,
/// the temporaries this process made there (`.<name>.fwk-save-<pid>-…`,
/// the names ``Replacement`` gives), then lets the signal end the process
/// as it would have (its default action, raised again), so that a shell
/// sees 128 + the signal and a loop over wrapinspect stops at Ctrl-C.
/// A signal ignored when wrapinspect started (as `nohup` leaves SIGHUP)
/// stays ignored.
///
/// What a SIGKILL leaves, the next run in the same folder removes: the
/// temporaries' locks die with their writer (``Replacement``).
enum Interruption {
    private static let lock = NSLock()
    /// Where temporaries of this run may be: a folder and the name they replace.
    nonisolated(unsafe) private static var registered: [(folder: String, name: String)] = []

    /// Blocks the signals and starts the thread that waits for them. Called
    /// first in `main`, while the process has one thread.
    static func install() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            sigaction(number, nil, &action)
            // SIG_IGN is the handler whose address is 1.
            if unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) != 1 { sigaddset(&signals, number) }
        }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let waited = signals
        Thread.detachNewThread {
            var set = waited
            var number: CInt = 0
            while sigwait(&set, &number) != 0 {}
            removeTemporaries()
            signal(number, SIG_DFL)
            var one = sigset_t()
            sigemptyset(&one)
            sigaddset(&one, number)
            pthread_sigmask(SIG_UNBLOCK, &one, nil)
            raise(number)
            // Not reached: the default action of these signals ends the process.
            _exit(128 + number)
        }
    }

    /// Has the temporaries that replace `path` (beside it, in its folder)
    /// removed if a signal ends the run.
    static func removesTemporaries(replacing path: String) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        lock.withLock { registered.append((url.deletingLastPathComponent().path, url.lastPathComponent)) }
    }

    /// Waits, forever, if a signal is being handled: the main thread calls
    /// this before it exits, so that a run whose temporaries are being
    /// removed ends of its signal, not with a status that says it finished.
    static func finishing() {
        lock.lock()
        lock.unlock()
        StandardInput.removeCopy()
    }

    /// Removes every temporary of this process in the folders registered:
    /// the names that start with `.`, then part of the name they replace,
    /// then `.fwk-save-<pid>-`. The ``CreationGate`` is closed first, so
    /// that no thread makes a temporary, or a name inside one, from then
    /// on: a listing shows them all and a removal is not outgrown. Each is
    /// renamed to a fresh name of its own (`renameat`), so that the run
    /// cannot move it into place while it is being emptied: its swap then
    /// fails, and what was renamed is removed whole. The folders are
    /// listed again until a listing shows none left, a hundred times at
    /// most (what cannot be removed, the next run removes). Holds the lock
    /// to the end: ``finishing()`` waits.
    private static func removeTemporaries() {
        lock.lock()
        CreationGate.close()
        let marker = Array(".fwk-save-\(getpid())-".utf8)
        for (folder, name) in registered {
            let fd = Syscall.invoke(.open) { open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            guard fd >= 0 else { continue }
            for round in 0..<100 {
                guard let names = try? Syscall.names(inDirectory: fd, path: { folder }) else { break }
                let temporaries = names.filter { isTemporary($0, of: Array(name.utf8), marker: marker) }
                if temporaries.isEmpty { break }
                if round > 0 { usleep(10_000) }
                for temporary in temporaries {
                    let aside = Replacement.temporaryName(for: name, lockingIn: fd)
                    guard (try? Syscall.rename(String(decoding: temporary, as: UTF8.self), to: aside, in: fd, flags: 0, path: { folder })) != nil
                    else { continue }
                    try? TreeRemover.remove(Array(aside.utf8), in: fd, parentPath: folder)
                }
            }
            // Kept open: the locks that mark the names aside as this live process's are on it.
        }
    }

    /// Whether `entry` is `.` + a prefix of `name` + `marker` + a key.
    private static func isTemporary(_ entry: [UInt8], of name: [UInt8], marker: [UInt8]) -> Bool {
        guard entry.first == UInt8(ascii: "."),
              let start = (1...max(1, entry.count - marker.count)).first(where: { entry[$0...].starts(with: marker) })
        else { return false }
        return name.starts(with: entry[1..<start])
    }
}
