// The product's one target. On Linux it depends on the modules named as
// Apple names them (Combine, CoreGraphics, System, os), so that a target
// depending on the product can `import Combine` as on Apple's systems; on
// Apple's systems it depends on none of them and Apple's own are imported.
// `import FileWrapperKitAppleModules` brings all four at once.
#if os(Linux)
@_exported import Combine
@_exported import CoreGraphics
@_exported import System
@_exported import os
#endif
