import FileWrapperDocument

extension UTType {
    /// Registers the checklist type with its extension, from the
    /// declaration an app's `Info.plist` holds; on Apple's systems the
    /// system reads it from the app bundle.
    static func registerChecklistType() throws {
        try register(UTTypeDeclarations(data: Data(infoPlist.utf8), source: "checklist-example's Info.plist"))
    }

    private static let infoPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>UTExportedTypeDeclarations</key>
            <array>
                <dict>
                    <key>UTTypeIdentifier</key>
                    <string>com.example.checklist</string>
                    <key>UTTypeDescription</key>
                    <string>Checklist</string>
                    <key>UTTypeConformsTo</key>
                    <array><string>public.json</string></array>
                    <key>UTTypeTagSpecification</key>
                    <dict>
                        <key>public.filename-extension</key>
                        <array><string>checklist</string></array>
                    </dict>
                </dict>
            </array>
        </dict>
        </plist>
        """
}
