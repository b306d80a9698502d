// What `import SwiftUI` and `import UniformTypeIdentifiers` bring a
// document model on Apple's systems, where both re-export Foundation:
// `Data`, `URL`, `CocoaError`, `JSONDecoder`, `UUID`, `IndexSet`, Dispatch.
@_exported import Foundation
@_exported import FileWrapperArchive
@_exported import FileWrapperKit
// `ObservableObject`, `@Published` and the publishers a SwiftUI document
// model uses from Combine, which exists only on Apple's systems: a
// `ReferenceFileDocument` written for SwiftUI compiles with
// `import FileWrapperDocument` alone.
@_exported import OpenCombine
