// The code of this program is the Swift block of README.md whose marker
// names the example manifests (`<!-- example manifests ... -->`); the ReadmeExamples plugin
// writes it as main.swift at build time. SwiftPM builds no target without a
// source file of its own, hence this one.
