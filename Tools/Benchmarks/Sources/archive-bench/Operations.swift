/// What one group of interleaved operations compares: an archive format,
/// the snapshot (a manifest, no archive), bundle-bench's FileWrapper
/// figures (run as a child, not a group of this program), or the hostile
/// shapes of issue 20 (``ShapeBenchmark``, on archives of their own).
enum Suite: String, CaseIterable {
    case tar
    case tarGzip = "tar.gz"
    case tarZstd = "tar.zst"
    case zip
    case snapshot
    case bundle
    case shapes
    case diff
    case zipDocument = "zip-document"

    var isArchive: Bool { self != .snapshot && self != .bundle && self != .shapes && self != .diff && self != .zipDocument }

    /// What `bsdtar -cf ARCHIVE` is given to write this format.
    var bsdtarFlags: [String] {
        switch self {
        case .tarGzip: ["-z"]
        case .tarZstd: ["--zstd"]
        case .zip: ["--format", "zip"]
        default: []
        }
    }

    /// The tools that write this format, ours first: GNU tar for tar only,
    /// Info-ZIP and ZIPFoundation for zip only.
    var packers: [Tool] {
        switch self {
        case .tar: [.ours, .gnuTar, .bsdtar]
        case .tarGzip, .tarZstd: [.ours, .bsdtar]
        case .zip: [.ours, .bsdtar, .infoZip, .zipFoundation]
        case .snapshot, .bundle, .shapes, .diff, .zipDocument: []
        }
    }

    /// The peers that read this format, each also one of its packers: GNU
    /// tar for tar only, unzip for zip only.
    var peerUnpackers: [Tool] {
        switch self {
        case .tar: [.gnuTar, .bsdtar]
        case .tarGzip, .tarZstd: [.bsdtar]
        case .zip: [.bsdtar, .infoZip]
        case .snapshot, .bundle, .shapes, .diff, .zipDocument: []
        }
    }
}

/// Who writes or reads an archive.
enum Tool: CaseIterable {
    case ours, gnuTar, bsdtar, infoZip, zipFoundation

    var packer: String {
        switch self {
        case .ours: "ours"
        case .gnuTar: "GNU tar"
        case .bsdtar: "bsdtar"
        case .infoZip: "zip"
        case .zipFoundation: "ZIPFoundation"
        }
    }

    var unpacker: String {
        self == .infoZip ? "unzip" : packer
    }

    /// The start of the name of the archive it packs.
    var fileStem: String {
        switch self {
        case .ours: "ours"
        case .gnuTar: "gnutar"
        case .bsdtar: "bsdtar"
        case .infoZip: "infozip"
        case .zipFoundation: "zipfoundation"
        }
    }
}

/// One measured operation.
enum Operation: Hashable {
    case pack(Tool)
    /// `Tool` unpacks the archive that `archiveOf` packed.
    case unpack(Tool, archiveOf: Tool)
    /// `cp -a` copies the tree: a peer of every unpack.
    case copy
    /// `wrapinspect snapshot`: the manifest, with the SHA-256 of every file.
    case snapshot
    /// `find . -type f -print0 | xargs -0 -P2 sha256sum`: the snapshot's peer.
    case hashEveryFile

    /// What one group of `suite` runs: every tool packs; we unpack every
    /// tool's archive (which checks it), each peer unpacks its own and
    /// ours; `cp -a` copies the tree. Or the two snapshots.
    static func all(in suite: Suite) -> [Operation] {
        guard suite.isArchive else { return suite == .snapshot ? [.snapshot, .hashEveryFile] : [] }
        var operations = suite.packers.map { Operation.pack($0) }
        operations += suite.packers.map { .unpack(.ours, archiveOf: $0) }
        for tool in suite.peerUnpackers {
            operations += [.unpack(tool, archiveOf: tool), .unpack(tool, archiveOf: .ours)]
        }
        operations.append(.copy)
        return operations
    }

    /// Whether it creates a tree (an unpack or the copy); the others only
    /// read the workload.
    var createsTree: Bool {
        switch self {
        case .unpack, .copy: true
        case .pack, .snapshot, .hashEveryFile: false
        }
    }

    var isOurs: Bool {
        switch self {
        case .pack(let tool), .unpack(let tool, _): tool == .ours
        case .snapshot: true
        case .copy, .hashEveryFile: false
        }
    }

    /// Whether it is a peer doing our job its own way, so that our figures
    /// are divided by the best of these: another tool packing, a peer
    /// unpacking its own kind of archive, `cp -a`, the sha256sum line.
    var isPeerBaseline: Bool {
        switch self {
        case .pack(let tool): tool != .ours
        case .unpack(let tool, let producer): tool != .ours && producer == tool
        case .copy, .hashEveryFile: true
        case .snapshot: false
        }
    }

    /// The peer's name, for the targets table.
    var peerName: String {
        switch self {
        case .pack(let tool): tool.packer
        case .unpack(let tool, _): tool.unpacker
        case .copy: "cp -a"
        case .snapshot: "ours"
        case .hashEveryFile: "sha256sum -P2"
        }
    }

    var label: String {
        switch self {
        case .pack(let tool): "pack: \(tool.packer)"
        case .unpack(let tool, let producer): "unpack: \(tool.unpacker) ← \(producer.packer)"
        case .copy: "copy: cp -a"
        case .snapshot: "snapshot: ours"
        case .hashEveryFile: "snapshot: sha256sum -P2"
        }
    }
}
