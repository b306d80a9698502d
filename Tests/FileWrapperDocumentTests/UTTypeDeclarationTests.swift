import FileWrapperDocument
import Foundation
import Testing

/// Declarations read from `Info.plist`-style files (XML, binary and JSON
/// property lists) and registered; bad files are refused with an error
/// that names the file and what is wrong.
@Suite struct UTTypeDeclarationTests {
    @Test func anXMLPropertyListIsRead() throws {
        let declarations = try UTTypeDeclarations(contentsOf: DocumentFixtures.url("Notes-Info.plist"))
        #expect(declarations.exported.map(\.identifier) == ["com.example.notes", "com.example.notes-archive"])
        #expect(declarations.imported.map(\.identifier) == ["org.example.outline"])
        let archive = declarations.exported[1]
        #expect(archive.conformsTo == ["public.zip-archive"], "a single string is a list of one")
        #expect(archive.tags[.filenameExtension] == ["noteszip"])
        #expect(archive.tags[.mimeType] == ["application/x-example-notes+zip"])
        #expect(archive.typeDescription == "Notes archive")
    }

    @Test func anInfoPlistAsXcodeWritesItIsReadWhole() throws {
        let url = DocumentFixtures.url("Xcode-Info.plist")
        let declarations = try UTTypeDeclarations(contentsOf: url)
        let board = try #require(declarations.exported.first)
        #expect(board.identifier == "com.example.sketchboard")
        #expect(board.referenceURL == nil, "a blank Reference URL is none")
        #expect(board.conformsTo == ["com.apple.package"])
        #expect(board.typeDescription == "Sketch Board")
        let palette = try #require(declarations.imported.first)
        #expect(palette.referenceURL == nil, "blanks too")
        #expect(palette.tags[.mimeType] == ["application/x-example-palette"], "icons and unknown keys are passed over")

        try UTType.registerDeclarations(contentsOf: url)
        #expect(UTType(filenameExtension: "sketchboard", conformingTo: .package)?.identifier == "com.example.sketchboard")
        #expect(UTType("com.example.sketchboard")?.conforms(to: .package) == true)
        #expect(UTType(mimeType: "application/x-example-palette")?.conforms(to: .json) == true)
    }

    @Test func aReferenceURLIsKeptWhenThereIsOne() throws {
        let json = #"{"UTExportedTypeDeclarations": [{"UTTypeIdentifier": "a.ref", "UTTypeReferenceURL": " https://example.com/ref "}]}"#
        let declarations = try UTTypeDeclarations(data: Data(json.utf8), source: "ref.json")
        #expect(declarations.exported.first?.referenceURL == URL(string: "https://example.com/ref"))
        UTType.register(declarations)
        #expect(UTType("a.ref")?.referenceURL == URL(string: "https://example.com/ref"))
        #expect(UTType.plainText.referenceURL == nil)
    }

    @Test func registeredTypesResolveByIdentifierExtensionAndMIMEType() throws {
        DocumentFixtures.registerNotesTypes()
        #expect(UTType(filenameExtension: "notes", conformingTo: .package) == .notesPackage)
        #expect(UTType(filenameExtension: "notes")?.isDynamic == true, "a package is not public.data, the default supertype")
        #expect(UTType.notesPackage.isDeclared)
        #expect(UTType.notesPackage.localizedDescription == "Notes package")
        #expect(UTType.notesPackage.preferredFilenameExtension == "notes")
        #expect(UTType.notesPackage.conforms(to: .package))
        #expect(UTType(mimeType: "application/x-example-notes+zip") == .notesArchive)
        #expect(UTType.notesArchive.conforms(to: .zip))
        #expect(UTType("com.example.notes") == .notesPackage)

        let outline = try #require(UTType(filenameExtension: "opml"))
        #expect(outline.identifier == "org.example.outline")
        #expect(outline == UTType(importedAs: "org.example.outline"))
        #expect(outline.conforms(to: .xml) && outline.conforms(to: .text))
    }

    @Test func aJSONFileIsRead() throws {
        try UTType.registerDeclarations(contentsOf: DocumentFixtures.url("Sketch-Info.json"))
        let sketch = try #require(UTType(filenameExtension: "exsketch"))
        #expect(sketch.identifier == "com.example.sketch")
        #expect(sketch.conforms(to: .zip) && sketch.conforms(to: .compositeContent))
        #expect(sketch.preferredMIMEType == "application/x-example-sketch")
    }

