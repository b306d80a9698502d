// Swift Testing declares a cross-import overlay for CoreGraphics (its
// Testing.swiftcrossimport/CoreGraphics.swiftoverlay names this module),
// so a file that imports both Testing and CoreGraphics looks for
// `_Testing_CoreGraphics`, which the toolchain ships only for Apple's
// systems. On Apple's systems it adds attachments of `CGImage`, which
// Linux has not; here it is empty, and such a test file compiles.
