@_exported import FileWrapperArchive
@_exported import FileWrapperKit
// `ObservableObject`, `@Published` and the publishers a SwiftUI document
// model uses from Combine, which exists only on Apple's systems: a
// `ReferenceFileDocument` written for SwiftUI compiles with
// `import FileWrapperDocument` alone.
@_exported import OpenCombine
