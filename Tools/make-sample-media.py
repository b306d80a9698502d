#!/usr/bin/env python3
"""Draws the binary media of the sample document Fixtures/Travel.journal.

    Tools/make-sample-media.py [JOURNAL]      (default: Fixtures/Travel.journal)

Writes Media/harbour.jpg (a baseline JPEG, 1152x768) and
QuickLook/Thumbnail.png (the same picture scaled to 192x128) inside JOURNAL.
Only the Python standard library is used; the output is the same bytes on
every run and machine (a fixed seed, integer arithmetic where it matters,
zlib at level 9).
"""

import math
import os
import random
import struct
import sys
import zlib

WIDTH, HEIGHT = 1152, 768
THUMB_SCALE = 6  # 192x128
SEED = 20260501
QUALITY = 90
HORIZON = 0.52

# --------------------------------------------------------------------------
# The picture: a harbour at the golden hour, houses on the quay, reflections.
# --------------------------------------------------------------------------

PALETTE = [
    (196, 92, 62),    # terracotta
    (222, 170, 72),   # ochre
    (60, 104, 160),   # azulejo blue
    (226, 150, 150),  # pink
    (236, 230, 214),  # whitewash
    (238, 200, 96),   # yellow
    (120, 150, 110),  # sage
]


def make_houses(rng):
    """Columns of houses along the quay: (left, right, top, colour, window pitch)."""
    houses, left = [], 0.0
    while left < 1.0:
        width = rng.uniform(0.03, 0.07)
        top = rng.uniform(0.33, 0.43)
        colour = PALETTE[rng.randrange(len(PALETTE))]
        houses.append((left, left + width, top, colour, rng.choice((0.012, 0.015, 0.018))))
        left += width
    return houses


def make_boats(rng):
    """Small boats moored on the water: (centre, row, half length, hull colour)."""
    return [(rng.uniform(0.05, 0.95), rng.uniform(0.56, 0.66), rng.uniform(0.02, 0.045),
             rng.choice(((240, 240, 236), (40, 70, 120), (170, 50, 40))))
            for _ in range(5)]


def lerp(a, b, t):
    return tuple(x + (y - x) * t for x, y in zip(a, b))


def land(u, v, houses):
    """Sky, hills and houses above the waterline at (u, v), both in 0...1."""
    for left, right, top, colour, pitch in houses:
        if left <= u < right:
            if v >= top:
                if v < top + 0.012:  # roof tiles
                    return (150, 66, 44)
                wx = (u - left) / pitch
                wy = (v - top - 0.02) / pitch
                if 0 <= wy and v < HORIZON - 0.025 and 0.3 < wx % 1 < 0.7 and 0.25 < wy % 1.6 < 0.95:
                    return (48, 44, 52)  # window
                shade = 0.85 + 0.15 * math.sin(u * 90)
                return tuple(c * shade for c in colour)
            break
    hill = 0.40 + 0.03 * math.sin(u * 7.0) + 0.02 * math.sin(u * 17.0 + 1.0)
    if v > hill:
        return lerp((104, 122, 128), (82, 104, 96), min(1.0, (v - hill) / 0.08))
    sky = lerp((46, 104, 186), (252, 204, 150), (v / HORIZON) ** 1.6)
    glow = math.exp(-((u - 0.72) ** 2 + (v - 0.28) ** 2 * 2.2) / 0.004)
    return lerp(sky, (255, 244, 214), min(1.0, glow))


def pixel(u, v, houses, boats):
    """The colour at (u, v) as floats."""
    if v < HORIZON:
        return land(u, v, houses)
    depth = (v - HORIZON) / (1.0 - HORIZON)
    for centre, row, half, hull in boats:
        if row - 0.018 < v < row and abs(u - centre) < half * (1.0 - (row - v) * 12):
            return hull if v < row - 0.006 else (30, 30, 34)
    ripple = 0.006 * math.sin(v * 220.0 + math.sin(u * 30.0) * 2.0)
    mirrored = land(min(0.999, max(0.0, u + ripple)), HORIZON - (v - HORIZON) * 0.9, houses)
    water = lerp((38, 92, 112), (14, 46, 64), depth)
    reflected = lerp(mirrored, water, 0.45 + 0.4 * depth)
    sparkle = max(0.0, math.sin(v * 310.0 + u * 40.0)) ** 12 * (1.0 - depth) * 60
    return tuple(c + sparkle for c in reflected)


