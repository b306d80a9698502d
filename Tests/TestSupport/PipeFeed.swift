import Foundation
import Glibc

/// A pipe that another thread fills, for readers of a stream.
public enum PipeFeed {
    /// The read end of a pipe into which a thread of its own writes `data`
    /// and then closes its end; the caller closes the read end.
    public static func reading(_ data: Data) throws -> CInt {
        var ends: [CInt] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let writer = ends[1]
        Thread {
            data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count, case let count = write(writer, bytes.baseAddress! + offset, bytes.count - offset), count > 0 {
                    offset += count
                }
            }
            close(writer)
        }.start()
        return ends[0]
    }
}
