import Foundation
import Glibc

extension FileWrapper {
    /// A wrapper's metadata, typed: what ``fileAttributes`` holds as a
    /// Foundation dictionary, without losing nanoseconds.
    ///
    /// A `nil` value means "not set": the file is written with the default
    /// (0644 for files, 0755 for directories, the time of writing, the
    /// writing process's owner).
    public struct Attributes: Hashable, Sendable {
        /// Permission bits, including set-user-ID, set-group-ID and sticky (`0o7777`).
        public var permissions: UInt16?
        /// The modification time, to the nanosecond.
        public var modificationDate: FileTimestamp?
        /// Owner and group. Applied only when the writing process runs as root.
        public var owner: FileOwner?
        /// Extended attributes in the `user.` namespace, by full name (`user.comment`).
        public var extendedAttributes: [String: Data]

        /// Metadata with the values given; each left out is not set.
        ///
        /// - Parameters:
        ///   - permissions: Permission bits (`0o7777` at most).
        ///   - modificationDate: The modification time.
        ///   - owner: Owner and group.
        ///   - extendedAttributes: Extended attributes by full name.
        public init(
            permissions: UInt16? = nil, modificationDate: FileTimestamp? = nil,
            owner: FileOwner? = nil, extendedAttributes: [String: Data] = [:]
        ) {
            self.permissions = permissions
            self.modificationDate = modificationDate
            self.owner = owner
            self.extendedAttributes = extendedAttributes
        }

        init(_ info: stat, extendedAttributes: [String: Data]) {
            self.init(
                permissions: UInt16(info.st_mode & 0o7777),
                modificationDate: FileTimestamp(info.st_mtim),
                owner: FileOwner(userID: info.st_uid, groupID: info.st_gid),
                extendedAttributes: extendedAttributes
            )
        }
    }

    /// The key of `fileAttributes` that holds extended attributes, as on Apple's systems.
    public static let extendedAttributesKey = "NSFileExtendedAttributes"

    /// The wrapper's metadata under Foundation's `FileAttributeKey` names:
    /// `.type` and `.posixPermissions` always, `.size` for regular files,
    /// `.modificationDate`, `.ownerAccountID` and `.groupOwnerAccountID`
    /// when known, and the `user.*` extended attributes under
    /// ``extendedAttributesKey``. Setting it replaces ``attributes`` with what
    /// the dictionary holds; a date equal to the current one as a `Date`
    /// keeps the current nanoseconds.
    public var fileAttributes: [String: Any] {
        get {
            var dictionary: [String: Any] = [
                FileAttributeKey.type.rawValue: fileAttributeType,
                FileAttributeKey.posixPermissions.rawValue: NSNumber(value: attributes.permissions ?? defaultPermissions),
            ]
            if kind == .regularFile, let size = contents.size {
                dictionary[FileAttributeKey.size.rawValue] = NSNumber(value: size)
            }
            if let date = attributes.modificationDate?.date {
                dictionary[FileAttributeKey.modificationDate.rawValue] = date
            }
            if let owner = attributes.owner {
                dictionary[FileAttributeKey.ownerAccountID.rawValue] = NSNumber(value: owner.userID)
                dictionary[FileAttributeKey.groupOwnerAccountID.rawValue] = NSNumber(value: owner.groupID)
            }
            if !attributes.extendedAttributes.isEmpty {
                dictionary[Self.extendedAttributesKey] = attributes.extendedAttributes
            }
            return dictionary
        }
        set {
            var updated = Attributes()
            updated.permissions = Self.number(newValue[FileAttributeKey.posixPermissions.rawValue]).map { UInt16(truncatingIfNeeded: $0 & 0o7777) }
            if let date = newValue[FileAttributeKey.modificationDate.rawValue] as? Date {
                let current = attributes.modificationDate
                updated.modificationDate = current?.date == date ? current : FileTimestamp(date)
            }
            if let user = Self.number(newValue[FileAttributeKey.ownerAccountID.rawValue]),
               let group = Self.number(newValue[FileAttributeKey.groupOwnerAccountID.rawValue]) {
                updated.owner = FileOwner(userID: UInt32(truncatingIfNeeded: user), groupID: UInt32(truncatingIfNeeded: group))
            }
            updated.extendedAttributes = newValue[Self.extendedAttributesKey] as? [String: Data] ?? [:]
            attributes = updated
        }
    }

    /// The permissions written when none are set.
    var defaultPermissions: UInt16 { kind == .directory ? 0o755 : 0o644 }

    private var fileAttributeType: FileAttributeType {
        switch kind {
        case .regularFile: .typeRegular
        case .directory: .typeDirectory
        case .symbolicLink: .typeSymbolicLink
        }
    }

    private static func number(_ value: Any?) -> Int? {
        switch value {
        case let number as NSNumber: number.intValue
        case let integer as Int: integer
        default: nil
        }
    }
}
