import Foundation

/// What a benchmark run was asked to do, parsed from the command line.
struct Options {
    static let usage = """
        usage: archive-bench [options]

        Packs and unpacks the workloads of gen.py as tar, tar.gz, tar.zst and zip with
        FileWrapperArchive, bsdtar and zip/unzip, every operation a child process, and
        prints the medians of time and peak memory with their ratios to bsdtar.

          --work DIR          where the workloads are generated once and reused, and
                              where archives and unpacked trees go during the run
                              (default: a fresh directory under /tmp, removed at the end)
          --generator PATH    the workload generator, gen.py
                              (default: ../shared/bench/gen.py from the repository root)
          --workloads LIST    comma-separated: w1 (20,000 small files), w2 (1 GiB in
                              8 files), w3 (a 300-file document); default w1,w2,w3
          --formats LIST      comma-separated: tar, tar.gz, tar.zst, zip; default all
          --repeat N          timed runs of w1 and w3 (default 5)
          --repeat-large N    timed runs of w2 (default 3)
          --small             a quick check that everything works: one timed run of
                              each, and only w1 and w3 unless --workloads is given
          --markdown          print the results as Markdown
        """

    var workDirectory: String?
    var generator = Options.defaultGenerator
    var workloads = WorkloadName.allCases
    var formats = BenchFormat.allCases
    var repetitions = 5
    var largeRepetitions = 3
    var markdown = false

    /// `../shared/bench/gen.py` beside the repository that holds this file.
    static var defaultGenerator: String {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // archive-bench
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // Benchmarks
            .deletingLastPathComponent()  // Tools
            .deletingLastPathComponent()
        return repository.appendingPathComponent("../shared/bench/gen.py").standardizedFileURL.path
    }

    init(parsing arguments: [String]) throws {
        var rest = arguments[...]
        var small = false
        var namesWorkloads = false
        func value(of option: String) throws -> String {
            guard let value = rest.popFirst() else { throw BenchError("\(option) needs a value\n\n\(Self.usage)") }
            return value
        }
        func count(of option: String) throws -> Int {
            let text = try value(of: option)
            guard let count = Int(text), count > 0 else { throw BenchError("\(option) needs a positive number, not \(text)") }
            return count
        }
        func list<Item: RawRepresentable & CaseIterable>(of option: String) throws -> [Item] where Item.RawValue == String {
            let names = try value(of: option).split(separator: ",").map(String.init)
            let items = try names.map { name in
                guard let item = Item(rawValue: name) else {
                    throw BenchError("\(option): unknown \(name); choose from \(Item.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return item
            }
            guard !items.isEmpty else { throw BenchError("\(option) needs at least one name") }
            // In the usual order, whatever order they were named in.
            return Item.allCases.filter { item in items.contains { $0.rawValue == item.rawValue } }
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--work": workDirectory = try value(of: argument)
            case "--generator": generator = try value(of: argument)
            case "--workloads": workloads = try list(of: argument); namesWorkloads = true
            case "--formats": formats = try list(of: argument)
            case "--repeat": repetitions = try count(of: argument)
            case "--repeat-large": largeRepetitions = try count(of: argument)
            case "--small": small = true
            case "--markdown": markdown = true
            case "--help", "-h": print(Self.usage); exit(0)
            default: throw BenchError("unknown argument \(argument)\n\n\(Self.usage)")
            }
        }
        if small {
            (repetitions, largeRepetitions) = (1, 1)
            if !namesWorkloads { workloads = [.w1, .w3] }
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
