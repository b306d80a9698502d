import CFileSystem
import Foundation
import Glibc
import SystemPackage

/// Reading and writing `user.*` extended attributes, the namespace a file
/// wrapper keeps. Other namespaces (`security.*`, `trusted.*`,
/// `system.*`) belong to the system and are neither read nor written.
enum ExtendedAttributes {
    static let namespace = "user."

    /// What to read attributes of: a path not followed if it is a symlink,
    /// or an open descriptor.
    enum Target {
        case path(String)
        /// A path given as bytes, for names that are not valid UTF-8.
        case pathBytes([UInt8])
        case descriptor(CInt)

        func list(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int {
            switch self {
            case .path(let path): cfs_llistxattr(path, buffer, size)
            case .pathBytes(let path): Self.withCPath(path) { cfs_llistxattr($0, buffer, size) }
            case .descriptor(let fd): cfs_flistxattr(fd, buffer, size)
            }
        }

        /// The value of the attribute whose name is the bytes `name`.
        func value(_ name: [UInt8], _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int {
            Self.withCPath(name) { name in
                switch self {
                case .path(let path): cfs_lgetxattr(path, name, buffer, size)
                case .pathBytes(let path): Self.withCPath(path) { cfs_lgetxattr($0, name, buffer, size) }
                case .descriptor(let fd): cfs_fgetxattr(fd, name, buffer, size)
                }
            }
        }

        private static func withCPath(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> Int) -> Int {
            (path + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
            }
        }
    }

    /// The `user.*` attributes of `name` inside the directory `directory`,
    /// read through `/proc/self/fd` so that the file need not be opened and
    /// a symlink is not followed.
    static func read(_ name: String, in directory: CInt, path: Syscall.Path) throws(FileWrapperError) -> [String: Data] {
        try read(.path("/proc/self/fd/\(directory)/" + name), displayPath: path)
    }

    /// ``readNamed(_:displayPath:)`` of the file `name` (bytes) inside the
    /// directory `directory`, as ``read(_:in:path:)`` reads it.
    static func readNamed(bytes name: [UInt8], in directory: CInt, path: Syscall.Path) throws(FileWrapperError) -> [(name: [UInt8], value: Data)] {
        try readNamed(.pathBytes(Array("/proc/self/fd/\(directory)/".utf8) + name), displayPath: path)
    }

    /// The `user.*` attributes of `target`, by name as text (a name that
    /// is not UTF-8 is read with U+FFFD in place of its bytes), for a
    /// ``FileWrapper``'s attributes.
    static func read(_ target: Target, displayPath: Syscall.Path) throws(FileWrapperError) -> [String: Data] {
        var attributes: [String: Data] = [:]
        for (name, value) in try readNamed(target, displayPath: displayPath) {
            attributes[String(decoding: name, as: UTF8.self)] = value
        }
        return attributes
    }

    /// The `user.*` attributes of `target`, each name as its bytes, in the
    /// order `listxattr` gives them: for manifests, which keep every
    /// attribute apart (``ExtendedAttributeName``).
    static func readNamed(_ target: Target, displayPath: Syscall.Path) throws(FileWrapperError) -> [(name: [UInt8], value: Data)] {
        var names: [UInt8] = []
        while true {
            let size = try tolerant(.listxattr, displayPath) { target.list(nil, 0) }
            guard size > 0 else { return [] }
            names = [UInt8](repeating: 0, count: size)
            let filled = try tolerant(.listxattr, displayPath) {
                names.withUnsafeMutableBytes { target.list($0.baseAddress!.assumingMemoryBound(to: CChar.self), size) }
            }
            if filled >= 0 {
                names.removeSubrange(filled...)
                break
            }
        }
        var attributes: [(name: [UInt8], value: Data)] = []
        for rawName in names.split(separator: 0) {
            let attributeName = Array(rawName)
            guard attributeName.starts(with: namespace.utf8) else { continue }
            while true {
                let size = try tolerant(.getxattr, displayPath) { target.value(attributeName, nil, 0) }
                guard size >= 0 else { break }
                var value = Data(count: size)
                let filled = try tolerant(.getxattr, displayPath) {
                    value.withUnsafeMutableBytes { target.value(attributeName, $0.baseAddress, size) }
                }
                if filled >= 0 {
                    attributes.append((attributeName, value.prefix(filled)))
                    break
                }
            }
        }
        return attributes
    }

    /// Sets each attribute on the open file `fd`.
    static func write(_ attributes: [String: Data], to fd: CInt, path: Syscall.Path) throws(FileWrapperError) {
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            try Syscall.retrying(.fsetxattr, { path() + " [\(name)]" }) {
                value.withUnsafeBytes { cfs_fsetxattr(fd, name, $0.baseAddress, $0.count) }
            }
        }
    }

    /// Runs a listing or reading call; a file system without extended
    /// attributes, or an attribute removed meanwhile, counts as none (0),
    /// and a buffer that became too small asks for another try (-1).
    private static func tolerant(_ call: SystemCall, _ path: Syscall.Path, _ body: () -> Int) throws(FileWrapperError) -> Int {
        while true {
            let result = Syscall.invoke(call, body)
            if result >= 0 { return result }
            switch Glibc.errno {
            case EINTR: continue
            case ENOTSUP, ENODATA: return 0
            case ERANGE: return -1
            case let code: throw FileWrapperError(systemCall: call, path: path(), errno: Errno(rawValue: code))
            }
        }
    }
}
