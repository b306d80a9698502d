import Foundation
import Testing
import TestSupport

/// Archives that declare more memory than reading them may take, made in a
/// test: by Python's `lzma`, `zlib` and `tarfile`, by the `xz`, `zstd`,
/// `gzip` and `7z` programs, and by hand where a field must lie (a
/// dictionary byte rewritten, with the CRC that covers it).
enum HostileArchives {
    /// `python3 -c SCRIPT KIND OUT [ARGUMENT...]` writes the archive OUT:
    ///
    /// - `xz-tar MIB DICT`: a tar of one file of MIB MiB of zeros, xz'd, its
    ///   block declaring the LZMA2 dictionary byte DICT (39: 3 GiB).
    /// - `zip-lzma MIB DICT`: a zip whose member of MIB MiB of zeros is
    ///   LZMA-compressed (method 14), declaring a DICT-byte dictionary.
    /// - `zip-xz MIB DICT`: a zip whose member is an xz stream (method 95) of
    ///   two blocks, 1 MiB then MIB MiB of zeros; the second declares DICT.
    /// - `7z-lzma2 MIB DICT [FILE]`: 7z's archive of MIB MiB of zeros (a
    ///   FIFO entry, from its standard input), or of FILE, LZMA2 with the
    ///   dictionary byte DICT, its header not compressed.
    /// - `7z-ppmd MEMORY`: 7z's archive of a small file, PPMd declaring a
    ///   model of MEMORY bytes.
    /// - `7z-files COUNT`: a 7z whose LZMA-encoded header lists COUNT empty files.
    /// - `7z-bcj2 SIZE`: a 7z header with a BCJ2 folder whose call and jump
    ///   streams declare SIZE bytes each.
    /// - `cpio-name SIZE COMPRESSOR...`: a newc cpio whose second header
    ///   declares a name of SIZE bytes (which follow, all "a"), piped
    ///   through COMPRESSOR (`gzip -1`, `zstd -1`).
    /// - `zip-ppmd MIB`, `zip-zstd LOG`: a zip member that declares a PPMd
    ///   model of MIB MiB, or a zstd window of 2^LOG bytes, and then ends.
    /// - `lzma DICT`, `lzip LOG`: a tar of 1 MiB of zeros in an `.lzma`
    ///   declaring a DICT-byte dictionary, or a `.lz` of 2^LOG.
    static let script = #"""
        import lzma, struct, subprocess, sys, tarfile, zlib
        MiB = 1 << 20
        kind, out, args = sys.argv[1], sys.argv[2], sys.argv[3:]

        def zeros(total):
            while total > 0:
                yield bytes(min(MiB, total))
                total -= MiB

        def tar_of_zeros(size):
            info = tarfile.TarInfo("zeros")
            info.size = size
            yield info.tobuf(tarfile.USTAR_FORMAT)
            yield from zeros(size)
            yield bytes(-size % 512 + 1024)

        def compress(chunks, compressor):
            return b"".join([compressor.compress(chunk) for chunk in chunks] + [compressor.flush()])

        def vli(data, at):
            value, shift = 0, 0
            while True:
                byte = data[at]
                value |= (byte & 0x7F) << shift
                at, shift = at + 1, shift + 7
                if byte < 0x80:
                    return value, at

        def set_xz_dictionary(xz, block, dictionary):
            # The LZMA2 filter's properties byte in the block header at `block`, and the header's CRC32.
            size = (xz[block] + 1) * 4
            flags, at = xz[block + 1], block + 2
            for present in (0x40, 0x80):
                if flags & present:
                    _, at = vli(xz, at)
            for _ in range((flags & 3) + 1):
                filter_id, at = vli(xz, at)
                properties, at = vli(xz, at)
                if filter_id == 0x21:
                    xz[at] = dictionary
                at += properties
            xz[block + size - 4:block + size] = struct.pack("<I", zlib.crc32(bytes(xz[block:block + size - 4])))

