import FileWrapperDocument

extension UTType {
    /// Registers the album type with its extension, from the
    /// declaration an app's `Info.plist` holds; on Apple's systems the
    /// system reads it from the app bundle.
    static func registerAlbumType() throws {
        try register(UTTypeDeclarations(data: Data(infoPlist.utf8), source: "album-example's Info.plist"))
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
                    <string>com.example.album</string>
                    <key>UTTypeDescription</key>
                    <string>Photo Album</string>
                    <key>UTTypeConformsTo</key>
                    <array><string>com.apple.package</string></array>
                    <key>UTTypeTagSpecification</key>
                    <dict>
                        <key>public.filename-extension</key>
                        <array><string>album</string></array>
                    </dict>
                </dict>
            </array>
        </dict>
        </plist>
        """
}
