import Glibc

/// Starts a `pthread` that runs a closure: for worker pools that join their
/// threads themselves (`Dispatch` threads cannot be joined).
package enum ThreadStarter {
    /// `pthread_create` failed with `status`.
    package struct Failure: Error, CustomStringConvertible {
        package let status: CInt
        package var description: String { String(cString: strerror(status)) }
    }

    /// A closure on its way to its thread.
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// The new thread running `body`.
    package static func start(_ body: @escaping () -> Void) throws(Failure) -> pthread_t {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw Failure(status: status)
        }
        return thread
    }
}
