import FileWrapperDocument
import Testing

/// What `import SwiftUI` brings a document model besides the document
/// types, here from `import FileWrapperDocument` alone: Foundation (and
/// Dispatch through it) and Combine's publishers.
@Suite @MainActor struct ImportedNamesTests {
    @Test func foundationDispatchAndCombineNamesAreThere() async throws {
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(id?.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        let encoded = try JSONEncoder().encode(["origin": CGPoint(x: 1, y: 2)])
        #expect(try JSONDecoder().decode([String: CGPoint].self, from: encoded)["origin"] == CGPoint(x: 1, y: 2))
        #expect(IndexSet([4, 2, 3]).rangeView.map(\.count) == [3])
        #expect(CocoaError(.fileReadCorruptFile).code.rawValue == 259)

        let ran = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: true) }
        }
        #expect(ran)

        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let subscription = subject.map { $0 * 2 }.sink { received.append($0) }
        subject.send(1)
        subject.send(2)
        #expect(received == [2, 4])
        subscription.cancel()
    }
}
