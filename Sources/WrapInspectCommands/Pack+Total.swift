import FileWrapperKit
import Foundation

extension Pack {
    /// Gives `progress` what packing `source` comes to, the entries and
    /// the bytes of their files, counted on a thread of its own while the
    /// pack goes on: a manifest without hashing, which reads names, kinds
    /// and sizes and no contents. The line then shows totals and time left.
    /// Nothing when there is no line, or the walk fails (the pack says why).
    static func countTotal(of source: String, into progress: ManifestProgress?) {
        guard let progress else { return }
        let thread = Thread {
            guard let manifest = try? Manifest(contentsOf: URL(fileURLWithPath: source), hashingContents: false) else { return }
            // The entries below the root, as the pack counts them.
            let entries = manifest.entries.filter { !$0.path.isEmpty }
            let bytes = entries.reduce(Int64(0)) { sum, entry in entry.kind == .file ? sum + (entry.size ?? 0) : sum }
            progress.setTotal(entries: entries.count, bytes: bytes)
        }
        thread.start()
    }
}
