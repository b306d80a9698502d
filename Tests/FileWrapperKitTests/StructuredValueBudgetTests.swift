import Foundation
import Testing
import TestSupport
@testable import FileWrapperKit

/// JSON and property lists are compared as data within a budget of
/// values, counted as they are expanded, so that a small list that refers
/// to one array from many places (a billion laughs) or to itself is
/// refused quickly and in little memory instead of exhausting it.
@Suite struct StructuredValueBudgetTests {
    typealias Bytes = BinaryPlistBytes

    /// Depth 30, each level two references to the next: 2³¹ values from
    /// 31 objects. Refused at the limit (a million values: a second or two
    /// in a debug build), a lowered one at once.
    @Test func sharedReferencesPastTheBudgetAreRefused() throws {
        let (old, new) = (Bytes.sharedTwice(depth: 30, leaf: "x"), Bytes.sharedTwice(depth: 30, leaf: "y"))
        let result = try #require(StructuredDiff.compare(old: old, new: new))
        #expect(result.refusal == StructuredValue.Refusal(syntax: .propertyList, reason: .tooManyNodes(limit: StructuredValue.defaultMaxNodes)))
        #expect(result.refusal?.description == "the property list expands past 1000000 nodes")
        let lowered = try #require(StructuredDiff.compare(old: old, new: new, maxNodes: 1000))
        #expect(lowered.refusal?.reason == .tooManyNodes(limit: 1000))
    }

    /// Within the budget, each reference is expanded where it is made:
    /// depth 3 has 8 leaves, each a change.
    @Test func sharedReferencesWithinTheBudgetAreExpanded() throws {
        let diff = try #require(StructuredDiff.compare(old: Bytes.sharedTwice(depth: 3, leaf: "x"), new: Bytes.sharedTwice(depth: 3, leaf: "y"),
                                                       maxNodes: 15)).get()
        #expect(diff.syntax == .propertyList)
        #expect(diff.changes.map(\.pointer) == ["/0/0/0", "/0/0/1", "/0/1/0", "/0/1/1", "/1/0/0", "/1/0/1", "/1/1/0", "/1/1/1"])
        #expect(diff.changes.allSatisfy { $0.old == .string(Array("x".utf8)) && $0.new == .string(Array("y".utf8)) })
        let over = try #require(StructuredDiff.compare(old: Bytes.sharedTwice(depth: 3, leaf: "x"), new: Bytes.sharedTwice(depth: 3, leaf: "y"),
                                                       maxNodes: 14))
        #expect(over.refusal?.reason == .tooManyNodes(limit: 14), "15 values, one over")
    }

    /// An array that contains itself through the object table, directly
    /// or through another, is refused, not followed.
    @Test func aListThatContainsItselfIsRefused() throws {
        let fine = Bytes.list([Bytes.array([1]), Bytes.ascii("x")])
        for cycle in [Bytes.list([Bytes.array([0])]), Bytes.list([Bytes.array([1]), Bytes.array([2]), Bytes.array([0])])] {
            let result = try #require(StructuredDiff.compare(old: cycle, new: fine))
            #expect(result.refusal == StructuredValue.Refusal(syntax: .propertyList, reason: .cycle))
            #expect(result.refusal?.description == "the property list contains itself")
        }
        // The same object twice side by side is no cycle.
        let twice = Bytes.list([Bytes.array([1, 1]), Bytes.ascii("x")])
        #expect(try #require(StructuredDiff.compare(old: twice, new: fine)).get().changes.map(\.pointer) == ["/1"])
    }

    /// A chain deeper than the nesting limit is refused before the stack runs out.
    @Test func aChainDeeperThanTheLimitIsRefused() throws {
        let depth = StructuredValue.maxDepth + 10
        let chain = Bytes.list((0..<depth).map { Bytes.array([$0 + 1]) } + [Bytes.ascii("x")])
        let result = try #require(StructuredDiff.compare(old: chain, new: Bytes.list([Bytes.ascii("x")])))
        #expect(result.refusal?.reason == .tooDeep(limit: StructuredValue.maxDepth))
    }

    /// A trailer or an object whose sizes, counts or offsets do not fit the
    /// bytes is no property list: nil, with nothing allocated for what it
    /// declares.
    @Test func aTrailerThatDoesNotFitTheBytesIsNoPropertyList() {
        let objects = [Bytes.array([1]), Bytes.ascii("x")]
        let valid = Bytes.list(objects)
        #expect(StructuredDiff.compare(old: valid, new: valid) != nil)
        let hostile: [(String, [UInt8])] = [
            ("2^62 objects", Bytes.list(objects, objectCount: 1 << 62)),
            ("2^64 - 1 objects", Bytes.list(objects, objectCount: .max)),
            ("the top object past the count", Bytes.list(objects, top: 2)),
            ("the offset table past the trailer", Bytes.list(objects, tableOffset: 1 << 40)),
            ("the offset table in the header", Bytes.list(objects, tableOffset: 3)),
            ("offsets of 0 bytes", Bytes.list(objects, offsetSize: 0)),
            ("references of 9 bytes", Bytes.list(objects, referenceSize: 9)),
            ("references too small for the count", Bytes.list(Array(repeating: Bytes.ascii("x"), count: 300), referenceSize: 1)),
            ("a reference past the count", Bytes.list([Bytes.array([7]), Bytes.ascii("x")])),
            ("an array of 2^62 elements", Bytes.list([[0xAF, 0x13] + Bytes.bigEndian(1 << 62, size: 8), Bytes.ascii("x")])),
            ("a string longer than the bytes", Bytes.list([[0x5F, 0x12] + Bytes.bigEndian(1 << 30, size: 4)])),
            ("an offset past the objects", Array(valid.dropLast(40)) + Bytes.bigEndian(0xFFFF_FFFF, size: 4) + valid.suffix(36)),
            ("a dictionary key that is no string", Bytes.list([[0xD1, 0, 1, 0, 1], [0x10, 1]])),
            ("a cut trailer", Array(valid.dropLast(1))),
        ]
        for (what, bytes) in hostile {
            #expect(StructuredDiff.compare(old: bytes, new: valid) == nil, "\(what)")
        }
    }

    /// JSON counts its values against the same budget.
    @Test func jsonPastTheBudgetIsRefused() throws {
        let json = Array(("[" + Array(repeating: "0", count: 100).joined(separator: ",") + "]").utf8)
        let result = try #require(StructuredDiff.compare(old: json, new: Array("[]".utf8), maxNodes: 50))
        #expect(result.refusal == StructuredValue.Refusal(syntax: .json, reason: .tooManyNodes(limit: 50)))
        #expect(try #require(StructuredDiff.compare(old: json, new: Array("[]".utf8), maxNodes: 101)).get().changes.count == 100)
    }
}
