import FileWrapperArchive
import FileWrapperDocument
import FileWrapperKit
import Foundation
import Glibc
import Testing
import TestSupport

/// 16 tasks at once, for 5 rounds each (every archive format in turn),
/// pack, unpack, hash and save documents whose names are not ASCII (é
/// composed and decomposed, Japanese, emoji), every task its own tree.
/// libarchive handles belong to one call and the UTF-8 locale libarchive
/// needs is set per thread, while tasks move between threads at every
/// `await`: every result is checked exactly (the tree digest, which covers
/// names byte for byte; unpacked trees equal to their sources; reopened
/// documents equal to what was saved), and after every operation the
/// thread is back in the process's locale. Names are written to archives
/// and read from them as given, so every form of a tree, and every tree
/// unpacked from one, has the source's digest.
@Suite struct ConcurrentStressTests {
    static let tasks = 16
    static let rounds = 5
    static let formats: [(name: String, format: ArchiveFormat)] = [
        ("zip", .zip), ("tar", .tar), ("7z", .sevenZip), ("cpio", .cpio), ("tar.zst", .tarZstd),
    ]

    /// Task `task`'s names: é composed in even tasks, decomposed in odd
    /// ones (one directory never holds both, which a FileWrapper refuses).
    static func names(_ task: Int) -> [String] {
        let cafe = task.isMultiple(of: 2) ? "caf\u{E9}" : "cafe\u{301}"
        return ["\(cafe)-\(task).txt", "日本語-\(task)/メモ.txt", "📄 \(task).md", "Ünïcödé/😀/\(cafe) \(task)"]
    }

    @Test func sixteenTasksPackUnpackHashAndSaveWithoutMixingUp() async throws {
        DocumentFixtures.registerNotesTypes()
        let directory = try TemporaryDirectory()
        var sources: [URL] = []
        var digests: [SHA256Digest?] = []
        for task in 0..<Self.tasks {
            let source = directory.appending("source-\(task)")
            for name in Self.names(task) {
                let text = "\(name) of task \(task)\n" + String(repeating: "\(task) ", count: 500)
                try Disk.write(text, to: source.appendingPathComponent(name))
            }
            sources.append(source)
            digests.append(try Manifest(contentsOf: source).treeDigest)
        }
        #expect(Set(digests).count == Self.tasks)

        let work = directory.appending("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<Self.tasks {
                group.addTask { [sources, digests] in
                    var problems: [String] = []
                    for round in 0..<Self.rounds {
                        problems += try await Self.round(round, task: task, source: sources[task], digest: digests[task], in: work)
                    }
                    return problems
                }
            }
            return try await group.reduce([], +)
        }
        #expect(failures == [])
    }

    /// One round of one task: each operation, an `await` between them so
    /// that the task may go on on another thread; what went wrong, if anything.
    static func round(_ round: Int, task: Int, source: URL, digest: SHA256Digest?, in work: URL) async throws -> [String] {
        var problems: [String] = []
        func check(_ holds: Bool, _ what: String) {
            if !holds { problems.append("task \(task), round \(round): \(what)") }
            if uselocale(nil) != locale_t(bitPattern: -1) { problems.append("task \(task), round \(round): \(what) left the thread in another locale") }
        }
        let (name, format) = formats[(task + round) % formats.count]

        let archive = work.appendingPathComponent("\(task)-\(round).\(name)")
        try ArchiveWriter.write(try FileWrapper(url: source), to: archive, options: ArchiveWriteOptions(format: format))
        check(true, "packing \(name)")
        await Task.yield()
        check(try Manifest(archiveAt: archive).treeDigest == digest, "the \(name) archive's digest")
        await Task.yield()

        let unpacked = work.appendingPathComponent("\(task)-\(round)-\(name)")
        try ArchiveUnpacker.unpack(archiveAt: archive, to: unpacked)
        check(try Manifest(contentsOf: unpacked).treeDigest == digest, "the tree unpacked from \(name)'s digest")
        check(try DiskTree(unpacked).ignoringTimes == DiskTree(source).ignoringTimes, "the tree unpacked from \(name) equals its source")
        await Task.yield()

        check(try Manifest(contentsOf: source).treeDigest == digest, "the source's digest")
        check(try Manifest(FileWrapper(url: source), name: "source").treeDigest == digest, "the source's FileWrapper's digest")
        await Task.yield()

        var notes = NotesDocument(title: "ノート \(task)")
        for (index, noteName) in names(task).enumerated() {
            notes.setNote(noteName.replacingOccurrences(of: "/", with: " "), "\(noteName), task \(task), round \(round), \(index)")
        }
        let type: UTType = round.isMultiple(of: 2) ? .notesPackage : .notesArchive
        let document = work.appendingPathComponent("ノート-\(task)-\(round).\(type == .notesPackage ? "notes" : "noteszip")")
        try await DocumentController(newDocument: notes).save(to: document, contentType: type)
        check(true, "saving the document")
        let reopened = try await DocumentController<NotesDocument>(contentsOf: document, contentType: type).document
        check(reopened.index == notes.index && reopened.notes == notes.notes, "the reopened document equals what was saved")
        return problems
    }
}
