/// The records of a pax extended header, `"LENGTH KEY=VALUE\n"`, where
/// LENGTH counts the whole record, its own digits included: parsed from an
/// archive's bytes (FileWrapperArchive's `PlainTarReader` and `PaxRawRecords`,
/// and ``SerializedTar``) and written for ours (FileWrapperArchive's
/// `TarHeader`), with the `mtime` record's decimal time, in one place.
package enum PaxRecord {
    /// One record.
    package static func encoded(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let rest = key.utf8.count + value.count + 3  // " ", "=", "\n"
        var length = rest + String(rest).count
        if String(length).count > String(rest).count { length += 1 }
        return Array("\(length) \(key)=".utf8) + value + [UInt8(ascii: "\n")]
    }

    /// The records of an extended header's body, in order, as long as they
    /// are well formed; `wellFormed` is false when one is not (a length
    /// that does not lead to a newline, a key missing or empty), and the
    /// records after it are not read.
    package static func parse(_ body: [UInt8]) -> (records: [(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)], wellFormed: Bool) {
        var records: [(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] = []
        var rest = body[...]
        while !rest.isEmpty {
            // libarchive's limit on an extended header, 1 MiB, has seven digits.
            guard let space = rest.prefix(8).firstIndex(of: UInt8(ascii: " ")), space > rest.startIndex,
                  let length = Int64(decimal: rest[..<space]), length <= rest.count,
                  case let newline = rest.startIndex + Int(length) - 1, newline > space, rest[newline] == UInt8(ascii: "\n"),
                  let equals = rest[(space + 1)..<newline].firstIndex(of: UInt8(ascii: "=")), equals > space + 1
            else { return (records, false) }
            records.append((rest[(space + 1)..<equals], rest[(equals + 1)..<newline]))
            rest = rest[(rest.startIndex + Int(length))...]
        }
        return (records, true)
    }

    /// A time as POSIX pax writes it, a decimal number of seconds since
    /// 1970, with the nanoseconds as a fraction when there are any: 1.5 s
    /// before 1970 (-2 s and 500,000,000 ns) is `-1.5`, as GNU tar writes
    /// it and GNU tar, Python's tarfile and ``time(_:)`` read it.
    /// libarchive 3.6.2 writes `-2.5` and reads `-1.5` as -0.5 s.
    package static func text(_ time: FileTimestamp) -> String {
        guard time.nanoseconds != 0 else { return String(time.seconds) }
        let negative = time.seconds < 0
        var fraction = String(negative ? 1_000_000_000 - time.nanoseconds : time.nanoseconds)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return negative ? "-\(-(time.seconds + 1)).\(fraction)" : "\(time.seconds).\(fraction)"
    }

    /// `[-]SECONDS[.FRACTION]` as seconds and nanoseconds from 0 to
    /// 999,999,999: a negative time's fraction counts back from its
    /// seconds (`-0.5` is -1 s + 500,000,000 ns); nine digits of the
    /// fraction kept, as libarchive keeps them. nil when malformed.
    package static func time(_ value: ArraySlice<UInt8>) -> (seconds: Int64, nanoseconds: Int32)? {
        let negative = value.first == UInt8(ascii: "-")
        let digits = negative ? value.dropFirst() : value
        let dot = digits.firstIndex(of: UInt8(ascii: ".")) ?? digits.endIndex
        guard let whole = Int64(decimal: digits[..<dot]) else { return nil }
        var nanoseconds: Int64 = 0
        if dot < digits.endIndex {
            let fraction = digits[(dot + 1)...]
            guard fraction.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
            for index in 0..<9 {
                let at = fraction.index(fraction.startIndex, offsetBy: index, limitedBy: fraction.endIndex) ?? fraction.endIndex
                nanoseconds = nanoseconds * 10 + (at < fraction.endIndex ? Int64(fraction[at] - UInt8(ascii: "0")) : 0)
            }
        }
        guard negative else { return (whole, Int32(nanoseconds)) }
        return nanoseconds == 0 ? (-whole, 0) : (-whole - 1, Int32(1_000_000_000 - nanoseconds))
    }
}

extension Int64 {
    /// Decimal digits only, without sign or spaces; nil on anything else
    /// or on overflow: the numbers of tar's extended records.
    package init?(decimal digits: ArraySlice<UInt8>) {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        self = value
    }
}
