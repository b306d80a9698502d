// readme-example-extract: the Swift code blocks of README.md, for the
// ReadmeExamples build plugin (which compiles each example into a program
// of its own) and for ReadmeExampleTests (which runs them).
//
// Every ```swift block of the README is preceded, on the last line that is
// not blank, by a marker that says what it is:
//
//   <!-- example NAME -->           compiled as the program readme-example-NAME
//   <!-- example NAME runnable -->  compiled, and run by ReadmeExampleTests
//   <!-- manifest -->               a Package.swift, checked as a manifest
//
// Usage:
//   readme-example-extract list README.md              one line a block: LINE KIND NAME
//   readme-example-extract write README.md NAME FILE   the block NAME (or `manifest`) into FILE
//
// Errors name the README's line, as a compiler's do, and exit 1, so that a
// block without a marker fails the build.
import Foundation

/// A ```swift block of the README and its marker.
struct Block {
    enum Kind: String {
        case example, runnable, manifest
    }

    var kind: Kind
    var name: String
    /// The line number (from 1) of the block's first line of code.
    var firstLine: Int
    var code: String
}

struct ReadmeError: Error {
    var message: String
}

/// Every ```swift block of `text`, with its marker; an error for a block
/// without one, a malformed marker or a name used twice.
func blocks(of text: String, path: String) throws -> [Block] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var result: [Block] = []
    var index = 0
    while index < lines.count {
        let line = lines[index].trimmingCharacters(in: .whitespaces)
        guard line.hasPrefix("```") else {
            index += 1
            continue
        }
        let language = line.dropFirst(3)
        // The fence's end.
        var end = index + 1
        while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" { end += 1 }
        guard end < lines.count else {
            throw ReadmeError(message: "\(path):\(index + 1): error: the code block is not closed")
        }
        if language == "swift" {
            var markerIndex = index - 1
            while markerIndex >= 0, lines[markerIndex].trimmingCharacters(in: .whitespaces).isEmpty { markerIndex -= 1 }
            let marker = markerIndex >= 0 ? lines[markerIndex].trimmingCharacters(in: .whitespaces) : ""
            let (kind, name) = try parse(marker: marker, at: "\(path):\(index + 1)")
            if result.contains(where: { $0.name.utf8.elementsEqual(name.utf8) }) {
                throw ReadmeError(message: "\(path):\(index + 1): error: a second Swift block named \"\(name)\"")
            }
            let code = lines[(index + 1)..<end].joined(separator: "\n") + "\n"
            result.append(Block(kind: kind, name: name, firstLine: index + 2, code: code))
        }
        index = end + 1
    }
    return result
}

/// The kind and name that a marker line gives a block.
func parse(marker: String, at location: String) throws -> (Block.Kind, String) {
    let usage = "precede it with <!-- example NAME -->, <!-- example NAME runnable --> or <!-- manifest -->"
    guard marker.hasPrefix("<!--"), marker.hasSuffix("-->") else {
        throw ReadmeError(message: "\(location): error: the Swift block has no marker; \(usage)")
    }
    let words = marker.dropFirst(4).dropLast(3).split(separator: " ").map(String.init)
    switch words.count {
    case 1 where words[0] == "manifest":
        return (.manifest, "manifest")
    case 2 where words[0] == "example" && isName(words[1]):
        return (.example, words[1])
    case 3 where words[0] == "example" && isName(words[1]) && words[2] == "runnable":
        return (.runnable, words[1])
    default:
        throw ReadmeError(message: "\(location): error: the marker \(marker) is not one of these: \(usage) (NAME: a-z, 0-9 and -)")
    }
}

/// A name that can end a target's name: lowercase ASCII letters, digits and `-`.
func isName(_ word: String) -> Bool {
    !word.isEmpty && word != "manifest"
        && word.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
}

/// The file the compiler sees for an example: its code, with its errors
/// and warnings reported at the README's lines.
func source(of block: Block, readmePath: String) -> String {
    guard block.kind != .manifest else { return block.code }
    let quoted = readmePath.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    return "#sourceLocation(file: \"\(quoted)\", line: \(block.firstLine))\n" + block.code + "#sourceLocation()\n"
}

func run(_ arguments: [String]) throws {
    switch (arguments.first, arguments.count) {
    case ("list", 2):
        let path = arguments[1]
        for block in try blocks(of: try String(contentsOfFile: path, encoding: .utf8), path: path) {
            print(block.firstLine, block.kind.rawValue, block.name)
        }
    case ("write", 4):
        let path = arguments[1]
        let name = arguments[2]
        let all = try blocks(of: try String(contentsOfFile: path, encoding: .utf8), path: path)
        guard let block = all.first(where: { $0.name.utf8.elementsEqual(name.utf8) }) else {
            throw ReadmeError(message: "\(path): error: no Swift block is marked <!-- example \(name) --> for the target readme-example-\(name)")
        }
        try Data(source(of: block, readmePath: path).utf8).write(to: URL(fileURLWithPath: arguments[3]), options: .atomic)
    default:
        throw ReadmeError(message: "usage: readme-example-extract list README.md | write README.md NAME FILE")
    }
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch let error as ReadmeError {
    FileHandle.standardError.write(Data((error.message + "\n").utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("readme-example-extract: \(error)\n".utf8))
    exit(1)
}
