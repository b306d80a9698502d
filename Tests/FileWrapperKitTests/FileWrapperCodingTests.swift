// FileWrapper as an NSObject: equal and hashed by identity, and
// NSSecureCoding, its keyed archive holding the serialized form.
import FileWrapperKit
import Foundation
import Testing
import TestSupport

@Suite struct FileWrapperCodingTests {
    /// A package of every kind: a file, a link, a nested folder.
    private func samplePackage() -> FileWrapper {
        let nested = FileWrapper(directoryWithFileWrappers: ["deep.txt": FileWrapper(regularFileWithContents: Data("deep".utf8))])
        let file = FileWrapper(regularFileWithContents: Data("Hello".utf8))
        file.attributes.permissions = 0o600
        file.attributes.modificationDate = FileTimestamp(seconds: 1_700_000_000, nanoseconds: 0)
        return FileWrapper(directoryWithFileWrappers: [
            "text.txt": file,
            "link": FileWrapper(symbolicLinkWithDestination: "text.txt"),
            "Folder": nested,
        ])
    }

    @Test func equalityAndHashAreIdentity() {
        let one = FileWrapper(regularFileWithContents: Data("same".utf8))
        let two = FileWrapper(regularFileWithContents: Data("same".utf8))
        #expect(one == one)
        #expect(one != two, "two wrappers with the same bytes are two objects, as NSObjects are")
        #expect(Set([one, two, one]).count == 2)
        var byWrapper: [FileWrapper: String] = [one: "one"]
        byWrapper[two] = "two"
        #expect(byWrapper[one] == "one" && byWrapper[two] == "two")
        #expect(one.hash == one.hash)
    }

    @Test func aKeyedArchiveRoundTripsTheTree() throws {
        let package = samplePackage()
        package.preferredFilename = "Notes.package"
        let data = try NSKeyedArchiver.archivedData(withRootObject: package, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: FileWrapper.self, from: data))