        def zip_of(name, method, payload, size, crc, flags=0):
            local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 63, flags, method, 0, 0, crc, len(payload), size, len(name), 0) + name
            central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 63, 63, flags, method, 0, 0, crc, len(payload), size,
                                  len(name), 0, 0, 0, 0, 0o100644 << 16, 0) + name
            end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local) + len(payload), 0)
            return local + payload + central + end

        def crc_of_zeros(size):
            crc = 0
            for chunk in zeros(size):
                crc = zlib.crc32(chunk, crc)
            return crc

        def number(value):
            # A 7z number: leading 1 bits in the first byte count the little-endian bytes that follow.
            for count in range(9):
                if count == 8 or value < (1 << (7 * (count + 1))):
                    high = value >> (8 * count) if count < 8 else 0
                    return bytes([(0xFF00 >> count) & 0xFF | high]) + value.to_bytes(8, "little")[:count]

        def seven_zip(header, packed=b""):
            start = struct.pack("<QQI", len(packed), len(header), zlib.crc32(header))
            return b"7z\xbc\xaf\x27\x1c\x00\x04" + struct.pack("<I", zlib.crc32(start)) + start + packed + header

        def patch_7z_header(archive, pattern, replace):
            # Rewrites bytes of a plain header (7z -mhc=off), and the CRCs over it.
            archive = bytearray(archive)
            offset, size = struct.unpack_from("<QQ", archive, 12)
            header = bytearray(archive[32 + offset:32 + offset + size])
            at = header.find(pattern)
            assert at >= 0, "no coder " + pattern.hex()
            replace(header, at + len(pattern))
            archive[32 + offset:32 + offset + size] = header
            struct.pack_into("<I", archive, 28, zlib.crc32(bytes(header)))
            struct.pack_into("<I", archive, 8, zlib.crc32(bytes(archive[12:32])))
            return bytes(archive)

        def run_with_zeros(command, size, output):
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=output)
            for chunk in zeros(size):
                process.stdin.write(chunk)
            process.stdin.close()
            assert process.wait() == 0, command

        def seven_zip_of(size, method, file=None):
            command = ["7z", "a", "-bd", "-mhc=off", "-m0=" + method, out]
            if file:
                subprocess.run(command + [file], check=True, stdout=subprocess.DEVNULL)
            else:
                run_with_zeros(command + ["-sizeros"], size, subprocess.DEVNULL)
            return open(out, "rb").read()

        if kind == "xz-tar":
            size, dictionary = int(args[0]) * MiB, int(args[1])
            xz = bytearray(compress(tar_of_zeros(size), lzma.LZMACompressor(
                format=lzma.FORMAT_XZ, filters=[{"id": lzma.FILTER_LZMA2, "dict_size": MiB, "preset": 0}])))
            set_xz_dictionary(xz, 12, dictionary)
            data = bytes(xz)
        elif kind == "zip-lzma":
            size, dictionary = int(args[0]) * MiB, int(args[1])
            raw = compress(zeros(size), lzma.LZMACompressor(
                format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA1, "dict_size": MiB, "preset": 0}]))
            payload = bytes([9, 20, 5, 0, 0x5D]) + struct.pack("<I", dictionary) + raw
            data = zip_of(b"zeros", 14, payload, size, crc_of_zeros(size), flags=2)
        elif kind == "zip-xz":
            size, dictionary = int(args[0]) * MiB, int(args[1])
            with open(out, "wb") as output:
                run_with_zeros(["xz", "-0", "-T1", "--block-list=1MiB,0", "-c"], MiB + size, output)
            xz = bytearray(open(out, "rb").read())
            # The index (before the 12-byte footer) gives the first block's unpadded size.
            index_size = (struct.unpack_from("<I", xz, len(xz) - 8)[0] + 1) * 4
            records, at = vli(xz, len(xz) - 12 - index_size + 1)
            assert records == 2
            unpadded, _ = vli(xz, at)
            set_xz_dictionary(xz, 12 + (unpadded + 3) // 4 * 4, dictionary)
            data = zip_of(b"zeros", 95, bytes(xz), MiB + size, crc_of_zeros(MiB + size))
        elif kind == "7z-lzma2":
            def set_dictionary(header, at):
                header[at] = int(args[1])
            data = patch_7z_header(seven_zip_of(int(args[0]) * MiB, "LZMA2:d=1m", *args[2:]), b"\x21\x21\x01", set_dictionary)
        elif kind == "7z-ppmd":
            def set_memory(header, at):
                header[at + 1:at + 5] = struct.pack("<I", int(args[0]))
            data = patch_7z_header(seven_zip_of(MiB, "PPMd:mem=1m"), b"\x23\x03\x04\x01\x05", set_memory)
        elif kind == "7z-files":
            count = int(args[0])
            bits = b"\xff" * ((count + 7) // 8)
            header = bytes([0x01, 0x05]) + number(count) + bytes([0x0E]) + number(len(bits)) + bits + bytes([0x00, 0x00])
            packed = compress([header], lzma.LZMACompressor(format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA1, "dict_size": 1 << 16}]))
            encoded = bytes([0x17, 0x06]) + number(0) + number(1) + bytes([0x09]) + number(len(packed)) + bytes([0x00])
            encoded += bytes([0x07, 0x0B, 0x01, 0x00, 0x01, 0x23, 0x03, 0x01, 0x01, 0x05, 0x5D]) + struct.pack("<I", 1 << 16)
            encoded += bytes([0x0C]) + number(len(header)) + bytes([0x00, 0x00])
            data = seven_zip(encoded, packed)
        elif kind == "7z-bcj2":
            size = int(args[0])
            lzma_coder = bytes([0x23, 0x03, 0x01, 0x01, 0x05, 0x5D]) + struct.pack("<I", 1 << 16)
            # BCJ2 takes its main, call and jump streams from the three LZMA coders; its fourth input is packed as is.
            folder = bytes([0x04, 0x14, 0x03, 0x03, 0x01, 0x1B, 0x04, 0x01]) + lzma_coder * 3
            folder += bytes([0x00, 0x01, 0x01, 0x02, 0x02, 0x03]) + bytes([0x04, 0x05, 0x06, 0x03])
            streams = bytes([0x06, 0x00, 0x04, 0x09, 0x01, 0x01, 0x01, 0x01, 0x00])
            streams += bytes([0x07, 0x0B, 0x01, 0x00]) + folder + bytes([0x0C]) + number(100) + number(100) + number(size) * 2 + bytes([0x00])
            header = bytes([0x01, 0x04]) + streams + bytes([0x00, 0x05, 0x01, 0x00, 0x00])
            data = seven_zip(header, bytes(4))
        elif kind == "cpio-name":
            size, compressor = int(args[0]), args[1:]
            def newc(name_size):
                return b"070701" + b"".join(b"%08X" % v for v in [1, 0o100644, 0, 0, 1, 0, 0, 0, 0, 0, 0, name_size, 0])
            with open(out, "wb") as output:
                process = subprocess.Popen(compressor, stdin=subprocess.PIPE, stdout=output)
                process.stdin.write(newc(6) + b"first\0")
                process.stdin.write(newc(size))
                for chunk in zeros(size):
                    process.stdin.write(b"a" * len(chunk))
                process.stdin.write(bytes(-(110 + size) % 4) + newc(11) + b"TRAILER!!!\0")
                process.stdin.close()
                assert process.wait() == 0
            sys.exit(0)
        elif kind == "zip-ppmd":
            parameters = 5 | (int(args[0]) - 1) << 4
            data = zip_of(b"model", 98, struct.pack("<H", parameters) + bytes(16), 100, 0)
        elif kind == "zip-zstd":
            frame = struct.pack("<IBB", 0xFD2FB528, 0x00, (int(args[0]) - 10) << 3) + bytes(16)
            data = zip_of(b"window", 93, frame, 100, 0)
        elif kind == "lzma":
            raw = compress(tar_of_zeros(MiB), lzma.LZMACompressor(format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA1, "dict_size": MiB}]))
            data = bytes([0x5D]) + struct.pack("<I", int(args[0])) + b"\xff" * 8 + raw
        elif kind == "lzip":
            tar = b"".join(tar_of_zeros(MiB))
            raw = compress([tar], lzma.LZMACompressor(format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA1, "dict_size": MiB}]))
            member = b"LZIP" + bytes([1, int(args[0])]) + raw
            data = member + struct.pack("<IQQ", zlib.crc32(tar), len(tar), len(member) + 20)
        else:
            sys.exit("unknown kind " + kind)
        open(out, "wb").write(data)
        """#

    /// Writes the archive `name` in `directory` (see ``script``).
    @discardableResult
    static func make(_ kind: String, _ arguments: [String], named name: String, in directory: URL) throws -> URL {
        let archive = directory.appendingPathComponent(name)
        try Interop.run("python3", ["-c", script, kind, archive.path] + arguments, in: directory)
        return archive
    }
}
