import Foundation
import Testing
import TestSupport

/// Every public function, initializer and subscript of the three libraries
/// documents its parameters, result and errors with DocC's callouts
/// (issue 34, item 6), as `Tools/check-doc-callouts.py` checks them.
@Suite(.startsProcesses) struct DocCalloutTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = repository.appendingPathComponent("Tools/check-doc-callouts.py").path

    @Test func everyPublicDeclarationHasItsCallouts() throws {
        let result = try ChildProcess.run("/usr/bin/env", ["python3", Self.script, Self.repository.path])
        #expect(result.status == 0, "add the callouts these lack:\n\(result.stdout)\(result.stderr)")
    }

    /// The check finds each kind of gap, and passes what is complete, in a
    /// package made here.
    @Test func theCheckNamesWhatACommentLacks() throws {
        let directory = try TemporaryDirectory()
        let sources = directory.appending("Sources/FileWrapperKit")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        let code = """
            public protocol Shape { func area(scale: Double) -> Double }
            public struct Square: Hashable {
                /// Complete.
                ///
                /// - Parameters:
                ///   - side: The side.
                ///   - unit: The unit.
                /// - Returns: The area.
                /// - Throws: Never.
                public func area(of side: Double, unit: String) throws -> Double { side * side }
                /// Lacks its parameter and its result.
                public static func make(_ side: Double) -> Square { Square() }
                /// Names a parameter that does not exist, and lacks `- Throws:`.
                ///
                /// - Parameter size: The size.
                public init(side: Double) throws {}
                public static func == (lhs: Square, rhs: Square) -> Bool { true }
                public func hash(into hasher: inout Hasher) {}
                func hidden(_ x: Int) -> Int { x }
            }
            """
        try Data(code.utf8).write(to: sources.appendingPathComponent("Square.swift"))
        let result = try ChildProcess.run("/usr/bin/env", ["python3", Self.script, directory.url.path])
        #expect(result.status == 1)
        #expect(result.stdout.split(separator: "\n") == [
            "FileWrapperKit/Square.swift:12: func make: no `- Parameter` for side",
            "FileWrapperKit/Square.swift:12: func make: no `- Returns:`",
            "FileWrapperKit/Square.swift:16: init: no `- Parameter` for side",
            "FileWrapperKit/Square.swift:16: init: `- Parameter` for no parameter: size",
            "FileWrapperKit/Square.swift:16: init: no `- Throws:`",
        ])
    }
}
