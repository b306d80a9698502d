import CArchive
import FileWrapperKit

/// The libarchive this module is linked with.
public enum ArchiveLibrary {
    /// libarchive's version string, such as `libarchive 3.6.2 zlib/1.2.13 ...`.
    public static var versionDetails: String {
        String(cString: archive_version_details())
    }

    /// The library that inflates deflate data (zip members, gzip streams)
    /// and its version: "ISA-L 2.30.0" when the build found libisal-dev,
    /// "zlib 1.2.13" otherwise.
    public static var inflater: String {
        RawInflater.library
    }

    /// libarchive's version number, such as 3006002 for 3.6.2.
    public static var versionNumber: Int {
        Int(archive_version_number())
    }
}