        #expect(decoded !== package)
        #expect(decoded.isDirectory)
        #expect(decoded.preferredFilename == "Notes.package")
        let children = try #require(decoded.fileWrappers)
        #expect(Set(children.keys) == ["text.txt", "link", "Folder"])
        #expect(children["text.txt"]?.regularFileContents == Data("Hello".utf8))
        #expect(children["text.txt"]?.attributes.permissions == 0o600)
        #expect(children["text.txt"]?.attributes.modificationDate == FileTimestamp(seconds: 1_700_000_000, nanoseconds: 0))
        #expect(children["link"]?.symbolicLinkDestinationBytes == Array("text.txt".utf8))
        #expect(children["Folder"]?.fileWrappers?["deep.txt"]?.regularFileContents == Data("deep".utf8))
        #expect(FileWrapper.supportsSecureCoding)
    }

    @Test func theArchiveHoldsTheSerializedFormUnderApplesKey() throws {
        let package = samplePackage()
        let data = try NSKeyedArchiver.archivedData(withRootObject: package, requiringSecureCoding: true)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        defer { unarchiver.finishDecoding() }
        // The root object's own keys are read through a stand-in that takes them as they are.
        unarchiver.setClass(CodingTestsKeyReader.self, forClassName: NSStringFromClass(FileWrapper.self))
        let reader = try #require(unarchiver.decodeObject(of: CodingTestsKeyReader.self, forKey: NSKeyedArchiveRootObjectKey))
        #expect(reader.data == package.serializedRepresentation)
    }

    @Test func anArchiveNamingApplesClassDecodesOnceMapped() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.setClassName("NSFileWrapper", for: FileWrapper.self)
        archiver.encode(samplePackage(), forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.setClass(FileWrapper.self, forClassName: "NSFileWrapper")
        let decoded = try #require(unarchiver.decodeObject(of: FileWrapper.self, forKey: NSKeyedArchiveRootObjectKey))
        unarchiver.finishDecoding()
        #expect(decoded.fileWrappers?["text.txt"]?.regularFileContents == Data("Hello".utf8))
    }

    @Test func malformedArchivesGiveNil() throws {
        var random = SplitMix64(seed: 35)
        // Not an archive at all.
        #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: FileWrapper.self, from: Data(random.bytes(200)))) == nil)
        // A real archive whose serialized form is replaced by random bytes, or removed.
        let archive = try NSKeyedArchiver.archivedData(withRootObject: samplePackage(), requiringSecureCoding: true)
        let unchanged = try replacingSerializedForm(in: archive, with: samplePackage().serializedRepresentation)
        #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: FileWrapper.self, from: unchanged) != nil, "the edit itself keeps the archive readable")
        for stored in [Data(random.bytes(300)), Data("rtfd".utf8) + Data(random.bytes(40)), nil] {
            let altered = try replacingSerializedForm(in: archive, with: stored)
            let decoded = try? NSKeyedUnarchiver.unarchivedObject(ofClass: FileWrapper.self, from: altered)
            #expect(decoded == nil, "stored: \(stored?.count ?? -1) bytes")
        }
        // A real archive cut short at every 97th byte.
        let whole = try NSKeyedArchiver.archivedData(withRootObject: samplePackage(), requiringSecureCoding: true)
        for end in stride(from: 0, to: whole.count - 1, by: 97) {
            #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: FileWrapper.self, from: whole.prefix(end))) == nil)
        }
    }

    /// `archive` with the data under `NSFileWrapperData` replaced by
    /// `data`, or the key removed when `data` is nil: edited as the
    /// property list it is, so that the archive stays well formed.
    private func replacingSerializedForm(in archive: Data, with data: Data?) throws -> Data {
        var plist = try #require(try PropertyListSerialization.propertyList(from: archive, format: nil) as? [String: Any])
        var objects = try #require(plist["$objects"] as? [Any])
        if let data {
            let serialized = try #require(samplePackage().serializedRepresentation)
            let index = try #require(objects.firstIndex { $0 as? Data == serialized })
            objects[index] = data
        } else {
            let index = try #require(objects.firstIndex { ($0 as? [String: Any])?["NSFileWrapperData"] != nil })
            var object = try #require(objects[index] as? [String: Any])
            object["NSFileWrapperData"] = nil
            objects[index] = object
        }
        plist["$objects"] = objects
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    @Test func subclassesCompileAsOnApplesSystems() throws {
        let plain = CodingTestsTitledWrapper(regularFileWithContents: Data("x".utf8))
        plain.title = "Cover"
        #expect(plain.title == "Cover" && plain.isRegularFile)

        let tagged = CodingTestsTaggedWrapper(tag: 7)
        #expect(tagged.tag == 7 && tagged.isDirectory)
        let data = try NSKeyedArchiver.archivedData(withRootObject: tagged, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CodingTestsTaggedWrapper.self, from: data))
        #expect(decoded.tag == 7 && decoded.isDirectory)
    }
}

/// A subclass with no initializer of its own inherits them all. (Not
/// private: keyed archiving names a class, and cannot name a private one.)
final class CodingTestsTitledWrapper: FileWrapper {
    var title = ""
}

/// A subclass with a designated initializer writes `required init?(coder:)`, as on Apple's systems.
final class CodingTestsTaggedWrapper: FileWrapper {
    var tag: Int

    init(tag: Int) {
        self.tag = tag
        super.init(directoryWithFileWrappers: [:])
    }

    required init?(coder: NSCoder) {
        tag = coder.decodeInteger(forKey: "tag")
        super.init(coder: coder)
    }

    override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(tag, forKey: "tag")
    }
}

/// Reads what a file wrapper's archive holds under Apple's key.
final class CodingTestsKeyReader: NSObject, NSSecureCoding {
    let data: Data?
    static var supportsSecureCoding: Bool { true }
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {
        data = coder.decodeObject(of: NSData.self, forKey: "NSFileWrapperData") as Data?
    }
}
