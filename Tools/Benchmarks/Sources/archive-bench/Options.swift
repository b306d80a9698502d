import BenchSupport
import Foundation

/// What an archive-bench run was asked to do, parsed from the command line.
struct Options {
    static let usage = """
        usage: archive-bench [options]

        Compares the release wrapinspect with the tools our users would otherwise pick,
        every operation a child process, interleaved: packing and unpacking the
        workloads of gen.py as tar, tar.gz, tar.zst and zip against GNU tar, bsdtar,
        Info-ZIP zip/unzip, ZIPFoundation and `cp -a`, and snapshotting them against
        `find | xargs -P2 sha256sum`; runs bundle-bench for FileWrapper's saves. Prints
        the targets of issue 6 (met or missed), the medians of time and peak memory,
        and the archives' sizes. Tools/run-benchmark.sh builds everything and runs it.
        --small measures w1 and w3 only, unless --workloads is given.

        \(CommonOptions.usage)
          --formats LIST      comma-separated: tar, tar.gz, tar.zst, zip, snapshot (the
                              manifest against sha256sum), bundle (bundle-bench on w1
                              and w2), shapes (the hostile archives of issue 20 from
                              Tools/make-deep-archives.py, ours against bsdtar, as many
                              rounds as w2; no workload), diff (`diff -p` of w1 and w2
                              against an edited copy, beside `git diff --no-index
                              --stat` and `diff -r`), zip-document (w4 zipped: opened
                              as a FileWrapper, one member read, one member changed
                              and saved, beside ZIPFoundation, `unzip -p` and `cp`);
                              default all
          --wrapinspect PATH  ours (default: .build/release/wrapinspect in the repository,
                              which Tools/run-benchmark.sh builds)
          --zipfoundation-zip PATH
                              the ZIPFoundation peer (default: its release build in
                              Tools/ZIPFoundationPeer, which Tools/run-benchmark.sh builds);
                              zipfoundation-open and zipfoundation-replace beside it
        """

    var common = CommonOptions()
    var suites = Suite.allCases
    var wrapinspect = repositoryRoot.appendingPathComponent(".build/release/wrapinspect").path
    var zipFoundationZip = repositoryRoot.appendingPathComponent("Tools/ZIPFoundationPeer/.build/release/zipfoundation-zip").path
    /// The ZIPFoundation peers of the zip-document rows, built beside `zipFoundationZip`.
    var zipFoundationOpen: String { URL(fileURLWithPath: zipFoundationZip).deletingLastPathComponent().appendingPathComponent("zipfoundation-open").path }
    var zipFoundationReplace: String { URL(fileURLWithPath: zipFoundationZip).deletingLastPathComponent().appendingPathComponent("zipfoundation-replace").path }

    init(parsing commandLine: [String]) throws {
        var arguments = Arguments(commandLine, usage: Self.usage)
        while let argument = arguments.next() {
            if try common.take(argument, from: &arguments) { continue }
            switch argument {
            case "--formats": suites = try arguments.list(of: argument)
            case "--wrapinspect": wrapinspect = try arguments.path(of: argument)
            case "--zipfoundation-zip": zipFoundationZip = try arguments.path(of: argument)
            case "--help", "-h": print(Self.usage); exit(0)
            default: throw arguments.unknown(argument)
            }
        }
        if common.small && !common.namesWorkloads { common.workloads = [.w1, .w3] }
        var programs = [wrapinspect]
        if suites.contains(.zip) { programs.append(zipFoundationZip) }
        if suites.contains(.zipDocument) { programs += [zipFoundationOpen, zipFoundationReplace] }
        for program in programs where !FileManager.default.isExecutableFile(atPath: program) {
            throw BenchError("no program at \(program): build it as Tools/run-benchmark.sh does, or name another")
        }
    }
}
