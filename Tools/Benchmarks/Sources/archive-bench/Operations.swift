import FileWrapperArchive

/// A workload of gen.py.
enum WorkloadName: String, CaseIterable {
    case w1, w2, w3

    /// Whether its unpacked copies (20,700 entries each for w1) are too many
    /// files to remove during the run: on ext4 without a journal, the
    /// kernel's `recently_deleted()` inode check slows creating files for
    /// minutes after many were deleted nearby (here bsdtar unpacking w1 took
    /// 5.5 s instead of 0.9 s one minute later, 1.2 s three minutes later).
    /// They stay until the end of the run, so such workloads are measured
    /// last, where their gigabytes in the page cache slow no other, and
    /// only 6 minutes after the last removal of many files.
    var hasManyEntries: Bool { self == .w1 }
}

/// An archive format as each tool is asked for it.
enum BenchFormat: String, CaseIterable {
    case tar
    case tarGzip = "tar.gz"
    case tarZstd = "tar.zst"
    case zip

    var ours: ArchiveFormat {
        switch self {
        case .tar: .tar
        case .tarGzip: .tarGzip
        case .tarZstd: .tarZstd
        case .zip: .zip
        }
    }

    /// What `bsdtar -cf ARCHIVE` is given to write this format.
    var bsdtarFlags: [String] {
        switch self {
        case .tar: []
        case .tarGzip: ["-z"]
        case .tarZstd: ["--zstd"]
        case .zip: ["--format", "zip"]
        }
    }

    /// The tools that write and read it: Info-ZIP only for zip.
    var tools: [Tool] { self == .zip ? Tool.allCases : [.ours, .bsdtar] }
}

/// Who writes or reads an archive.
enum Tool: CaseIterable {
    case ours, bsdtar, infoZip

    var packer: String {
        switch self {
        case .ours: "ours"
        case .bsdtar: "bsdtar"
        case .infoZip: "zip"
        }
    }

    var unpacker: String {
        switch self {
        case .ours: "ours"
        case .bsdtar: "bsdtar"
        case .infoZip: "unzip"
        }
    }
}

/// One measured operation.
enum Operation: Hashable {
    case pack(Tool)
    /// `Tool` unpacks the archive that `archiveOf` packed.
    case unpack(Tool, archiveOf: Tool)

    /// Each tool packs; each unpacks its own archive and ours, and we unpack
    /// bsdtar's, so that one row compares the two on the same input.
    static func all(for format: BenchFormat) -> [Operation] {
        var operations = format.tools.map { Operation.pack($0) }
        operations.append(.unpack(.ours, archiveOf: .ours))
        operations.append(.unpack(.ours, archiveOf: .bsdtar))
        for tool in format.tools where tool != .ours {
            operations.append(.unpack(tool, archiveOf: tool))
            operations.append(.unpack(tool, archiveOf: .ours))
        }
        return operations
    }

    /// What each figure is divided by: bsdtar doing the same.
    var baseline: Operation {
        switch self {
        case .pack: .pack(.bsdtar)
        case .unpack: .unpack(.bsdtar, archiveOf: .bsdtar)
        }
    }

    var label: String {
        switch self {
        case .pack(let tool): "pack: \(tool.packer)"
        case .unpack(let tool, let producer): "unpack: \(tool.unpacker) ← \(producer.packer)"
        }
    }
}