    @Test func aBinaryPropertyListIsRead() throws {
        let plist: [String: Any] = [
            "UTImportedTypeDeclarations": [[
                "UTTypeIdentifier": "com.example.binary-declared",
                "UTTypeConformsTo": ["public.json"],
                "UTTypeTagSpecification": ["public.filename-extension": ["bindecl"]],
            ]],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        UTType.register(try UTTypeDeclarations(data: data, source: "binary.plist"))
        #expect(UTType(filenameExtension: "bindecl")?.conforms(to: .json) == true)
    }

    @Test func aMalformedFileIsRefusedNamingIt() throws {
        let url = DocumentFixtures.url("Malformed-Info.plist")
        let error = try #require(throws: UTTypeDeclarationError.self) {
            try UTType.registerDeclarations(contentsOf: url)
        }
        #expect(error.source == url.path)
        #expect(error.description.hasPrefix(url.path + ": is neither a property list nor JSON"))
        #expect(UTType("com.example.broken") == nil)
    }

    @Test func aMissingFileIsRefusedNamingIt() throws {
        let error = try #require(throws: UTTypeDeclarationError.self) {
            try UTTypeDeclarations(contentsOf: URL(fileURLWithPath: "/nonexistent/Info.plist"))
        }
        #expect(error.description.hasPrefix("/nonexistent/Info.plist: cannot be read"))
    }

    @Test(arguments: [
        (#"["not", "a", "dictionary"]"#, "the top level is not a dictionary"),
        (#"{"CFBundleName": "x"}"#, "declares no types"),
        (#"{"UTExportedTypeDeclarations": {"UTTypeIdentifier": "a.b"}}"#, "UTExportedTypeDeclarations is not an array"),
        (#"{"UTExportedTypeDeclarations": [{"UTTypeConformsTo": "public.data"}]}"#, "UTExportedTypeDeclarations[0] has no UTTypeIdentifier string"),
        (#"{"UTExportedTypeDeclarations": [{"UTTypeIdentifier": "has space"}]}"#, "\"has space\" is not a type identifier"),
        (#"{"UTImportedTypeDeclarations": [{"UTTypeIdentifier": "a.b", "UTTypeConformsTo": 7}]}"#,
         "UTImportedTypeDeclarations[0] (a.b): UTTypeConformsTo is neither a string nor an array of strings"),
        (#"{"UTExportedTypeDeclarations": [{"UTTypeIdentifier": "a.b", "UTTypeTagSpecification": ["x"]}]}"#,
         "UTTypeTagSpecification is not a dictionary"),
        (#"{"UTExportedTypeDeclarations": [{"UTTypeIdentifier": "a.b", "UTTypeReferenceURL": 7}]}"#,
         "UTExportedTypeDeclarations[0] (a.b): UTTypeReferenceURL is not a URL string"),
        (#"{"UTExportedTypeDeclarations": [{"UTTypeIdentifier": "a.b", "#, "is not valid JSON"),
    ])
    func badStructureIsRefusedSayingWhatIsWrong(json: String, problem: String) throws {
        let error = try #require(throws: UTTypeDeclarationError.self) {
            try UTTypeDeclarations(data: Data(json.utf8), source: "/app/Info.json")
        }
        #expect(error.description.hasPrefix("/app/Info.json: "))
        #expect(error.description.contains(problem), "\(error)")
    }

    @Test func systemTypesCannotBeRedeclared() {
        UTType.register(UTTypeDeclarations(exported: [UTTypeDeclaration(identifier: "public.plain-text", conformsTo: ["public.image"])]))
        #expect(!UTType.plainText.conforms(to: .image))
    }

    @Test func registeringAndLookingUpFromManyTasksAtOnce() async {
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let identifier = "com.example.concurrent-\(index)"
                    UTType.register(UTTypeDeclarations(exported: [UTTypeDeclaration(
                        identifier: identifier, conformsTo: ["public.plain-text"], tags: [.filenameExtension: ["conc\(index)"]])]))
                    return UTType(filenameExtension: "conc\(index)")?.conforms(to: .text) == true
                }
            }
            for await resolved in group {
                #expect(resolved)
            }
        }
    }
}
