import Foundation

/// A reader of Apple's serialized file wrapper ("flat RTFD") written in
/// Python from the layout document (shared/formats/flat-rtfd.md), not from
/// our Swift code: what the tests check our writer's bytes with. It also
/// checks what ours promises beyond Apple's format (keys in byte order,
/// data of a page or more on a 4 KiB boundary of its stream, declared
/// lengths right, nothing after the top object) and lists the offset and
/// role of every structural field, for tests that corrupt them.
public enum FlatRTFDPythonReader {
    /// What the reader found in one blob.
    public struct Reading {
        /// One line per wrapper: `PATH KIND MODE MTIME DIGEST`, PATH the
        /// keys' bytes in hex joined by `/` (empty for a top-level leaf),
        /// DIGEST the SHA-256 of a file's bytes or `->` and a link's target
        /// in hex; sorted.
        public var entries: [String]
        /// The top level: `directory`, `file` or `link`.
        public var top: String
        /// The preferred name's bytes from `__@UTF8PreferredName@__` and `__@PreferredName@__`.
        public var utf8Name: [UInt8]?
        public var nextstepName: [UInt8]?
        /// Every structural `UInt32`: its offset in the blob and its role
        /// (`tag`, `count`, `size`, `marker`, `pad`, `length`, `info-count`, ...).
        public var fields: [(offset: Int, role: String)]
        /// The ranges of the bytes of keys and data, which are not structure.
        public var payloads: [Range<Int>]
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads the blob at `path` with Python.
    public static func read(_ path: String) throws -> Reading {
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", script, path])
        guard result.status == 0, result.exited,
              let json = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any],
              let entries = json["entries"] as? [String], let top = json["top"] as? String,
              let fields = json["fields"] as? [[Any]], let payloads = json["payloads"] as? [[Int]]
        else { throw Failure(description: "python reader: status \(result.status)\n\(result.stderr)\(result.stdout)") }
        func bytes(_ key: String) -> [UInt8]? {
            (json[key] as? String).map { hex in
                stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16)! }
            }
        }
        return Reading(
            entries: entries, top: top, utf8Name: bytes("utf8Name"), nextstepName: bytes("nextstepName"),
            fields: fields.map { ($0[0] as! Int, $0[1] as! String) }, payloads: payloads.map { $0[0]..<$0[1] })
    }

    static let script = #"""
import hashlib, json, struct, sys

blob = open(sys.argv[1], 'rb').read()
PAGE = 4096
fields, payloads = [], []

def fail(message):
    sys.exit('flat RTFD: ' + message)

class Stream:
    def __init__(self, start, end, role_prefix):
        self.base, self.pos, self.end, self.prefix = start, start, end, role_prefix
    def u32(self, role):
        if self.pos + 4 > self.end: fail('truncated at %d' % self.pos)
        fields.append([self.pos, self.prefix + role])
        value = struct.unpack_from('<I', blob, self.pos)[0]
        self.pos += 4
        return value
    def sized(self):
        size = self.u32('size')
        if size == 0x80000000:
            fields[-1][1] = self.prefix + 'marker'
            size = self.u32('size')
            pad = self.u32('pad')
            if blob[self.pos:self.pos + pad] != bytes(pad): fail('padding not zero')
            self.pos += pad
        if size >= PAGE and (self.pos - self.base) % PAGE != 0: fail('data of %d bytes at %d not aligned' % (size, self.pos))
        if self.pos + size > self.end: fail('size %d past the end' % size)
        start = self.pos
        self.pos += size
        payloads.append([start, self.pos])
        return start, self.pos

def sorted_unique(keys):
    raw = [blob[s:e] for s, e in keys]
    if raw != sorted(raw) or len(set(raw)) != len(raw): fail('keys not in byte order: %r' % raw)
    return raw

