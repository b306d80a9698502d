import Foundation
import SystemPackage

/// An error from reading or writing a file wrapper: what went wrong, on which
/// path, in which system call, and the `errno` the system gave.
///
/// It prints as one sentence, for example
/// `openat("/docs/Report.pages/Data/image.png") failed: No such file or directory (ENOENT)`,
/// and bridges to `NSError` in the Cocoa domain with Foundation's codes.
///
/// `FileWrapper`'s Foundation methods (`init(url:options:)`,
/// `read(from:options:)`, `write(to:options:originalContentsURL:)`) throw
/// it wrapped in a `CocoaError`, as Foundation's throw one, so that
/// `catch CocoaError.fileReadNoSuchFile` and `catch let error as CocoaError`
/// work as on Apple's systems; `CocoaError.fileWrapperError`
/// gives it back.
public struct FileWrapperError: FileWrapperKitError, Sendable, Hashable {
    /// What kind of failure this is: a value that later versions may add
    /// to, so a `switch` over it needs a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name, as the static property that holds it.
        public let description: String

        private init(_ name: String) {
            description = name
        }

        public static let noSuchFile = Code("noSuchFile")
        public static let permissionDenied = Code("permissionDenied")
        public static let notADirectory = Code("notADirectory")
        public static let fileExists = Code("fileExists")
        public static let outOfSpace = Code("outOfSpace")
        public static let readOnlyFileSystem = Code("readOnlyFileSystem")
        public static let nameTooLong = Code("nameTooLong")
        /// A name that Swift cannot hold as a `String` key, or that a file system cannot hold.
        public static let invalidName = Code("invalidName")
        /// Two names in one directory that Swift's `String` treats as the same key.
        public static let duplicateName = Code("duplicateName")
        /// A lazily read file is no longer the file that was read.
        public static let changedOnDisk = Code("changedOnDisk")
        /// A device node, FIFO or socket, which a file wrapper cannot represent.
        public static let unsupportedFileType = Code("unsupportedFileType")
        public static let ioError = Code("ioError")
    }

    public var code: Code
    /// The path the failure is about, escaped for display where needed.
    public var path: String
    /// A second path, for failures about two entries.
    public var otherPath: String?
    /// The failing system call, such as `openat`.
    public var systemCall: String?
    /// The `errno` value the call returned.
    public var errno: Errno?
    /// What happened, when a system call and errno do not tell it.
    public var detail: String?
    /// The error this one was made from, if any (not compared by `==`).
    public var underlying: (any Error)?

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - path: The path it is about, escaped for display where needed.
    ///   - otherPath: A second path, for a failure about two entries.
    ///   - systemCall: The system call that failed.
    ///   - errno: The `errno` that call gave.
    ///   - detail: What happened, when the call and errno do not tell it.
    ///   - underlying: The error this one was made from.
    public init(
        _ code: Code, path: String, otherPath: String? = nil,
        systemCall: String? = nil, errno: Errno? = nil, detail: String? = nil, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.path = path
        self.otherPath = otherPath
        self.systemCall = systemCall
        self.errno = errno
        self.detail = detail
        self.underlying = underlying
    }

    /// The paths, then the call, its errno and the detail: the cause is not compared.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        (lhs.code, lhs.path, lhs.otherPath, lhs.systemCall, lhs.errno, lhs.detail)
            == (rhs.code, rhs.path, rhs.otherPath, rhs.systemCall, rhs.errno, rhs.detail)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(path)
        hasher.combine(otherPath)
        hasher.combine(systemCall)
        hasher.combine(errno)
        hasher.combine(detail)
    }

    /// The failed call, the detail and the errno, without the paths.
    public var message: String {
        var text = [systemCall.map { "\($0) failed" }, detail].compactMap { $0 }.joined(separator: ": ")
        if let errno { text += (text.isEmpty ? "" : ": ") + "\(errno.description) (\(Self.symbol(for: errno)))" }
        return text.isEmpty ? code.description : text
    }

    public var paths: [String] { [path] + (otherPath.map { [$0] } ?? []) }

    /// An error for a failed system call, its code chosen from the errno.
    init(systemCall: SystemCall, path: String, errno: Errno) {
        self.init(Self.code(for: errno), path: path, systemCall: systemCall.rawValue, errno: errno)
    }

    static func code(for errno: Errno) -> Code {
        switch errno {
        case .noSuchFileOrDirectory: .noSuchFile
        case .permissionDenied, .notPermitted: .permissionDenied
        case .notDirectory: .notADirectory
        case .fileExists, .directoryNotEmpty: .fileExists
        case .noSpace, .diskQuotaExceeded, .fileTooLarge: .outOfSpace
        case .readOnlyFileSystem: .readOnlyFileSystem
        case .fileNameTooLong: .nameTooLong
        case .invalidArgument, .illegalByteSequence: .invalidName
        default: .ioError
        }
    }
}

