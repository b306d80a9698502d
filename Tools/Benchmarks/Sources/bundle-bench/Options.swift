import BenchSupport
import Foundation

/// What a bundle-bench run was asked to do, parsed from the command line.
struct Options {
    static let usage = """
        usage: bundle-bench [options]

        Times FileWrapperKit in this process against `cp -a` and against itself: w1
        opened and written, w2 saved in full and incrementally after a 1 KiB change,
        and the peak memory of opening w2. Tools/run-benchmark.sh runs it as part of
        archive-bench's run; alone, it prints its own report.

        \(CommonOptions.usage)
          --skip-immediate    do not measure opening with .immediate
        """

    var common = CommonOptions()
    var measuresImmediate = true

    init(parsing commandLine: [String]) throws {
        var arguments = Arguments(commandLine, usage: Self.usage)
        while let argument = arguments.next() {
            if try common.take(argument, from: &arguments) { continue }
            switch argument {
            case "--skip-immediate": measuresImmediate = false
            case "--help", "-h": print(Self.usage); exit(0)
            default: throw arguments.unknown(argument)
            }
        }
    }
}
