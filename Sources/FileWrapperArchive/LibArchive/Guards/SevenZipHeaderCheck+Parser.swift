extension SevenZipHeaderCheck {
    /// The header's property IDs (7zFormat.txt).
    enum Property: UInt8 {
        case end = 0x00, header = 0x01, archiveProperties = 0x02, mainStreamsInfo = 0x04, filesInfo = 0x05
        case packInfo = 0x06, unpackInfo = 0x07, subStreamsInfo = 0x08, size = 0x09, crc = 0x0A, folder = 0x0B
        case codersUnpackSize = 0x0C, numUnpackStream = 0x0D, encodedHeader = 0x17
    }

    /// Reads a 7z header in order, as libarchive's `read_Header` and
    /// `read_StreamsInfo` read it, and adds up, as it meets each count, what
    /// libarchive allocates for it (it allocates a table as soon as it has
    /// read its count, up to 100 million entries): over the budget, the
    /// header is refused before anything is allocated for it, here or
    /// there. Where libarchive would refuse the header, ``Malformed``.
    struct Parser {
        private let bytes: [UInt8]
        private var position = 0
        private let budget: MemoryBudget
        /// What libarchive has allocated for the header's tables so far.
        private var allocated: UInt64 = 0

        /// Bytes libarchive allocates for each entry of its tables, rounded up.
        private enum Cost {
            static let packStream: UInt64 = 24, folder: UInt64 = 128, coder: UInt64 = 48, bindPair: UInt64 = 16
            static let stream: UInt64 = 8, digest: UInt64 = 5, unpackStream: UInt64 = 16, file: UInt64 = 128
        }

        init(bytes: [UInt8], budget: MemoryBudget) {
            self.bytes = bytes
            self.budget = budget
        }

        /// Checks the rest of a header after its `kHeader`: its streams, and
        /// the files it lists; returns the files' names (``fileNames(count:)``).
        mutating func checkHeader() throws -> [[UInt8]]? {
            var property = try byte()
            if property == Property.archiveProperties.rawValue {
                // As libarchive reads them: an ID and a number each, until a 0.
                while try byte() != 0 { _ = try number() }
                property = try byte()
            }
            if property == Property.mainStreamsInfo.rawValue {
                _ = try checkStreamsInfo()
                property = try byte()
            }
            guard property == Property.filesInfo.rawValue else { return nil }
            let files = try count()
            try allocate(UInt64(files), Cost.file)
            return try? fileNames(count: files)
        }

        /// The names of the `count` files, from the `kName` property, in
        /// UTF-8 converted from the stored UTF-16LE and nothing else (not
        /// to NFC, as libarchive converts them); nil when the property is
        /// missing, external, or does not hold `count` names.
        private mutating func fileNames(count: Int) throws -> [[UInt8]]? {
            while true {
                let type = try number()
                guard type != 0 else { return nil }
                let size = try number()
                guard size <= UInt64(bytes.count - position) else { return nil }
                let body = try bytes(Int(size))
                guard type == 0x11 else { continue }  // kName
                guard body.first == 0 else { return nil }  // stored elsewhere ("external")
                var names: [[UInt8]] = []
                var units: [UInt16] = []
                for at in stride(from: 1, to: body.count - 1, by: 2) {
                    let unit = UInt16(body[at]) | UInt16(body[at + 1]) << 8
                    if unit == 0 {
                        names.append(Array(String(decoding: units, as: UTF16.self).utf8))
                        units = []
                    } else {
                        units.append(unit)
                    }
                }
                return names.count == count ? names : nil
            }
        }

        /// Reads `StreamsInfo`, checking each folder's coders.
        mutating func checkStreamsInfo() throws -> StreamsInfo {
            var info = StreamsInfo()
            var property = try self.property()
            if property == .packInfo {
                info.packPosition = try number()
                let count = try count()
                guard count > 0 else { throw Malformed() }
                try allocate(UInt64(count), Cost.packStream)
                guard try self.property() == .size else { throw Malformed() }
                for index in 0..<count {
                    let size = try number()
                    if index == 0 { info.firstPackSize = size }
                }
                switch try self.property() {
                case .end: break
                case .crc:
                    _ = try digests(count)
                    guard try self.property() == .end else { throw Malformed() }
                default: throw Malformed()
                }
                property = try self.property()
            }
            var folderCount = 0
            var folderDigests = Digests(allDefined: false, bits: [])
            if property == .unpackInfo {
                guard try self.property() == .folder else { throw Malformed() }
                folderCount = try count()
                try allocate(UInt64(folderCount), Cost.folder)
                // Folder 0 (which decodes an encoded header) and BCJ2 ones,
                // whose output sizes follow all the folders; their outputs.
                var kept: [Int: Folder] = [:]
                var outputs: [Int] = []
                switch try byte() {
                case 0:
                    for index in 0..<folderCount {
                        let folder = try readFolder()
                        try folder.check(budget)
                        outputs.append(folder.outputCount)
                        if index == 0 || folder.coders.contains(where: { $0.method == 0x0303_011B }) { kept[index] = folder }
                    }
                case 1:
                    guard folderCount == 0 else { throw Malformed() }
                    _ = try number()
                default:
                    throw Malformed()
                }
                guard try self.property() == .codersUnpackSize else { throw Malformed() }
                for (index, count) in outputs.enumerated() {
                    for _ in 0..<count {
                        let size = try number()
                        kept[index]?.outputSizes.append(size)
                    }
                }
                for folder in kept.values { try folder.check(budget) }
                info.first = kept[0]
                switch try self.property() {
                case .end: break
                case .crc:
                    folderDigests = try digests(folderCount)
                    guard try self.property() == .end else { throw Malformed() }
                default: throw Malformed()
                }
                property = try self.property()
            }
            if property == .subStreamsInfo {
                var streams = [UInt64](repeating: 1, count: folderCount)
                property = try self.property()
                if property == .numUnpackStream {
                    streams = try (0..<folderCount).map { _ in UInt64(try count()) }
                    property = try self.property()
                }
                try allocate(streams.reduce(0, +), Cost.unpackStream)
                if property == .size {
                    for count in streams where count > 1 {
                        for _ in 1..<count { _ = try number() }
                    }
                    property = try self.property()
                }
                if property == .crc {
                    let count = streams.indices.reduce(0) { $0 + (streams[$1] != 1 || !folderDigests.isDefined($1) ? Int(streams[$1]) : 0) }
                    _ = try digests(count)
                    property = try self.property()
                }
                guard property == .end else { throw Malformed() }
                property = try self.property()
            }
            guard property == .end else { throw Malformed() }
            return info
        }

        /// Reads one folder as libarchive's `read_Folder` does.
        private mutating func readFolder() throws -> Folder {
            var folder = Folder()
            let count = try count()
            guard count <= 4 else { throw Malformed() }
            try allocate(UInt64(count), Cost.coder)
            var (inputs, outputs): (UInt64, UInt64) = (0, 0)
            for _ in 0..<count {
                let flags = try byte()
                guard flags & 0x80 == 0 else { throw Malformed() }
                let method = try bytes(Int(flags & 0x0F)).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                var coder = Folder.Coder(method: method, inputs: 1, outputs: 1, properties: [])
                if flags & 0x10 != 0 {
                    coder.inputs = UInt64(try self.count())
                    coder.outputs = UInt64(try self.count())
                }
                if flags & 0x20 != 0 {
                    let size = try number()
                    coder.properties = try bytes(Int(clamping: size))
                }
                inputs += coder.inputs
                outputs += coder.outputs
                folder.coders.append(coder)
            }
            guard outputs > 0, inputs + 1 >= outputs else { throw Malformed() }
            try allocate(outputs - 1, Cost.bindPair)
            for _ in 1..<outputs {
                let input = try number()
                folder.bindPairs.append((input, try number()))
            }
            let packed = inputs - (outputs - 1)
            try allocate(packed + outputs, Cost.stream)
            if packed > 1 {
                for _ in 0..<packed { _ = try number() }
            }
            return folder
        }

        /// Adds `count` entries of `size` bytes to what libarchive has
        /// allocated; refuses the header when that is over the budget.
        private mutating func allocate(_ count: UInt64, _ size: UInt64) throws {
            let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
            let (total, sumOverflow) = allocated.addingReportingOverflow(bytes)
            allocated = overflow || sumOverflow ? UInt64.max : total
            guard !budget.allows(allocated) else { return }
            throw budget.refusal("the 7z header lists so many files, folders and streams that libarchive would allocate "
                                 + (allocated == UInt64.max ? "more than \(UInt64.max) bytes" : "about \(allocated) bytes") + " for its tables")
        }

        /// Which of `count` items have a digest, as `read_Digests` reads them.
        struct Digests {
            var allDefined: Bool
            var bits: [UInt8]

            func isDefined(_ index: Int) -> Bool {
                allDefined || (index / 8 < bits.count && bits[index / 8] & (0x80 >> (index % 8)) != 0)
            }
        }

        /// Reads the digests of `count` items.
        private mutating func digests(_ count: Int) throws -> Digests {
            guard count > 0 else { throw Malformed() }
            try allocate(UInt64(count), Cost.digest)
            let allDefined = try byte() != 0
            let digests = Digests(allDefined: allDefined, bits: allDefined ? [] : try bytes((count + 7) / 8))
            // The bits past `count` in the last byte are not read.
            let spare = digests.bits.count * 8 - count
            let defined = allDefined ? count : digests.bits.reduce(0) { $0 + $1.nonzeroBitCount } - (digests.bits.last.map { ($0 & (1 << spare &- 1)).nonzeroBitCount } ?? 0)
            _ = try bytes(4 * defined)
            return digests
        }

        mutating func property() throws -> Property? {
            Property(rawValue: try byte())
        }

        private mutating func byte() throws -> UInt8 {
            guard position < bytes.count else { throw Malformed() }
            defer { position += 1 }
            return bytes[position]
        }

        private mutating func bytes(_ count: Int) throws -> [UInt8] {
            guard count >= 0, count <= bytes.count - position else { throw Malformed() }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }

        /// A 7z number: a first byte whose leading 1 bits say how many more
        /// bytes follow (little-endian), the rest of it the high bits.
        private mutating func number() throws -> UInt64 {
            let first = try byte()
            var value: UInt64 = 0
            var mask: UInt8 = 0x80
            for index in 0..<8 {
                guard first & mask != 0 else {
                    return value + (UInt64(first & (mask &- 1)) << (8 * index))
                }
                value |= UInt64(try byte()) << (8 * index)
                mask >>= 1
            }
            return value
        }

        /// A number that counts entries, at most libarchive's 100 million.
        private mutating func count() throws -> Int {
            let value = try number()
            guard value <= 100_000_000 else { throw Malformed() }
            return Int(value)
        }
    }
}