extension FileWrapperError: CustomStringConvertible {
    public var description: String {
        var text: String
        if let systemCall {
            text = "\(systemCall)(\"\(path)\") failed"
        } else {
            text = "\"\(path)\""
        }
        if let otherPath {
            text += " and \"\(otherPath)\""
        }
        if let detail {
            text += systemCall == nil ? ": \(detail)" : " (\(detail))"
        }
        if let errno {
            text += ": \(errno.description) (\(Self.symbol(for: errno)))"
        }
        return ErrorChain.sentence(text, cause: underlying)
    }

    /// The `errno` macro's name (`EACCES`): a stable code for programs.
    package static func symbol(for errno: Errno) -> String {
        switch errno {
        case .noSuchFileOrDirectory: "ENOENT"
        case .permissionDenied: "EACCES"
        case .notPermitted: "EPERM"
        case .notDirectory: "ENOTDIR"
        case .isDirectory: "EISDIR"
        case .fileExists: "EEXIST"
        case .directoryNotEmpty: "ENOTEMPTY"
        case .noSpace: "ENOSPC"
        case .diskQuotaExceeded: "EDQUOT"
        case .readOnlyFileSystem: "EROFS"
        case .fileNameTooLong: "ENAMETOOLONG"
        case .tooManyOpenFiles: "EMFILE"
        case .tooManySymbolicLinkLevels: "ELOOP"
        case .ioError: "EIO"
        case .invalidArgument: "EINVAL"
        case .improperLink: "EXDEV"
        default: "errno \(errno.rawValue)"
        }
    }
}

extension FileWrapperError: LocalizedError {
    public var errorDescription: String? { description }
}

extension FileWrapperError: CustomNSError {
    public static var errorDomain: String { NSCocoaErrorDomain }

    /// The `CocoaError.Code` that Foundation reports for the same failure.
    public var errorCode: Int {
        let reading = !(systemCall.flatMap(SystemCall.init(rawValue:))?.changesFiles ?? false)
        let code: CocoaError.Code = switch self.code {
        case .noSuchFile: reading ? .fileReadNoSuchFile : .fileNoSuchFile
        case .permissionDenied: reading ? .fileReadNoPermission : .fileWriteNoPermission
        case .fileExists: .fileWriteFileExists
        case .outOfSpace: .fileWriteOutOfSpace
        case .readOnlyFileSystem: .fileWriteVolumeReadOnly
        case .invalidName, .nameTooLong, .duplicateName: reading ? .fileReadInvalidFileName : .fileWriteInvalidFileName
        default: reading ? .fileReadUnknown : .fileWriteUnknown
        }
        return code.rawValue
    }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: description]
        if let errno {
            info[NSUnderlyingErrorKey] = NSError(domain: NSPOSIXErrorDomain, code: Int(errno.rawValue))
        }
        return info
    }
}

extension FileWrapperError {
    /// This failure as Foundation's `FileWrapper` throws it: a `CocoaError`
    /// with the same code, the failing path (`NSFilePathErrorKey`), the URL
    /// the call was given (`NSURLErrorKey`), this error's sentence as its
    /// description and this error as the underlying one.
    ///
    /// - Parameter url: The URL the `FileWrapper` method was given.
    /// - Returns: The `CocoaError`, with this error as its `fileWrapperError`.
    public func cocoaError(url: URL) -> CocoaError {
        var info = errorUserInfo
        info[NSURLErrorKey] = url
        info[NSUnderlyingErrorKey] = self
        return CocoaError(CocoaError.Code(rawValue: errorCode), userInfo: info)
    }

    /// Runs one of `FileWrapper`'s Foundation methods on `url`, throwing
    /// its ``FileWrapperError`` as the `CocoaError` Foundation would throw.
    static func reportingAsCocoa<Value>(url: URL, _ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as FileWrapperError {
            throw error.cocoaError(url: url)
        }
    }
}

extension CocoaError {
    /// The ``FileWrapperError`` a `FileWrapper` method wrapped in this
    /// error: the failing system call, its errno and the path, as values.
    public var fileWrapperError: FileWrapperError? {
        underlying as? FileWrapperError
    }
}