def read_object(stream):
    tag = stream.u32('tag')
    if tag == 1:
        return ('data', stream.sized())
    if tag == 3:
        count = stream.u32('count')
        keys = sorted_unique([stream.sized() for _ in range(count)])
        length_offsets = []
        for _ in range(count):
            length_offsets.append(stream.pos)
            stream.u32('length')
        values = {}
        for key, offset in zip(keys, length_offsets):
            start = stream.pos
            values[key] = read_object(stream)
            if struct.unpack_from('<I', blob, offset)[0] != stream.pos - start: fail('declared length wrong for %r' % key)
        return ('dict', values)
    fail('unknown tag %d' % tag)

def read_info(span):
    stream = Stream(span[0], span[1], 'info-')
    count = stream.u32('count')
    keys = sorted_unique([stream.sized() for _ in range(count)])
    for _ in range(count):
        if stream.u32('length') != 16: fail('info length not 16')
    info = {}
    for key in keys:
        info[key] = tuple(stream.u32(role) for role in ('mtime', 'mode', 'kind', 'leaf'))
    if stream.pos != span[1]: fail('bytes after the directory info')
    return info

def signed(value):
    return value - (1 << 32) if value >= 1 << 31 else value

entries = []
def describe(path, value, info, top_leaf=False):
    mtime, mode, kind, leaf = info
    if top_leaf:
        if mtime != 0 or leaf != 1 or kind & 2 == 0: fail('top-level leaf info %r' % (info,))
    elif leaf != 0 or kind & 2: fail('leaf bits on a child')
    kind &= 5
    if value[0] == 'dict':
        if kind != 1: fail('a dictionary whose kind is %d' % kind)
        entries.append('%s directory %o %d' % (path, mode, signed(mtime)))
        directory(path, value[1])
    elif kind == 4:
        s, e = value[1]
        entries.append('%s link %o %d -> %s' % (path, mode, signed(mtime), blob[s:e].hex()))
    elif kind == 0:
        s, e = value[1]
        entries.append('%s file %o %d %s' % (path, mode, signed(mtime), hashlib.sha256(blob[s:e]).hexdigest()))
    else:
        fail('data whose kind is %d' % kind)

def directory(path, values, top=False):
    children = {k: v for k, v in values.items() if k != b'.' and not (top and k in names)}
    if not children:
        if b'.' in values: fail('an empty directory with a directory info')
        return
    if b'.' not in values or values[b'.'][0] != 'data': fail('a directory without its info')
    info = read_info(values[b'.'][1])
    if sorted(info) != sorted(children): fail('the directory info names other children')
    for key, value in children.items():
        if key in (b'.', b'..') or b'/' in key or not key: fail('bad key %r' % key)
        key.decode('utf-8')
        describe((path + '/' if path else '') + key.hex(), value, info[key])

has_header = blob[:4] == b'rtfd' and len(blob) > 4 and blob[4] == 0
if not has_header: fail('no header')
if blob[4:8] != bytes(4): fail('version not 0')
stream = Stream(8, len(blob), '')
stream.base = 0
top = read_object(stream)
if stream.pos != len(blob): fail('bytes after the top object')
if top[0] != 'dict': fail('the top object is not a dictionary')
values = top[1]
names = (b'__@PreferredName@__', b'__@UTF8PreferredName@__')
result = {}
for key, field in zip(names, ('nextstepName', 'utf8Name')):
    if key in values:
        s, e = values[key][1]
        result[field] = blob[s:e].hex()
if (b'__@PreferredName@__' in values) != (b'__@UTF8PreferredName@__' in values): fail('one name key without the other')
if b'..' in values:
    if set(values) - {b'..', b'.'} - set(names): fail('more than a leaf at the top')
    info = read_info(values[b'.'][1])
    if list(info) != [b'..']: fail('the top info is not of ".."')
    describe('', values[b'..'], info[b'..'], top_leaf=True)
    result['top'] = 'link' if info[b'..'][2] & 4 else 'file'
else:
    directory('', values, top=True)
    result['top'] = 'directory'
result['entries'] = sorted(entries)
result['fields'] = fields
result['payloads'] = payloads
print(json.dumps(result))
"""#
}
