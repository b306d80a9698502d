// `import Combine` on Linux: OpenCombine's publishers, subjects,
// `ObservableObject`, `@Published` and `AnyCancellable`, under Apple's name.
@_exported import OpenCombine
