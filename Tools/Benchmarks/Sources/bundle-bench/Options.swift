import Foundation

/// What a benchmark run was asked to do, parsed from the command line.
struct Options {
    static let usage = """
        usage: bundle-bench [options]

        Times FileWrapperKit against `cp -a` and itself, and prints medians side by side.

          --work DIR          where the workloads are generated once and reused
                              (default: a fresh directory under /tmp, removed at the end)
          --generator PATH    the workload generator, gen.py
                              (default: ../shared/bench/gen.py from the repository root)
          --repeat N          timed runs of the 20,000-file workload (default 5)
          --repeat-large N    timed runs of the 1 GiB workload (default 3)
          --small             one timed run of each, to check that everything works
          --skip-immediate    do not measure opening with .immediate
          --markdown          print the results as Markdown
        """

    var workDirectory: String?
    var generator = Options.defaultGenerator
    var repetitions = 5
    var largeRepetitions = 3
    var measuresImmediate = true
    var markdown = false

    /// `../shared/bench/gen.py` beside the repository that holds this file.
    static var defaultGenerator: String {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // bundle-bench
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // Benchmarks
            .deletingLastPathComponent()  // Tools
            .deletingLastPathComponent()
        return repository.appendingPathComponent("../shared/bench/gen.py").standardizedFileURL.path
    }

    init(parsing arguments: [String]) throws {
        var rest = arguments[...]
        func value(of option: String) throws -> String {
            guard let value = rest.popFirst() else { throw BenchError("\(option) needs a value\n\n\(Self.usage)") }
            return value
        }
        func count(of option: String) throws -> Int {
            let text = try value(of: option)
            guard let count = Int(text), count > 0 else { throw BenchError("\(option) needs a positive number, not \(text)") }
            return count
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--work": workDirectory = try value(of: argument)
            case "--generator": generator = try value(of: argument)
            case "--repeat": repetitions = try count(of: argument)
            case "--repeat-large": largeRepetitions = try count(of: argument)
            case "--small": (repetitions, largeRepetitions) = (1, 1)
            case "--skip-immediate": measuresImmediate = false
            case "--markdown": markdown = true
            case "--help", "-h": print(Self.usage); exit(0)
            default: throw BenchError("unknown argument \(argument)\n\n\(Self.usage)")
            }
        }
    }
}

/// A failure, told in a sentence.
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
