import ArgumentParser
import FileWrapperKit
import Foundation
import Glibc

/// `wrapinspect versions DOC`: the versions a document's saves kept
/// (FileWrapperDocument's `DocumentVersionPolicy`), read from its versions
/// folder, `.<name>.fwk-versions` beside it.
struct Versions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List the versions a document's saves kept: their ids, dates and the bytes only each holds.",
        discussion: """
            A document whose controller keeps versions keeps, at each save, \
            the version the save replaced, in the folder .NAME.fwk-versions \
            beside it (docs/versions.md). One line per version, oldest first: \
            its id (the UTC time of the save that kept it, which diff \
            --versions-of takes), its date, and the bytes on disk only it \
            holds (files a later version changed; unchanged files are hard \
            links shared with the document), then a summary. Listed without \
            the document's lock: a version a save prunes meanwhile is left out.

            Examples:
              wrapinspect versions Travel.journal
              wrapinspect diff --versions-of Travel.journal 20261202T133316.123456789Z current
            """
    )

    @Argument(help: "The document.", completion: .file())
    var document: String

    @Flag(help: "Print one JSON object for programs instead of text.")
    var json = false

    func run() throws {
        let listed = try Self.list(document)
        if json {
            let versions = listed.map { entry, size in
                JSONValue.object([("id", .string(entry.id)), ("date", .string(Self.date(of: entry))), ("size", .number(size)),
                                  ("path", .string(entry.path))])
            }
            try StandardOutput.line(JSONValue.object([("version", .number(1)), ("document", .string(document)), ("versions", .array(versions))]).serialized)
            return
        }
        for (entry, size) in listed {
            try StandardOutput.line("\(entry.id)  \(Self.date(of: entry))  \(Format.size(size))")
        }
        let total = listed.reduce(Int64(0)) { $0 + $1.size }
        try StandardOutput.line("\(Format.count(Int64(listed.count), "version", "versions")), \(Format.size(total)) on disk")
    }

    /// The versions of `document` and the bytes each costs, leaving out
    /// one removed while listed. Refused when there is neither the
    /// document nor a versions folder.
    static func list(_ document: String) throws -> [(entry: VersionStore.Entry, size: Int64)] {
        let folder = VersionStore.folderPath(ofDocumentAt: document)
        guard Syscall.statusIfPresent(of: document, in: AT_FDCWD) != nil || Syscall.statusIfPresent(of: folder, in: AT_FDCWD) != nil else {
            throw VersionsRefused(message: "\(document): no such document, and no versions of one (\(folder))")
        }
        return try VersionStore.entries(ofDocumentAt: document).compactMap { entry in
            do throws(FileWrapperError) {
                return (entry, try VersionStore.cost(of: entry))
            } catch where error.errno == .noSuchFileOrDirectory {
                return nil
            }
        }
    }

    /// The path of `name` among the versions of `document`: `current` is
    /// the document itself, anything else a version's id.
    static func path(of name: String, ofDocument document: String) throws -> String {
        if Array(name.utf8) == Array("current".utf8) { return document }
        guard let entry = try VersionStore.entry(name, ofDocumentAt: document) else {
            throw VersionsRefused(message: "\(document) has no version \(Format.name(name.utf8)) (wrapinspect versions \(document) lists them; current is the document)")
        }
        return entry.path
    }

    /// `YYYY-MM-DDThh:mm:ss.nnnnnnnnnZ` from the id `YYYYMMDDThhmmss.nnnnnnnnnZ`.
    static func date(of entry: VersionStore.Entry) -> String {
        let id = Array(entry.id)
        return String(id[0..<4]) + "-" + String(id[4..<6]) + "-" + String(id[6..<11]) + ":" + String(id[11..<13]) + ":" + String(id[13...])
    }
}

/// A document's versions cannot be listed or named as asked.
struct VersionsRefused: Error, LocalizedError {
    var message: String
    var errorDescription: String? { message }
}
