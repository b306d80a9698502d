import CLZMA
import Glibc

/// The memory liblzma needs to decode what a header declares, as liblzma
/// itself counts it (`lzma_raw_decoder_memusage`): for the LZMA streams and
/// xz blocks that libarchive decodes inside zip and 7z archives, where it
/// sets no limit.
enum LZMAMemory {
    /// liblzma's filter IDs (`LZMA_FILTER_LZMA1`, `LZMA_FILTER_LZMA2`).
    static let lzma1: lzma_vli = 0x4000_0000_0000_0001
    static let lzma2: lzma_vli = 0x21

    /// For an LZMA stream with the 5 bytes of properties `properties`
    /// (lc, lp and pb, then the dictionary size); nil when liblzma refuses
    /// them (as it then refuses to decode).
    static func lzma(properties: some Collection<UInt8>) -> UInt64? {
        decoding(filter: lzma1, properties: Array(properties))
    }

    /// For an LZMA2 stream with the properties byte `dictionary`.
    static func lzma2(dictionary: UInt8) -> UInt64? {
        decoding(filter: lzma2, properties: [dictionary])
    }

    /// For the filters of the xz block header `header` (all of its bytes,
    /// the size byte first) in a stream with integrity check `check`; nil
    /// when the header does not decode (liblzma then refuses the block).
    static func xzBlock(header: [UInt8], check: UInt8) -> UInt64? {
        var filters = [lzma_filter](repeating: lzma_filter(id: UInt64.max, options: nil), count: Int(LZMA_FILTERS_MAX) + 1)
        return filters.withUnsafeMutableBufferPointer { filters -> UInt64? in
            var block = lzma_block()
            block.version = 1
            block.header_size = (UInt32(header[0]) + 1) * 4
            block.check = lzma_check(UInt32(check))
            block.filters = filters.baseAddress
            guard header.count == block.header_size,
                  header.withUnsafeBufferPointer({ lzma_block_header_decode(&block, nil, $0.baseAddress) }) == LZMA_OK
            else { return nil }
            defer { lzma_filters_free(filters.baseAddress, nil) }
            return usage(filters.baseAddress!)
        }
    }

    /// For the one filter `filter` with `properties`, as liblzma decodes them
    /// (`lzma_properties_decode`).
    private static func decoding(filter: lzma_vli, properties: [UInt8]) -> UInt64? {
        var filters = [lzma_filter(id: filter, options: nil), lzma_filter(id: UInt64.max, options: nil)]
        let decoded = properties.withUnsafeBufferPointer { lzma_properties_decode(&filters[0], nil, $0.baseAddress, $0.count) }
        guard decoded == LZMA_OK else { return nil }
        defer { free(filters[0].options) }
        return filters.withUnsafeBufferPointer { usage($0.baseAddress!) }
    }

    /// liblzma's count for a chain ended by `LZMA_VLI_UNKNOWN`; nil when it
    /// does not know a filter (`UINT64_MAX`).
    private static func usage(_ filters: UnsafePointer<lzma_filter>) -> UInt64? {
        let usage = lzma_raw_decoder_memusage(filters)
        return usage == UInt64.max ? nil : usage
    }
}
