import Dispatch
import FileWrapperKit
import Foundation
import Glibc

/// Watches a document's file for changes made by others and hands each
/// one, as a ``DocumentDiskChange``, to every stream of ``changes()``
/// (docs/coordination.md, "Events").
///
/// inotify on the document's folder, for the document's name: a save
/// (ours or another process's) is one rename of a whole tree onto the
/// name, `mv` and `rm -r` are a move and a deletion of it, so a package of
/// many files gives one event a save; the lock file's and the
/// temporaries' events have other names and are dropped. A burst of
/// events is then looked at on disk, under the document's shared lock (a
/// save midway is waited for): its ``DiskStamp`` is compared with
/// ``known``, the stamp of the version the controller has (set by a save
/// under its exclusive lock, right after its swap, and by open and
/// revert), and with the stamp of the burst before. Equal to the first,
/// the change is the controller's own or already resolved (a file moved
/// back is the version the controller has); equal to the second, it is
/// the rest of a change already looked at.
///
/// Nothing is watched until someone asks for ``changes()``. The inotify
/// descriptor is read by a dispatch source on a queue of its own, which
/// keeps no process alive; ``close()`` cancels it, closes the descriptor
/// and ends the streams.
final class DiskWatcher: Sendable {
    /// The stamp of the version the controller has, nil when none.
    let known = Locked<DiskStamp?>(nil)

    private struct State {
        var url: URL?
        var source: (any DispatchSourceRead)?
        /// Bumped whenever the source is cancelled: a burst looked at by
        /// an older source is not reported.
        var generation: UInt64 = 0
        var streams: [UInt64: AsyncStream<DocumentDiskChange>.Continuation] = [:]
        var nextStream: UInt64 = 0
        /// The stamp of the last burst looked at, reported or not.
        var lastSeen: DiskStamp?
        var isClosed = false
        /// Those waiting in ``close()`` for the cancelled source to close its descriptor.
        var stopping: Stopping?
    }

    private let state = Locked(State())

    deinit {
        state.withLock { $0.source?.cancel() }
    }

