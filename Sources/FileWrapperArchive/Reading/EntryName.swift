import FileWrapperKit

/// One name of an entry's path (no `/`), equal to another only when their
/// bytes are: Swift's `String ==` is canonical equivalence (U+212A KELVIN
/// SIGN equals `K`), while libarchive and the file system keep the two
/// apart, so a decision about where an entry goes made on `String`s can
/// disagree with the disk.
///
/// The bytes are held as a `String` only to hand them to the system
/// (`text`, exactly the UTF-8 they were decoded from); never compare `text`.
struct EntryName: Hashable, Sendable {
    let text: String

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        text = String(decoding: bytes, as: UTF8.self)
    }

    /// The name whose bytes are `text`'s UTF-8.
    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: EntryName, rhs: EntryName) -> Bool {
        lhs.text.utf8.count == rhs.text.utf8.count && lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// A path below the root as its exact bytes (`a/b`), a dictionary key
/// hashed in one call: an array of bytes hashes itself byte by byte, which
/// took an unpack of 20,000 files tens of milliseconds on its reading thread.
struct PathKey: Hashable {
    var bytes: [UInt8]

    init(_ names: some Collection<EntryName>) {
        bytes = []
        bytes.reserveCapacity(names.reduce(names.count) { $0 + $1.text.utf8.count })
        for name in names {
            if !bytes.isEmpty { bytes.append(UInt8(ascii: "/")) }
            bytes.append(contentsOf: name.text.utf8)
        }
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// The path as text, for messages.
    var display: String { PathDisplay.text(bytes) }
}
