import Foundation

// bundle-bench: FileWrapperKit against `cp -a` and against itself, on the
// workloads of gen.py. See `bundle-bench --help` and RESULTS.md.

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == OpenChild.subcommand {
        try OpenChild.run(Array(arguments.dropFirst()))
        exit(0)
    }
    let options = try Options(parsing: arguments)
    let work = options.workDirectory ?? FileManager.default.temporaryDirectory
        .appendingPathComponent("bundle-bench-\(UUID().uuidString)").path
    defer { if options.workDirectory == nil { try? Shell.remove(work) } }
    var report = try Benchmark(options: options, work: work).run()
    report.command = Shell.quoted(CommandLine.arguments)
    print(options.markdown ? report.markdown : report.text)
} catch {
    log("\(error)")
    exit(2)
}
