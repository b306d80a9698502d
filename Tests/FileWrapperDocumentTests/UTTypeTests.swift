import FileWrapperDocument
import Foundation
import Testing

/// The system types: conformance, tags, lookups by tag, dynamic types,
/// undeclared exported and imported types, and the value's own protocols.
@Suite struct UTTypeTests {
    @Test(arguments: [
        (UTType.plainText, [UTType.text, .data, .content, .item]),
        (.utf8PlainText, [.plainText, .text, .data]),
        (.json, [.text, .data, .content]),
        (.xml, [.text]),
        (.xmlPropertyList, [.xml, .propertyList, .data]),
        (.package, [.directory, .item]),
        (.bundle, [.directory, .item]),
        (.folder, [.directory, .item]),
        (.zip, [.archive, .data, .item]),
        (.gzip, [.archive, .data]),
        (.epub, [.zip, .archive, .compositeContent, .content]),
        (.png, [.image, .data, .content, .item]),
        (.jpeg, [.image]),
        (.pdf, [.compositeContent, .content, .data]),
        (.symbolicLink, [.item]),
        (.markdown, [.plainText, .text]),
    ])
    func systemTypesConformToTheirSupertypes(type: UTType, supertypes: [UTType]) {
        for supertype in supertypes {
            #expect(type.conforms(to: supertype), "\(type) should conform to \(supertype)")
            #expect(type.isSubtype(of: supertype))
            #expect(supertype.isSupertype(of: type))
        }
        #expect(type.conforms(to: type))
        #expect(!type.isSubtype(of: type))
        #expect(type.isDeclared)
        #expect(!type.isDynamic)
    }

    @Test func unrelatedTypesDoNotConform() {
        #expect(!UTType.plainText.conforms(to: .image))
        #expect(!UTType.package.conforms(to: .data), "a package is a directory, not data")
        #expect(!UTType.data.conforms(to: .plainText))
        #expect(!UTType.zip.conforms(to: .text))
        #expect(!UTType.item.conforms(to: .content))
    }

    @Test func supertypesAreTransitive() {
        #expect(UTType.plainText.supertypes == [.text, .data, .content, .item])
        #expect(UTType.item.supertypes.isEmpty)
    }

    @Test func tagsAndPreferredTags() {
        #expect(UTType.plainText.preferredFilenameExtension == "txt")
        #expect(UTType.plainText.preferredMIMEType == "text/plain")
        #expect(UTType.jpeg.tags[.filenameExtension] == ["jpeg", "jpg"])
        #expect(UTType.zip.preferredFilenameExtension == "zip")
        #expect(UTType.zip.preferredMIMEType == "application/zip")
        #expect(UTType.json.preferredMIMEType == "application/json")
        #expect(UTType.package.preferredFilenameExtension == nil)
        #expect(UTType.plainText.localizedDescription == "plain text")
        #expect(UTType.plainText.isPublic && !UTType.pdf.isPublic)
    }

    @Test func typesAreFoundByTag() {
        #expect(UTType(filenameExtension: "txt") == .plainText)
        #expect(UTType(filenameExtension: "TXT") == .plainText, "extensions compare without case")
        #expect(UTType(filenameExtension: "jpg") == .jpeg)
        #expect(UTType(filenameExtension: "zip") == .zip)
        #expect(UTType(filenameExtension: "json") == .json)
        #expect(UTType(filenameExtension: "gz") == .gzip)
        #expect(UTType(filenameExtension: "md", conformingTo: .text) == .markdown)
        #expect(UTType(mimeType: "application/json") == .json)
        #expect(UTType(mimeType: "Image/PNG") == .png)
        #expect(UTType(tag: "pdf", tagClass: .filenameExtension, conformingTo: nil) == .pdf)
        #expect(UTType(filenameExtension: "") == nil)
    }

    @Test func identifiersResolveWithoutRegardToCase() {
        #expect(UTType("public.plain-text") == .plainText)
        #expect(UTType("PUBLIC.Plain-Text") == .plainText)
        #expect(UTType("com.example.nobody-declared-this") == nil)
    }

    @Test func anUnknownExtensionGivesAStableDynamicType() throws {
        let type = try #require(UTType(filenameExtension: "qqq"))
        #expect(type.isDynamic)
        #expect(!type.isDeclared)
        #expect(type.identifier.hasPrefix("dyn."))
        #expect(type.conforms(to: .data) && type.conforms(to: .item))
        #expect(!type.conforms(to: .text))
        #expect(type.preferredFilenameExtension == "qqq")
        #expect(UTType(filenameExtension: "QQQ") == type)
        #expect(UTType(type.identifier)?.preferredFilenameExtension == "qqq", "a dynamic identifier carries its tag")

        let directory = try #require(UTType(filenameExtension: "qqq", conformingTo: .directory))
        #expect(directory != type)
        #expect(directory.conforms(to: .directory) && !directory.conforms(to: .data))

        let mime = try #require(UTType(mimeType: "application/x-nobody-knows"))
        #expect(mime.isDynamic && mime.preferredMIMEType == "application/x-nobody-knows")
    }

    @Test func aDeclaredExtensionOutsideTheSupertypeGivesADynamicType() throws {
        let type = try #require(UTType(filenameExtension: "txt", conformingTo: .image))
        #expect(type.isDynamic)
        #expect(type.conforms(to: .image))
    }

    @Test func undeclaredExportedAndImportedTypesKeepTheirConformance() {
        let package = UTType(exportedAs: "com.example.undeclared-package", conformingTo: .package)
        #expect(package.identifier == "com.example.undeclared-package")
        #expect(!package.isDeclared && !package.isDynamic)
        #expect(package.conforms(to: .package) && package.conforms(to: .directory))
        #expect(!package.conforms(to: .data))

        let imported = UTType(importedAs: "com.example.undeclared-data")
        #expect(imported.conforms(to: .data), "with no parent given, a type is data")

        let parent = UTType(exportedAs: "com.example.undeclared-parent", conformingTo: .zip)
        let child = UTType(exportedAs: "com.example.undeclared-child", conformingTo: parent)
        #expect(child.conforms(to: parent) && child.conforms(to: .zip) && child.conforms(to: .archive))
    }

    @Test func typesAreHashableAndCodableAsTheirIdentifier() throws {
        #expect(Set([UTType.plainText, UTType("public.plain-text")!, .json]).count == 2)
        let data = try JSONEncoder().encode([UTType.plainText, .notesArchive])
        #expect(String(decoding: data, as: UTF8.self) == #"["public.plain-text","com.example.notes-archive"]"#)
        let decoded = try JSONDecoder().decode([UTType].self, from: data)
        #expect(decoded == [.plainText, .notesArchive])
        #expect(decoded[0].conforms(to: .text))

        let dynamic = try #require(UTType(filenameExtension: "zzz"))
        let again = try JSONDecoder().decode(UTType.self, from: JSONEncoder().encode(dynamic))
        #expect(again == dynamic && again.preferredFilenameExtension == "zzz")
        #expect(UTType.plainText.description == "public.plain-text")
    }
}
