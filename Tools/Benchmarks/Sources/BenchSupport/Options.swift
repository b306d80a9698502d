import Foundation

/// The command line, taken one argument at a time.
package struct Arguments {
    private var rest: ArraySlice<String>
    /// Printed after a mistake.
    private let usage: String

    package init(_ arguments: [String], usage: String) {
        rest = arguments[...]
        self.usage = usage
    }

    package mutating func next() -> String? {
        rest.popFirst()
    }

    /// The value that follows `option`.
    package mutating func value(of option: String) throws -> String {
        guard let value = rest.popFirst() else { throw BenchError("\(option) needs a value\n\n\(usage)") }
        return value
    }

    /// A path made absolute, because the operations run in directories of
    /// their own.
    package mutating func path(of option: String) throws -> String {
        URL(fileURLWithPath: try value(of: option)).standardizedFileURL.path
    }

    package mutating func count(of option: String) throws -> Int {
        let text = try value(of: option)
        guard let count = Int(text), count > 0 else { throw BenchError("\(option) needs a positive number, not \(text)") }
        return count
    }

    /// A comma-separated list of names of `Item`, in `Item`'s order
    /// whatever order they were named in.
    package mutating func list<Item: RawRepresentable & CaseIterable>(of option: String) throws -> [Item] where Item.RawValue == String {
        let names = try value(of: option).split(separator: ",").map(String.init)
        let items = try names.map { name in
            guard let item = Item(rawValue: name) else {
                throw BenchError("\(option): unknown \(name); choose from \(Item.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return item
        }
        guard !items.isEmpty else { throw BenchError("\(option) needs at least one name") }
        return Item.allCases.filter { item in items.contains { $0.rawValue == item.rawValue } }
    }

    package func unknown(_ argument: String) -> BenchError {
        BenchError("unknown argument \(argument)\n\n\(usage)")
    }
}

/// The options archive-bench and bundle-bench share.
package struct CommonOptions {
    package static let usage = """
          --work DIR          where the workloads are generated once and reused, and
                              where copies, archives and unpacked trees go during the
                              run (default: a fresh directory under /tmp, removed at
                              the end)
          --generator PATH    the workload generator, gen.py
                              (default: ../shared/bench/gen.py from the repository root)
          --workloads LIST    comma-separated: w1 (20,000 small files), w2 (1 GiB in
                              8 files), w3 (a 300-file document), w4 (the tree of a
                              1 GiB zip document of 2,000 members: archive-bench's
                              zip-document rows only); default w1,w2,w3,w4
          --repeat N          timed runs of w1 and w3 (default 5)
          --repeat-large N    timed runs of w2 and w4 (default 3)
          --small             a quick check that everything works: one timed run of each
          --markdown          print the results as Markdown
          --json              print the results as JSON
        """

    package var workDirectory: String?
    package var generator = repositoryRoot.appendingPathComponent("../shared/bench/gen.py").standardizedFileURL.path
    package var workloads = WorkloadName.allCases
    /// Whether --workloads was given, so that --small keeps them.
    package var namesWorkloads = false
    package var small = false
    package var repetitions = 5
    package var largeRepetitions = 3
    package var style = ReportStyle.text

    package init() {}

    /// Takes `argument`, and its value from `arguments`, if it is one of
    /// these options; returns whether it was.
    package mutating func take(_ argument: String, from arguments: inout Arguments) throws -> Bool {
        switch argument {
        case "--work": workDirectory = try arguments.path(of: argument)
        case "--generator": generator = try arguments.path(of: argument)
        case "--workloads": workloads = try arguments.list(of: argument); namesWorkloads = true
        case "--repeat": repetitions = try arguments.count(of: argument)
        case "--repeat-large": largeRepetitions = try arguments.count(of: argument)
        case "--small": (repetitions, largeRepetitions, small) = (1, 1, true)
        case "--markdown": style = .markdown
        case "--json": style = .json
        default: return false
        }
        return true
    }

    /// Timed runs of `workload`.
    package func repetitions(of workload: WorkloadName) -> Int {
        workload == .w2 || workload == .w4 ? largeRepetitions : repetitions
    }
}

/// Runs `measure` in the work directory `options` name (or a fresh one
/// under /tmp, removed at the end) and prints its report in their style.
package func runBenchmark(_ options: CommonOptions, _ measure: (Work) throws -> Report) throws {
    let root = options.workDirectory ?? FileManager.default.temporaryDirectory
        .appendingPathComponent("bench-\(UUID().uuidString)").path
    defer { if options.workDirectory == nil { try? Shell.remove(root) } }
    var report = try measure(Work(root: root))
    report.command = Shell.quoted(CommandLine.arguments)
    print(try report.printed(as: options.style))
}
