import Foundation

/// A tree of regular files, directories and symbolic links: Foundation's
/// `FileWrapper`, with the same names and behaviour, for Linux.
///
/// A wrapper read from disk with ``init(url:options:)`` knows the kinds,
/// names and attributes of its whole tree at once and reads a regular
/// file's bytes only when they are first asked for. ``write(to:options:originalContentsURL:)``
/// writes through directory descriptors, atomically when asked, and
/// hard-links the files that have not changed since they were read.
///
/// A wrapper is a mutable reference type. Reading a tree from several
/// threads at once is safe while no thread changes it: kinds, names,
/// children, attributes, symlink targets, contents (lazily read contents
/// are loaded once, under a lock), manifests and digests, packing it, and
/// `matchesContents(of:)`. Changing it — a setter, adding or removing a
/// child, `read(from:options:)`, or `write(to:options:originalContentsURL:)`
/// (which records where it wrote each file, and with `.withNameUpdating`
/// renames) — needs the tree to itself, as with Foundation's, which is not
/// safe to share between threads at all.
///
/// An `NSObject`, as Foundation's is: equal and hashed by identity (`==`,
/// `Set`, dictionary keys), and `NSSecureCoding` for keyed archives
/// (FileWrapper+Coding.swift). A subclass that adds a designated
/// initializer writes `required init?(coder:)`, as on Apple's systems.
open class FileWrapper: NSObject, NSSecureCoding {
    /// What a wrapper represents.
    private(set) var kind: FileKind
    /// A directory's children by key.
    var children: [String: FileWrapper] = [:]
    /// A regular file's contents; used only under the wrapper's lock
    /// (``StripedLocks``), through `contents` and `loadContents()`: the
    /// first read of lazily read contents fills them in, and readers on
    /// several threads must not race to do it.
    private var lockedContents = RegularFileContents()

    /// A regular file's contents (a copy, taken under the lock; setting
    /// replaces them under the lock).
    var contents: RegularFileContents {
        get { StripedLocks.withLock(for: self) { lockedContents } }
        set { StripedLocks.withLock(for: self) { lockedContents = newValue } }
    }

    /// The contents, loaded under the lock, so that the first readers on
    /// several threads read the file once and keep one copy.
    func loadContents() throws(FileWrapperError) -> Data {
        try StripedLocks.withLock(for: self) { () throws(FileWrapperError) in try lockedContents.load() }
    }

    /// A symbolic link's target, byte for byte.
    var linkTarget: [UInt8] = []
    /// Directories that hold this wrapper, so that a new preferred filename
    /// can re-key it in each of them.
    var parents: [WeakParent] = []
    private var storedPreferredFilename: String?

    /// The name of the file this wrapper was last read from or written to
    /// (with `.withNameUpdating`), if any.
    open var filename: String?

    /// The metadata written with this wrapper.
    open var attributes: Attributes

    /// The name this wrapper asks for when it is added to a directory.
    /// Setting it re-keys the wrapper in every directory that holds it.
    open var preferredFilename: String? {
        get { storedPreferredFilename }
        set {
            storedPreferredFilename = newValue
            guard let newValue else { return }
            for parent in parents.compactMap(\.wrapper) {
                parent.rekey(self, preferredFilename: newValue)
            }
        }
    }

    // MARK: Creating wrappers

    /// A directory wrapper holding `childrenByPreferredName` under the given
    /// keys; a child without a preferred filename takes its key as one.
    ///
    /// - Parameter childrenByPreferredName: The children by key.
    public init(directoryWithFileWrappers childrenByPreferredName: [String: FileWrapper]) {
        kind = .directory
        attributes = Attributes()
        children = childrenByPreferredName
        super.init()
        for (key, child) in childrenByPreferredName {
            if child.storedPreferredFilename == nil {
                child.storedPreferredFilename = key
            }
            child.addParent(self)
        }
    }

    /// A regular-file wrapper holding `contents`.
    ///
    /// - Parameter contents: The file's bytes.
    public init(regularFileWithContents contents: Data) {
        kind = .regularFile
        attributes = Attributes()
        lockedContents = RegularFileContents(data: contents)
        super.init()
    }

    /// A symbolic-link wrapper whose target is `url`'s path as given:
    /// a relative URL made with `URL(fileURLWithPath: "../x")` gives the
    /// relative target `../x`.
    ///
    /// - Parameter url: The link's target.
    public init(symbolicLinkWithDestinationURL url: URL) {
        kind = .symbolicLink
        attributes = Attributes()
        linkTarget = Array(url.relativePath.utf8)
        super.init()
    }

