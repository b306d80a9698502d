import ArgumentParser
import FileWrapperArchive
import FileWrapperKit
import Foundation

/// `wrapinspect verify PATH`: does the tree survive a bundle and each archive format?
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Round-trip a bundle or archive through a bundle and each archive format, and compare.",
        discussion: """
            PATH is read into a FileWrapper, written as a bundle and as each \
            archive format asked for (default: bundle, zip, pax tar and tar.zst, \
            the forms documents travel in; --via all for every one), read \
            back, and compared entry by entry with the original, under what each \
            form can keep: zip, ustar, GNU tar and cpio keep times to the second \
            and 7z to 100 ns; zip and 7z keep no owners, nor the root \
            directory's own mode and time; archives keep no extended attributes. \
            The table says which of these applied. Anything else that changes is \
            a loss, printed under its form.

            Exit status: 0 when every form keeps the tree, 1 when one loses \
            something, 2 on trouble.

            Examples:
              wrapinspect verify Travel.journal
              wrapinspect verify --via zip,tar.zst Travel.journal
              wrapinspect verify --json Travel.journal.zip
            """
    )

    @Argument(help: "The directory or archive.", completion: .file())
    var path: String

    @Option(help: ArgumentHelp("Formats to go through, separated by commas: bundle and the names pack takes (zip, tar, tar.gz, tar.zst, ustar, gnutar, cpio, 7z, ...), or all (default: bundle,zip,tar,tar.zst).", valueName: "forms"), completion: .list(["all", "bundle"] + Pack.formatNames))
    var via: String?

    @Flag(help: "Print the results as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Also write the results, the tree and its size map as one self-contained HTML page to this file.", valueName: "file"),
            completion: .file(extensions: ["html"]))
    var html: String?

    @OptionGroup var input: InputOptions

    /// The forms verified unless `--via` says otherwise: those that
    /// matter for documents, and are quick.
    static let defaultForms: [RoundTrip.Form] = [.bundle, .archive(.zip), .archive(.tar), .archive(.tarZstd)]

    /// The forms asked for, in the order given; `all` is every form written.
    func forms() throws -> [RoundTrip.Form] {
        guard let via else { return Self.defaultForms }
        if via == "all" {
            return [.bundle] + ArchiveFormat.allWritable.map { .archive($0) }
        }
        return try via.split(separator: ",").map { name in
            let name = name.trimmingCharacters(in: .whitespaces)
            if name == "bundle" { return .bundle }
            guard let format = ArchiveFormat(name: name) else {
                throw ValidationError("--via: \"\(name)\" is not a format (bundle, zip, tar, tar.gz, tar.zst, ustar, gnutar, cpio, 7z, ...).")
            }
            return .archive(format)
        }
    }

    func validate() throws {
        _ = try forms()
    }

    func run() throws {
        let options = ManifestReadOptions(formats: input.formats, limits: input.unpackingLimits)
        let forms = try forms()
        let width = forms.map(\.description.count).max() ?? 0
        let status = VerifyStatus(path: path, forms: forms)
        let results = try VerifyWorkspace.withWorkspace { workspace in
            // Standard input is copied first, with a line of its own.
            let url = try StandardInput.url(for: path, limits: options.limits)
            return try ProgressLine.showing({ _ in status.line() }) { drawing in
                try RoundTrip.check(url, through: forms, options: options, workspace: workspace,
                                    starting: status.begin) { result in
                    // Each row as its form finishes, the progress line drawn again below it.
                    guard !json else { return }
                    try drawing.erasing {
                        for line in Self.rows(result, width: width) { try StandardOutput.line(line) }
                        try StandardOutput.flush()
                    }
                }.results
            }
        }
        if json {
            try StandardOutput.line(Self.json(results, path: path).serialized)
        }
        if let html { try HtmlVerifyReport.page(results, path: path, input: input).write(to: html) }
        if results.contains(where: { !$0.keepsTree }) {
            throw ExitCode(1)
        }
    }

    /// The line of one form (`zip      kept  not kept: times to 1 s,
    /// owners`), a loss's changes indented under it; forms padded to `width`.
    static func rows(_ result: RoundTrip.Result, width: Int) -> [String] {
        let form = result.form.description.padding(toLength: width, withPad: " ", startingAt: 0)
        var line = "\(form)  \(result.keepsTree ? "kept" : "LOST")"
        if !result.notKept.isEmpty {
            line += "  (not kept by the form: \(result.notKept.joined(separator: ", ")))"
        }
        var lines = [line]
        if let failure = result.failure {
            lines.append("    " + failure)
        } else if let diff = result.diff, !diff.isEmpty {
            lines += DiffRendering(diff: diff).textLines(colored: false).map { "    " + $0 }
        }
        return lines
    }

    static func json(_ results: [RoundTrip.Result], path: String) -> JSONValue {
        .object([
            ("version", .number(2)),
            ("path", .string(path)),
            ("results", .array(results.map { result in
                var members: [(String, JSONValue)] = [
                    ("form", .string(result.form.description)),
                    ("kept", .bool(result.keepsTree)),
                    ("notKept", .array(result.omissions.map { .string($0.rawValue) })),
                    ("timeResolution", .number(result.form.timeResolution)),
                ]
                if let failure = result.failure {
                    members.append(("failure", .string(failure)))
                }
                if let diff = result.diff, !diff.isEmpty {
                    members.append(("changes", .number(Int64(diff.changes.count))))
                }
                return .object(members)
            })),
        ])
    }
}
