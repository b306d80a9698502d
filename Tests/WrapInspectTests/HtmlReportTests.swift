import Foundation
import Glibc
import Testing
import TestSupport

/// `diff --html`, `dump --html` and `verify --html`: one self-contained
/// page each. The diff page of the sample's scripted edit
/// (Tools/sample-edit.sh) is opened in headless Chromium, once: its text
/// after the script ran, that it loaded nothing, and its screenshot.
@Suite("wrapinspect --html")
struct HtmlReportTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A name with markup in it, and one that is not UTF-8 (`caf\xFF.md`).
    static let markupName = "a<script>alert(1)<|script>b.md"
    static let latin1Name: [UInt8] = Array("caf".utf8) + [0xFF] + Array(".md".utf8)

    /// The scripted edit in `directory`: Travel.journal and Edited.journal,
    /// with the two awkward names added to the edited one.
    static func scriptedEdit(in directory: TemporaryDirectory, sample: SampleJournal) throws {
        let made = try ChildProcess.run(repository.appendingPathComponent("Tools/sample-edit.sh").path,
                                        [sample.url.path, directory.url.path])
        try #require(made.status == 0, "\(made.stderr)")
        try Disk.write("markup\n", to: directory.appending("Edited.journal/Entries/\(markupName)"))
        // The name's bytes as they are: through the C string, not a Swift String.
        var path = Array(directory.appending("Edited.journal/Entries/").path.utf8) + latin1Name + [0]
        let fd = path.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        try #require(fd >= 0)
        close(fd)
    }

    @Test func theDiffPageWorksInChromium() throws {
        let directory = try TemporaryDirectory()
        let sample = try SampleJournal()
        try Self.scriptedEdit(in: directory, sample: sample)
        let result = try WrapInspectProcess.run(["diff", "--html", "page.html", "Travel.journal", "Edited.journal"], in: directory.url)
        #expect(result.status == 1, "\(result.stderr)")
        let page = try String(contentsOf: directory.appending("page.html"), encoding: .utf8)
        // Nothing to fetch: no address, no src or href, and a policy that forbids loading.
        for outside in ["http:", "https:", "src=", "href=", "url(", "@import"] {
            #expect(!page.contains(outside), "\(outside)")
        }
        #expect(page.contains("default-src 'none'"))

        // One launch: the DOM after the script ran, and a screenshot.
        let screenshot = directory.appending("shot.png")
        let chromium = try ChildProcess.run("/usr/bin/chromium", [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=900,1400",
            "--screenshot=\(screenshot.path)", "--dump-dom", directory.appending("page.html").absoluteString + "#expand",
        ], environment: ["HOME": directory.url.path])
        #expect(chromium.status == 0, "\(chromium.stderr)")
        let dom = chromium.stdout
        // The script ran, and the browser loaded nothing besides the page (Resource Timing).
        #expect(dom.contains("data-ready=\"yes\""), "\(dom.prefix(2000))")
        #expect(dom.contains("data-resources=\"0\""))
        #expect(dom.contains(" changes marked, 0 resources loaded"))
        // The changed entries, a hunk line of the markdown entry, of the nested zip's member, and the structured changes.
        for text in ["2026-05-03 Porto.md", "Attachments.zip", "receipts.txt", "+The tiles on the station walls.",
                     "+Francesinha: 12.50 EUR", "/title", "Portugal and Galicia, May 2026", "formatting only, the same data"] {
            #expect(dom.contains(text), "\(text)")
        }
        // The names as text: markup escaped (our script the only one), bytes that are not UTF-8 escaped.
        #expect(dom.contains("a&lt;script&gt;alert(1)&lt;|script&gt;b.md"))
        #expect(dom.components(separatedBy: "<script").count == 2, "one script element")
        #expect(dom.contains("caf\\xFF.md"))
        try Self.expectPicture(screenshot, width: 900, height: 1400)
    }

    /// The PNG's size and that it is not one colour: its header read
    /// here, its image data inflated by python3's zlib, its rows unfiltered
    /// here (8-bit RGB or RGBA, the five filters of the PNG specification).
    static func expectPicture(_ url: URL, width: Int, height: Int) throws {
        let png = try [UInt8](Data(contentsOf: url))
        try #require(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) && png.count > 33, "not a PNG")
        func number(_ at: Int) -> Int { png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        // IHDR is the first chunk: width, height, bit depth, colour type.
        #expect(String(decoding: png[12..<16], as: UTF8.self) == "IHDR")
        #expect((number(16), number(20)) == (width, height))
        let (depth, colourType) = (png[24], png[25])
        try #require(depth == 8 && (colourType == 2 || colourType == 6), "depth \(depth), colour type \(colourType)")
        let inflate = """
            import struct, sys, zlib
            data, pos, idat = open(sys.argv[1], "rb").read(), 8, b""
            while pos < len(data):
                length, kind = struct.unpack(">I4s", data[pos:pos + 8])
                if kind == b"IDAT": idat += data[pos + 8:pos + 8 + length]
                pos += 12 + length
            open(sys.argv[2], "wb").write(zlib.decompress(idat))
            """
        let raw = url.appendingPathExtension("raw")
        let inflated = try ChildProcess.run("/usr/bin/python3", ["-c", inflate, url.path, raw.path])
        try #require(inflated.status == 0, "\(inflated.stderr)")
        let rows = try [UInt8](Data(contentsOf: raw))
        let pixel = colourType == 2 ? 3 : 4, stride = width * pixel
        try #require(rows.count == height * (stride + 1))
        var previous = [UInt8](repeating: 0, count: stride), line = previous
        var colours: Set<[UInt8]> = []
        for row in 0..<height {
            let start = row * (stride + 1), filter = rows[start]
            for i in 0..<stride {
                let x = Int(rows[start + 1 + i]), a = i >= pixel ? Int(line[i - pixel]) : 0, b = Int(previous[i])
                let c = i >= pixel ? Int(previous[i - pixel]) : 0
                let predictor = switch filter {
                case 1: a
                case 2: b
                case 3: (a + b) / 2
                case 4: { let p = a + b - c; let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                          return pa <= pb && pa <= pc ? a : pb <= pc ? b : c }()
                default: 0
                }
                line[i] = UInt8((x + predictor) & 0xFF)
            }
            for i in Swift.stride(from: 0, to: stride, by: pixel * 5) { colours.insert(Array(line[i..<(i + 3)])) }
            swap(&previous, &line)
        }
        // Text, patches and the size map's colours: far more than one colour.
        #expect(colours.count > 20, "\(colours.count) colours")
    }

    /// dump --html and verify --html: the tree's names (escaped), the size
    /// map, the forms; each page well formed, as python3's HTML parser reads it.
    @Test func dumpAndVerifyPages() throws {
        let directory = try TemporaryDirectory()
        let sample = try SampleJournal()
        try Self.scriptedEdit(in: directory, sample: sample)
        let dump = try WrapInspectProcess.run(["dump", "--html", "dump.html", "Edited.journal"], in: directory.url)
        #expect(dump.status == 0, "\(dump.stderr)")
        let verify = try WrapInspectProcess.run(["verify", "--via", "bundle,zip", "--html", "verify.html", "Travel.journal"], in: directory.url)
        #expect(verify.status == 0, "\(verify.stderr)")
        let check = """
            import sys
            from html.parser import HTMLParser
            VOID = {"meta", "input", "br", "img", "hr", "link"}
            class Check(HTMLParser):
                def __init__(self):
                    super().__init__(); self.stack = []; self.text = []; self.tags = {}
                def handle_starttag(self, tag, attrs):
                    self.tags[tag] = self.tags.get(tag, 0) + 1
                    if tag not in VOID: self.stack.append(tag)
                def handle_endtag(self, tag):
                    assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
                    self.stack.pop()
                def handle_data(self, data): self.text.append(data)
            for path in sys.argv[1:]:
                c = Check(); c.feed(open(path, encoding="utf-8").read()); c.close()
                assert not c.stack, c.stack
                print(path, c.tags.get("script", 0), c.tags.get("svg", 0), c.tags.get("rect", 0))
                print("".join(c.text))
            """
        let parsed = try ChildProcess.run("/usr/bin/python3", ["-c", check, "dump.html", "verify.html"], in: directory.url)
        #expect(parsed.status == 0, "\(parsed.stderr)")
        let text = parsed.stdout
        #expect(text.contains("dump.html 1 1 "), "one script, one size map")
        #expect(text.contains("a<script>alert(1)<|script>b.md"), "the name, as text")
        #expect(text.contains("caf\\xFF.md"))
        #expect(text.contains("harbour.jpg") && text.contains("Settings.plist"))
        #expect(text.contains("verify.html 1 1 "))
        #expect(text.contains("Every form kept the tree"))
        #expect(text.contains("zip") && text.contains("owners"), "the zip's row and what it does not keep")

        // The size map: each file's box as large as its size, near enough (folders' borders take a little).
        let areas = """
            import os, re, sys
            page = open("dump.html", encoding="utf-8").read()
            def area(name):
                m = re.search(r'<rect x="[^"]*" y="[^"]*" width="([^"]*)" height="([^"]*)"[^>]*><title>' + re.escape(name) + ' ', page)
                return float(m.group(1)) * float(m.group(2))
            files = ["Media/harbour.jpg", "QuickLook/Thumbnail.png"]
            sizes = [os.path.getsize(os.path.join("Edited.journal", f)) for f in files]
            print((area(files[0]) / area(files[1])) / (sizes[0] / sizes[1]))
            """
        let ratio = try ChildProcess.run("/usr/bin/python3", ["-c", areas], in: directory.url)
        #expect(ratio.status == 0, "\(ratio.stderr)")
        let measured = Double(ratio.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(measured > 0.8 && measured < 1.25, "area ratio over size ratio: \(measured)")
    }

    /// Over 5,000 entries, a page lists the changed ones and the folders
    /// above them (or the first 5,000 when none changed), and says so:
    /// two tars of 5,010 files written by python3, one file changed.
    @Test func aLargeTreeListsItsChanges() throws {
        let directory = try TemporaryDirectory()
        let script = """
            import io, sys, tarfile
            for path, changed in ((sys.argv[1], b"one\\n"), (sys.argv[2], b"two\\n")):
                with tarfile.open(path, "w") as archive:
                    for index in range(5010):
                        data = changed if index == 4000 else b""
                        info = tarfile.TarInfo(f"d{index // 1000}/f{index}.txt")
                        info.size, info.mtime = len(data), 1700000000
                        archive.addfile(info, io.BytesIO(data))
            """
        let made = try ChildProcess.run("/usr/bin/python3", ["-c", script, "A.tar", "B.tar"], in: directory.url)
        try #require(made.status == 0, "\(made.stderr)")
        let diff = try WrapInspectProcess.run(["diff", "--html", "diff.html", "A.tar", "B.tar"], in: directory.url)
        #expect(diff.status == 1, "\(diff.stderr)")
        let page = try String(contentsOf: directory.appending("diff.html"), encoding: .utf8)
        #expect(page.contains("5014 of 5016 entries not listed: the changed ones and the folders above them are."), "\(page.prefix(3000))")
        #expect(page.contains("f4000.txt"))
        #expect(page.components(separatedBy: "<li").count - 1 == 3, "the root, d4/ and the file")
        let dump = try WrapInspectProcess.run(["dump", "--html", "dump.html", "A.tar"], in: directory.url)
        #expect(dump.status == 0, "\(dump.stderr)")
        let listing = try String(contentsOf: directory.appending("dump.html"), encoding: .utf8)
        #expect(listing.contains("16 of 5016 entries not listed: the first 5000 are."))
        // Not standard output, which has the command's own output.
        let refused = try WrapInspectProcess.run(["diff", "--html", "-", "A.tar", "B.tar"], in: directory.url)
        #expect(refused.status == 2 && refused.stderr.contains("--html needs a file"), "\(refused.stderr)")
    }
}
