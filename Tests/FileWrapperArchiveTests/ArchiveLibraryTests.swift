import FileWrapperArchive
import Testing

/// The system libarchive is found through pkg-config, linked and callable.
@Suite struct ArchiveLibraryTests {
    @Test func linksDebiansLibarchive() {
        #expect(ArchiveLibrary.versionNumber >= 3_006_000, "libarchive \(ArchiveLibrary.versionNumber) is older than Debian bookworm's 3.6.2")
        #expect(ArchiveLibrary.versionDetails.hasPrefix("libarchive 3."))
    }
}
