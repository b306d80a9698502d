/// A zip member's compression method (APPNOTE 4.4.5): the ones a member may
/// have and still be read, those libarchive 3.6.2 decodes. A record keeps
/// the method as stored; a method not here (Deflate64, implode, shrink,
/// WinZip AES...) makes the member unreadable, for libarchive too.
enum ZipCompressionMethod: UInt16, Sendable {
    case stored = 0, deflated = 8, bzip2 = 12, lzma = 14, zstd = 93, xz = 95, ppmd = 98
}
