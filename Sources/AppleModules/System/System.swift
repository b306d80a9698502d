// `import System` on Linux: swift-system (`FilePath`, `FileDescriptor`,
// `Errno`, `FilePermissions`), which Apple ships as the module System.
@_exported import SystemPackage
