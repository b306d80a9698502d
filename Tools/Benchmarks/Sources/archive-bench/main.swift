import Foundation

// archive-bench: packing and unpacking the workloads of gen.py with
// FileWrapperArchive, bsdtar and zip/unzip. See `archive-bench --help` and
// RESULTS.md.

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if let subcommand = arguments.first, let child = Child(rawValue: subcommand) {
        try child.run(Array(arguments.dropFirst()))
        exit(0)
    }
    let options = try Options(parsing: arguments)
    let work = options.workDirectory ?? FileManager.default.temporaryDirectory
        .appendingPathComponent("archive-bench-\(UUID().uuidString)").path
    defer { if options.workDirectory == nil { try? Shell.remove(work) } }
    var report = try Benchmark(options: options, work: work).run()
    report.command = Shell.quoted(CommandLine.arguments)
    print(options.markdown ? report.markdown : report.text)
} catch {
    log("\(error)")
    exit(2)
}
