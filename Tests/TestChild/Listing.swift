import FileWrapperArchive
import Foundation

/// `list ARCHIVE`: prints the path of each entry, one a line in archive
/// order, as ``ArchiveEntry/displayPath`` shows it (`\xFF` for a byte that
/// is not UTF-8, `\u{A}` for a control character, `\\` for a backslash),
/// reading every entry's contents to its end; `--all-formats` reads every
/// format libarchive reads, not only the default ones; `--headers-only`
/// skips the contents, as `bsdtar -t` does.
func list(_ arguments: [String], _ flags: Set<String>) throws {
    let formats: ArchiveReadFormats = flags.contains("--all-formats") ? .all : .standard
    let url = URL(fileURLWithPath: arguments[0])
    try ArchiveEntries.forEach(in: url, formats: formats, checkingContents: !flags.contains("--headers-only")) { entry, _ in
        print(entry.displayPath)
    }
}