    /// A new stream of the changes others make to the file watched, from
    /// now on; it ends when the watcher closes.
    func changes() -> AsyncStream<DocumentDiskChange> {
        let (stream, continuation) = AsyncStream<DocumentDiskChange>.makeStream(bufferingPolicy: .unbounded)
        let added: UInt64? = state.withLock { state in
            guard !state.isClosed else { return nil }
            let key = state.nextStream
            state.nextStream += 1
            state.streams[key] = continuation
            if state.source == nil, let url = state.url { start(url, &state) }
            return key
        }
        guard let added else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: added) }
        }
        return stream
    }

    /// Watches `url` from now on instead of what was watched (nothing for
    /// nil): for a document saved as another file or renamed. What the
    /// old watch had not reported yet is dropped.
    func watch(_ url: URL?) {
        state.withLock { state in
            state.source?.cancel()
            state.source = nil
            state.generation += 1
            state.url = url
            state.lastSeen = nil
            if let url, !state.isClosed, !state.streams.isEmpty { start(url, &state) }
        }
    }

    /// Stops watching, ends every stream and returns once the inotify
    /// descriptor is closed.
    func close() async {
        let (streams, stopping) = state.withLock { state in
            state.isClosed = true
            state.generation += 1
            state.source?.cancel()
            state.source = nil
            defer { state.streams = [:] }
            return (state.streams.values, state.stopping)
        }
        // Outside the lock: a stream's end removes it under the lock.
        for continuation in streams { continuation.finish() }
        await stopping?.wait()
    }

    /// Opens an inotify descriptor watching `url`'s folder and reads it
    /// with a dispatch source. A folder that cannot be watched (gone, too
    /// many watches) gives no events; the streams stay open.
    private func start(_ url: URL, _ state: inout State) {
        let parent = url.deletingLastPathComponent().path
        let display = { parent }
        guard let fd = try? Syscall.makeInotify(path: display) else { return }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
        guard (try? Syscall.watch(parent, with: fd, for: mask, path: display)) != nil else {
            Syscall.close(fd)
            return
        }
        let generation = state.generation
        let name = Array(url.lastPathComponent.utf8)
        let stopping = Stopping()
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "FileWrapperDocument.DiskWatcher"))
        source.setEventHandler { [weak self] in
            guard let events = Self.read(fd, path: display) else { return }
            self?.look(at: events, named: name, url: url, generation: generation)
        }
        source.setCancelHandler {
            Syscall.close(fd)
            stopping.done()
        }
        state.source = source
        state.stopping = stopping
        source.resume()
    }

    /// One inotify event: what happened, the rename's cookie, the name in the folder.
    private struct Event {
        var mask: UInt32
        var cookie: UInt32
        var name: [UInt8]
    }

    /// Every event the descriptor holds now; nil if it cannot be read.
    private static func read(_ fd: CInt, path: Syscall.Path) -> [Event]? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        var events: [Event] = []
        while true {
            guard let count = try? Syscall.readAvailable(fd, into: buffer, path: path) else { return nil }
            if count == 0 { return events }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let length = Int(event.len)
                guard offset + header + length <= count else { break }
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + header)..<(offset + header + length)])
                events.append(Event(mask: event.mask, cookie: event.cookie, name: Array(bytes.prefix { $0 != 0 })))
                offset += header + length
            }
        }
    }

    /// Reports what `events` did to the document named `name` at `url`, if
    /// they concern it and it is neither the controller's own change nor
    /// one already reported.
    private func look(at events: [Event], named name: [UInt8], url: URL, generation: UInt64) {
        let folderEvents = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_Q_OVERFLOW)
        let relevant = events.filter { $0.name == name || $0.mask & folderEvents != 0 }
        guard !relevant.isEmpty else { return }
        let stamp = (try? DocumentLock.holding(.shared, of: url) { _ in DiskStamp(of: url) }) ?? DiskStamp(of: url)
        let change = Self.change(relevant, all: events, stamp: stamp, url: url)
        state.withLock { state in
            guard state.generation == generation, stamp != state.lastSeen else { return }
            state.lastSeen = stamp
            guard stamp != known.withLock({ $0 }) else { return }
            for continuation in state.streams.values { continuation.yield(change) }
        }
    }

    /// What the document went through: gone (moved or deleted, by the
    /// last event that took it away), else replaced (a new file or tree
    /// put in its place) or changed in place.
    private static func change(_ relevant: [Event], all events: [Event], stamp: DiskStamp, url: URL) -> DocumentDiskChange {
        guard stamp.isNothing else {
            return relevant.contains { $0.mask & UInt32(IN_MOVED_TO | IN_CREATE | IN_MOVED_FROM | IN_Q_OVERFLOW) != 0 } ? .replaced : .changed
        }
        let gone = relevant.last { $0.mask & UInt32(IN_MOVED_FROM | IN_DELETE | IN_MOVE_SELF | IN_DELETE_SELF) != 0 }
        guard let gone, gone.mask & UInt32(IN_MOVED_FROM | IN_MOVE_SELF) != 0 else { return .deleted }
        let arrival = events.first { $0.mask & UInt32(IN_MOVED_TO) != 0 && $0.cookie == gone.cookie && gone.mask & UInt32(IN_MOVED_FROM) != 0 }
        return .moved(to: arrival.map { url.deletingLastPathComponent().appendingPathComponent(String(decoding: $0.name, as: UTF8.self)) })
    }
}

/// Who waits for a cancelled dispatch source to close its descriptor.
private final class Stopping: Sendable {
    private let state = Locked<(isDone: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func done() {
        let waiters = state.withLock { state in
            state.isDone = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isDone = state.withLock { state in
                if !state.isDone { state.waiters.append(continuation) }
                return state.isDone
            }
            if isDone { continuation.resume() }
        }
    }
}
