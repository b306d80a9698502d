@_exported import FileWrapperArchive
@_exported import FileWrapperKit
