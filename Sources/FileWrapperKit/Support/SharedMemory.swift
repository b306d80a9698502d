/// Memory handed to the threads of a ``WorkerThreads/perform(iterations:_:)``, each of which
/// reads it or writes its own part of it.
struct SharedMemory<Buffer>: @unchecked Sendable {
    let buffer: Buffer
}
