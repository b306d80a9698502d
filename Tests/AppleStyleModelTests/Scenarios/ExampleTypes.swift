import FileWrapperDocument

/// The types the example models export, declared as an app's Info.plist
/// declares them, registered once for the test process. Registration is
/// process-wide and every test target runs in one process: the
/// identifiers and extensions are used by no other test.
enum ExampleTypes {
    static func register() {
        _ = registration
    }

    private static let registration: Void = {
        UTType.register(UTTypeDeclarations(exported: [
            UTTypeDeclaration(identifier: "com.example.shape-sketch", conformsTo: ["public.json"], tags: [.filenameExtension: ["shapesketch"]]),
            UTTypeDeclaration(identifier: "com.example.checklist", conformsTo: ["public.json"], tags: [.filenameExtension: ["checklist"]]),
            UTTypeDeclaration(identifier: "com.example.album", conformsTo: ["com.apple.package"], tags: [.filenameExtension: ["album"]]),
        ]))
    }()
}
