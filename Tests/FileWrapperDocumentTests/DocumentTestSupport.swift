import FileWrapperDocument
import Foundation
import Glibc
import TestSupport

/// The declaration files of `Fixtures/Documents`, and the notes types
/// registered once for the whole test process (registration is global).
enum DocumentFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Documents")

    static func url(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// Registers `Notes-Info.plist`; every test that finds the notes types
    /// by extension calls this first.
    static func registerNotesTypes() {
        _ = notesRegistration
    }

    private static let notesRegistration: Void = {
        try! UTType.registerDeclarations(contentsOf: url("Notes-Info.plist"))
    }()

    /// A notes document with `count` notes, `note-0` to `note-<count-1>`.
    static func notes(_ count: Int) -> NotesDocument {
        var document = NotesDocument(title: "Test notes")
        for index in 0..<count {
            document.setNote("note-\(index)", "Note \(index): " + String(repeating: "text \(index) ", count: 50))
        }
        return document
    }
}

extension Disk {
    /// Contents of the file at `url` as text.
    static func text(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    /// The status of `url` without following a final symlink.
    static func status(_ url: URL) -> stat {
        var info = stat()
        lstat(url.path, &info)
        return info
    }
}