def render(rng):
    """The picture as rows of (r, g, b) byte triples, with film grain."""
    houses, boats = make_houses(rng), make_boats(rng)
    rows = []
    for y in range(HEIGHT):
        v = (y + 0.5) / HEIGHT
        row = []
        for x in range(WIDTH):
            r, g, b = pixel((x + 0.5) / WIDTH, v, houses, boats)
            grain = rng.gauss(0.0, 3.5)
            row.append(tuple(max(0, min(255, int(round(c + grain)))) for c in (r, g, b)))
        rows.append(row)
    return rows


# --------------------------------------------------------------------------
# PNG: signature, IHDR, IDAT, IEND; each chunk with its CRC-32.
# --------------------------------------------------------------------------

def png(rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    height, width = len(rows), len(rows[0])
    raw = bytearray()
    for row in rows:
        raw.append(0)  # filter: none
        for pixel_ in row:
            raw.extend(pixel_)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def scaled_down(rows, factor):
    """Box-filtered copy of rows, factor times smaller in each direction."""
    out = []
    for y in range(0, len(rows), factor):
        line = []
        for x in range(0, len(rows[0]), factor):
            sums = [0, 0, 0]
            for yy in range(y, y + factor):
                for xx in range(x, x + factor):
                    for c in range(3):
                        sums[c] += rows[yy][xx][c]
            line.append(tuple((s + factor * factor // 2) // (factor * factor) for s in sums))
        out.append(line)
    return out


# --------------------------------------------------------------------------
# JPEG: baseline, 4:4:4, the standard Huffman tables of ITU T.81 Annex K.
# --------------------------------------------------------------------------

ZIGZAG = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]
LUMA_Q = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
]
CHROMA_Q = [
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
] + [99] * 32
DC_LUMA = ([0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], list(range(12)))
DC_CHROMA = ([0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], list(range(12)))
AC_LUMA = ([0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D], [
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
    0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0,
    0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28,
    0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
    0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
    0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
    0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
    0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5,
    0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
    0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
    0xF9, 0xFA,
])
AC_CHROMA = ([0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77], [
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
    0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1, 0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0,
    0x15, 0x62, 0x72, 0xD1, 0x0A, 0x16, 0x24, 0x34, 0xE1, 0x25, 0xF1, 0x17, 0x18, 0x19, 0x1A, 0x26,
    0x27, 0x28, 0x29, 0x2A, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
    0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
    0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
    0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5,
    0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
    0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA,
    0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
    0xF9, 0xFA,
])
for _bits, _values in (DC_LUMA, DC_CHROMA, AC_LUMA, AC_CHROMA):
    assert sum(_bits) == len(_values) and len(set(_values)) == len(_values)

# The DCT basis, scaled to integers (2^14) so every machine rounds alike.
DCT = [[round((math.sqrt(0.125) if u == 0 else 0.5) * math.cos((2 * x + 1) * u * math.pi / 16) * 16384)
        for x in range(8)] for u in range(8)]


def quant_table(base, quality):
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return [max(1, min(255, (q * scale + 50) // 100)) for q in base]


def huffman_codes(spec):
    """Symbol -> (code, length), assigned canonically from the BITS counts."""
    bits, values = spec
    codes, code, index = {}, 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            codes[values[index]] = (code, length)
            code += 1
            index += 1
        code <<= 1
    return codes


class BitWriter:
    def __init__(self):
        self.out, self.accumulator, self.count = bytearray(), 0, 0

    def write(self, value, length):
        self.accumulator = (self.accumulator << length) | (value & ((1 << length) - 1))
        self.count += length
        while self.count >= 8:
            self.count -= 8
            byte = (self.accumulator >> self.count) & 0xFF
            self.out.append(byte)
            if byte == 0xFF:
                self.out.append(0)  # byte stuffing
        self.accumulator &= (1 << self.count) - 1

    def flush(self):
        if self.count:
            self.write((1 << (8 - self.count)) - 1, 8 - self.count)  # pad with ones
        return bytes(self.out)


def magnitude(value):
    """A coefficient's size category and its bits, as T.81 F.1.2.1 codes them."""
    size = abs(value).bit_length()
    return size, (value if value >= 0 else value + (1 << size) - 1)


def encode_block(block, quant, dc_codes, ac_codes, previous_dc, writer):
    """Transforms, quantises and writes one 8x8 block; returns its DC value."""
    rows = [[sum(DCT[u][x] * block[y * 8 + x] for x in range(8)) for u in range(8)] for y in range(8)]
    coefficients = [0] * 64
    for v in range(8):
        for u in range(8):
            total = sum(DCT[v][y] * rows[y][u] for y in range(8))  # scaled by 2^28
            q = quant[v * 8 + u] << 28
            coefficients[v * 8 + u] = (total + q // 2) // q if total >= 0 else -((-total + q // 2) // q)
    dc = coefficients[0]
    size, bits = magnitude(dc - previous_dc)
    writer.write(*dc_codes[size])
    if size:
        writer.write(bits, size)
    run = 0
    for k in range(1, 64):
        value = coefficients[ZIGZAG[k]]
        if value == 0:
            run += 1
            continue
        while run > 15:
            writer.write(*ac_codes[0xF0])
            run -= 16
        size, bits = magnitude(value)
        writer.write(*ac_codes[(run << 4) | size])
        writer.write(bits, size)
        run = 0
    if run:
        writer.write(*ac_codes[0x00])
    return dc


def jpeg(rows, quality, comment):
    height, width = len(rows), len(rows[0])
    assert width % 8 == 0 and height % 8 == 0
    planes = [[], [], []]  # Y, Cb, Cr, level-shifted, JFIF's integer conversion
    for row in rows:
        for r, g, b in row:
            planes[0].append((19595 * r + 38470 * g + 7471 * b + 32768 >> 16) - 128)
            planes[1].append((-11059 * r - 21709 * g + 32768 * b + 32768 >> 16))
            planes[2].append((32768 * r - 27439 * g - 5329 * b + 32768 >> 16))
    quants = [quant_table(LUMA_Q, quality), quant_table(CHROMA_Q, quality)]
    codes = [(huffman_codes(DC_LUMA), huffman_codes(AC_LUMA)),
             (huffman_codes(DC_CHROMA), huffman_codes(AC_CHROMA))]
    writer, previous = BitWriter(), [0, 0, 0]
    for by in range(0, height, 8):
        for bx in range(0, width, 8):
            for c in range(3):
                plane = planes[c]
                block = [plane[(by + y) * width + bx + x] for y in range(8) for x in range(8)]
                table = 0 if c == 0 else 1
                previous[c] = encode_block(block, quants[table], *codes[table], previous[c], writer)
    scan = writer.flush()

    def segment(marker, payload):
        return bytes((0xFF, marker)) + struct.pack(">H", len(payload) + 2) + payload

    def huffman_segment(table_class, table_id, spec):
        bits, values = spec
        return bytes(((table_class << 4) | table_id,)) + bytes(bits) + bytes(values)

    out = bytearray(b"\xFF\xD8")
    out += segment(0xE0, b"JFIF\x00" + struct.pack(">BBBHHBB", 1, 1, 1, 72, 72, 0, 0))
    out += segment(0xFE, comment.encode("ascii"))
    for table_id, quant in enumerate(quants):
        out += segment(0xDB, bytes((table_id,)) + bytes(quant[ZIGZAG[k]] for k in range(64)))
    out += segment(0xC0, struct.pack(">BHHB", 8, height, width, 3)
                   + bytes((1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1)))
    out += segment(0xC4, huffman_segment(0, 0, DC_LUMA) + huffman_segment(1, 0, AC_LUMA)
                   + huffman_segment(0, 1, DC_CHROMA) + huffman_segment(1, 1, AC_CHROMA))
    out += segment(0xDA, bytes((3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0)))
    out += scan + b"\xFF\xD9"
    return bytes(out)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as file:
        file.write(data)
    print(f"{path}: {len(data)} bytes")


def main():
    journal = sys.argv[1] if len(sys.argv) > 1 else "Fixtures/Travel.journal"
    rows = render(random.Random(SEED))
    write(os.path.join(journal, "Media", "harbour.jpg"),
          jpeg(rows, QUALITY, "Ribeira harbour at dusk. Drawn by Tools/make-sample-media.py."))
    write(os.path.join(journal, "QuickLook", "Thumbnail.png"), png(scaled_down(rows, THUMB_SCALE)))


if __name__ == "__main__":
    main()