    /// A symbolic-link wrapper whose target is `path`, byte for byte.
    ///
    /// - Parameter path: The link's target.
    public init(symbolicLinkWithDestination path: String) {
        kind = .symbolicLink
        attributes = Attributes()
        linkTarget = Array(path.utf8)
        super.init()
    }

    /// A symbolic-link wrapper whose target is `target`, which need not be
    /// UTF-8 (an archive's link may hold any bytes; a `String` would
    /// replace them). A convenience initializer: a subclass in this
    /// package that does not override a `package` designated one fails to
    /// compile (Swift 6.3 reports an infinite recursion).
    package convenience init(symbolicLinkWithDestinationBytes target: [UInt8]) {
        self.init(kind: .symbolicLink)
        linkTarget = target
    }

    // MARK: Keyed archives

    /// `true`: a wrapper decodes only what it checks, so a keyed archive
    /// that requires secure coding may hold one.
    open class var supportsSecureCoding: Bool { true }

    /// Encodes the wrapper as Apple's does: its ``serializedRepresentation``
    /// under the key `NSFileWrapperData`. A wrapper that has no serialized
    /// form (a file of 2 GiB or more, one that cannot be read) encodes
    /// nothing, and decodes as nil.
    ///
    /// - Parameter coder: A keyed archiver.
    open func encode(with coder: NSCoder) {
        guard let data = serializedRepresentation else { return }
        coder.encode(data, forKey: Self.codingKey)
    }

    /// A wrapper decoded from a keyed archive: the serialized form under
    /// `NSFileWrapperData`, read as ``init(serializedRepresentation:)``
    /// reads it; nil when the key is missing or its data is not a
    /// serialized wrapper.
    ///
    /// - Parameter coder: A keyed unarchiver.
    public required init?(coder: NSCoder) {
        guard let data = coder.decodeObject(of: NSData.self, forKey: FileWrapper.codingKey),
              let read = FileWrapper.parseSerialization(data as Data)
        else { return nil }
        kind = read.kind
        attributes = Attributes()
        super.init()
        take(read)
    }

    /// The key of the serialized form in a keyed archive, Apple's.
    static let codingKey = "NSFileWrapperData"

    /// A wrapper that a reader fills in.
    init(kind: FileKind) {
        self.kind = kind
        attributes = Attributes()
        super.init()
    }

    /// Releases a deep tree one wrapper at a time instead of recursively, so
    /// that a tree 10,000 directories deep cannot overflow the stack.
    deinit {
        guard !children.isEmpty else { return }
        var pending = Array(children.values)
        children = [:]
        while var next = pending.popLast() {
            guard isKnownUniquelyReferenced(&next) else { continue }
            pending.append(contentsOf: next.children.values)
            next.children = [:]
        }
    }

    // MARK: Kinds

    /// Whether this wrapper is a directory.
    open var isDirectory: Bool { kind == .directory }

    /// Whether this wrapper is a regular file.
    open var isRegularFile: Bool { kind == .regularFile }

    /// Whether this wrapper is a symbolic link.
    open var isSymbolicLink: Bool { kind == .symbolicLink }

    /// Turns this wrapper into another kind, dropping what the old kind held.
    func become(_ newKind: FileKind) {
        guard newKind != kind else { return }
        if kind == .directory {
            for child in children.values { child.removeParent(self) }
        }
        kind = newKind
        children = [:]
        contents = RegularFileContents()
        linkTarget = []
    }

    // MARK: Symbolic links

    /// A symbolic link's destination as a file URL whose `relativePath` is
    /// the target as stored; `nil` for other kinds.
    open var symbolicLinkDestinationURL: URL? {
        guard kind == .symbolicLink else { return nil }
        return URL(fileURLWithPath: String(decoding: linkTarget, as: UTF8.self))
    }

    /// A symbolic link's target as stored (not resolved); `nil` for other
    /// kinds. Bytes that are not UTF-8 show as U+FFFD here;
    /// ``symbolicLinkDestinationBytes`` has them exactly.
    open var symbolicLinkDestination: String? {
        guard kind == .symbolicLink else { return nil }
        return String(decoding: linkTarget, as: UTF8.self)
    }

    /// A symbolic link's target byte for byte; `nil` for other kinds.
    public var symbolicLinkDestinationBytes: [UInt8]? {
        kind == .symbolicLink ? linkTarget : nil
    }
}

/// A weak reference to a directory that holds a wrapper.
struct WeakParent {
    weak var wrapper: FileWrapper?
}

extension FileWrapper {
    /// Takes `name` as filename and `preferred` (by default `name`) as
    /// preferred filename without re-keying parents: what reading from
    /// disk does, and reading a serialized tree, whose keys may be unique
    /// spellings of a preferred filename.
    func adoptName(_ name: String?, preferred: String? = nil) {
        filename = name
        storedPreferredFilename = preferred ?? name
    }
}
