import FileWrapperDocument
import Foundation

extension UTType {
    /// A notes package: a directory that people see as one file.
    static let notes = UTType(exportedAs: "com.example.notes", conformingTo: .package)
    /// A notes package in a zip container, to mail or upload.
    static let notesArchive = UTType(exportedAs: "com.example.notes-archive", conformingTo: .zip)

    /// Registers the two types with their extensions, from the
    /// declarations an app's `Info.plist` holds. On Apple's systems the
    /// system reads them from the app bundle; a Linux program registers
    /// them itself, once, at start (here built in; a file works the same
    /// with `registerDeclarations(contentsOf:)`).
    static func registerNotesTypes() throws {
        try register(UTTypeDeclarations(data: Data(infoPlist.utf8), source: "notes-example's Info.plist"))
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
                    <string>com.example.notes</string>
                    <key>UTTypeDescription</key>
                    <string>Notes</string>
                    <key>UTTypeConformsTo</key>
                    <array><string>com.apple.package</string></array>
                    <key>UTTypeTagSpecification</key>
                    <dict>
                        <key>public.filename-extension</key>
                        <array><string>notes</string></array>
                    </dict>
                </dict>
                <dict>
                    <key>UTTypeIdentifier</key>
                    <string>com.example.notes-archive</string>
                    <key>UTTypeDescription</key>
                    <string>Notes (zip)</string>
                    <key>UTTypeConformsTo</key>
                    <array><string>public.zip-archive</string></array>
                    <key>UTTypeTagSpecification</key>
                    <dict>
                        <key>public.filename-extension</key>
                        <array><string>notesz</string></array>
                    </dict>
                </dict>
            </array>
        </dict>
        </plist>
        """
}
