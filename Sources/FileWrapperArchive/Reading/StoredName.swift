/// A name as the archive stores it, taken over the one libarchive gives
/// only when the two are the same name. libarchive 3.6.2 converts pax,
/// UTF-8 zip and 7z names to Unicode NFC, which keeps a name canonically
/// equivalent and changes its bytes; it also changes zip names otherwise
/// (a directory's `/` appended, a DOS zip's `\` made `/`), which stays.
/// Stored bytes that are not canonically equivalent to libarchive's name,
/// which would mean they were read from the wrong place, are never taken.
enum StoredName {
    /// `stored` where it is `converted` byte for byte, or canonically
    /// equivalent to it (with the `/` libarchive appends to a directory's
    /// name); else `converted`.
    static func choose(stored: [UInt8], converted: [UInt8]) -> [UInt8] {
        if stored == converted { return stored }
        guard let storedText = String(validating: stored, as: UTF8.self),
              let convertedText = String(validating: converted, as: UTF8.self)
        else { return converted }
        // Swift's String == is canonical equivalence: the one place it is wanted.
        if storedText == convertedText { return stored }
        if converted.last == UInt8(ascii: "/"), stored.last != UInt8(ascii: "/"), storedText + "/" == convertedText {
            return stored + [UInt8(ascii: "/")]
        }
        return converted
    }
}
