import Foundation
import Testing
import TestSupport

/// Every writer replaces through `PendingReplacement`, and what reaches the
/// disk before it reports success is its ``Durability``, the same wherever
/// it is asked for: the new item's data (`fsync` of the file, or `syncfs`
/// for a tree) before the swap, the directory's entry (`fsync` of the
/// parent) after it. Unpacks leave both to the kernel, as tar does. Seen
/// with strace (`-y` names each descriptor's file), in the built programs;
/// a SIGKILL test cannot see it, since the kernel keeps what a killed
/// process wrote, but a power cut can.
@Suite(.startsProcesses) struct DurabilityTests {
    enum DataSync: Sendable {
        /// `fsync` of the temporary file.
        case file
        /// `syncfs` of the file system holding the temporary tree.
        case fileSystem
        /// No sync at all (``Durability/deferred``).
        case none
    }

    struct Writer: Sendable, CustomTestStringConvertible {
        var label: String
        var program: String
        var arguments: [String]
        /// The name in the test's directory that the writer replaces.
        var replaced: String
        var sync: DataSync
        /// Whether it replaces a file (else a directory holding `a.txt`).
        var replacesFile = true

        var testDescription: String { label }
    }

    static let writers = [
        Writer(label: "FileWrapper atomic save", program: "fwk-test-child", arguments: ["save", "src", "saved"], replaced: "saved", sync: .fileSystem,
               replacesFile: false),
        Writer(label: "archive", program: "fwk-test-child", arguments: ["pack", "zip", "src", "out.zip"], replaced: "out.zip", sync: .file),
        Writer(label: "archive, durability .deferred", program: "fwk-test-child", arguments: ["pack", "zip", "src", "out.zip", "--deferred"],
               replaced: "out.zip", sync: .none),
        Writer(label: "zip edited (ZipContainer's writer)", program: "fwk-test-child", arguments: ["edit-zip", "doc.zip", "b.txt", "src/a.txt"],
               replaced: "doc.zip", sync: .file),
        Writer(label: "zip edited, durability .deferred", program: "fwk-test-child", arguments: ["edit-zip", "doc.zip", "b.txt", "src/a.txt", "--deferred"],
               replaced: "doc.zip", sync: .none),
        Writer(label: "manifest", program: "wrapinspect", arguments: ["snapshot", "src", "-o", "snapshot.json"], replaced: "snapshot.json", sync: .file),
        Writer(label: "document saved in place", program: "fwk-test-child", arguments: ["save-document", "src", "Doc.pkg"], replaced: "Doc.pkg", sync: .fileSystem,
               replacesFile: false),
        Writer(label: "unpack", program: "fwk-test-child", arguments: ["unpack", "in.tar", "unpacked", "--force"], replaced: "unpacked", sync: .none,
               replacesFile: false),
    ]

    @Test(arguments: writers)
    func syncsWhatItsDurabilityAsksBeforeSuccess(_ writer: Writer) throws {
        let directory = try TemporaryDirectory()
        let parent = directory.url.resolvingSymlinksInPath().path
        try Disk.write("new contents\n", to: directory.appending("src/a.txt"))
        for old in ["saved", "Doc.pkg", "unpacked"] {
            try Disk.write("old contents\n", to: directory.appending("\(old)/a.txt"))
        }
        for old in ["out.zip", "snapshot.json"] {
            try Disk.write("old\n", to: directory.appending(old))
        }
        let child = Disk.productsDirectory.appendingPathComponent("fwk-test-child").path
        try #require(try ChildProcess.run(child, ["pack", "tar", "src", "in.tar"], in: directory.url).status == 0)
        try #require(try ChildProcess.run(child, ["pack", "zip", "src", "doc.zip"], in: directory.url).status == 0)
        let before = writer.replacesFile ? try Data(contentsOf: directory.appending(writer.replaced)) : nil

        let program = try #require(BuiltProgram.url(of: writer.program)).path
        let sanitizerOptions = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let result = try ChildProcess.run("/usr/bin/env", [
            "ASAN_OPTIONS=\(sanitizerOptions)detect_leaks=0", "strace", "-f", "-qq", "-y",
            "-e", "trace=fsync,fdatasync,syncfs,rename,renameat,renameat2", "-o", "trace.txt",
            program,
        ] + writer.arguments, in: directory.url)
        try #require(result.status == 0, "\(result.stderr)")
        if let before {
            #expect(try Data(contentsOf: directory.appending(writer.replaced)) != before)
        } else {
            #expect(try String(contentsOf: directory.appending("\(writer.replaced)/a.txt"), encoding: .utf8) == "new contents\n")
        }

        // Lines as `PID CALL(ARGUMENTS) = RESULT`; the successful ones.
        let calls = try String(contentsOf: directory.appending("trace.txt"), encoding: .utf8)
            .split(separator: "\n").filter { $0.hasSuffix(" = 0") }
        let name = { (index: Int) in calls[index].drop { $0 != " " }.drop { $0 == " " }.prefix { $0 != "(" } }
        let syncs = calls.indices.filter { name($0).hasSuffix("sync") || name($0) == "syncfs" }
        guard writer.sync != .none else {
            #expect(syncs.isEmpty, "\(syncs.map { calls[$0] })")
            return
        }
        let temporaryPrefix = ".\(writer.replaced).fwk-save-"
        let swap = try #require(calls.indices.first { name($0).hasPrefix("rename") && calls[$0].contains(", \"\(temporaryPrefix)") && calls[$0].contains(", \"\(writer.replaced)\"") },
                                "no rename into \(writer.replaced): \(calls)")
        let dataSynced = syncs.contains { index in
            guard index < swap else { return false }
            switch writer.sync {
            case .file: return name(index) == "fsync" && calls[index].contains("/\(temporaryPrefix)")
            case .fileSystem: return name(index) == "syncfs"
            case .none: return false
            }
        }
        #expect(dataSynced, "the new \(writer.replaced) reaches the disk before the swap: \(calls)")
        let entrySynced = syncs.contains { $0 > swap && name($0) == "fsync" && calls[$0].hasSuffix("<\(parent)>) = 0") }
        #expect(entrySynced, "the swap reaches the disk (fsync of \(parent)) after it: \(calls)")
    }
}
