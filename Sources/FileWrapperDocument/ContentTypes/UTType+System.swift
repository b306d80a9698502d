/// The system types, under Apple's names.
extension UTType {
    private static func system(_ identifier: String) -> UTType {
        UTType(identifier: identifier)
    }

    // Roots and the physical hierarchy.
    public static let item = system("public.item")
    public static let content = system("public.content")
    public static let compositeContent = system("public.composite-content")
    public static let data = system("public.data")
    public static let directory = system("public.directory")
    public static let folder = system("public.folder")
    public static let volume = system("public.volume")
    public static let package = system("com.apple.package")
    public static let bundle = system("com.apple.bundle")
    public static let symbolicLink = system("public.symlink")
    public static let executable = system("public.executable")
    public static let unixExecutable = system("public.unix-executable")
    public static let url = system("public.url")
    public static let fileURL = system("public.file-url")

    // Archives.
    public static let archive = system("public.archive")
    public static let zip = system("public.zip-archive")
    public static let gzip = system("org.gnu.gnu-zip-archive")
    public static let epub = system("org.idpf.epub-container")

    // Text.
    public static let text = system("public.text")
    public static let plainText = system("public.plain-text")
    public static let utf8PlainText = system("public.utf8-plain-text")
    public static let utf16PlainText = system("public.utf16-plain-text")
    public static let delimitedText = system("public.delimited-values-text")
    public static let commaSeparatedText = system("public.comma-separated-values-text")
    public static let tabSeparatedText = system("public.tab-separated-values-text")
    public static let rtf = system("public.rtf")
    public static let html = system("public.html")
    public static let xml = system("public.xml")
    public static let json = system("public.json")
    public static let yaml = system("public.yaml")
    public static let markdown = system("net.daringfireball.markdown")
    public static let sourceCode = system("public.source-code")
    public static let swiftSource = system("public.swift-source")
    public static let propertyList = system("com.apple.property-list")
    public static let xmlPropertyList = system("com.apple.xml-property-list")
    public static let binaryPropertyList = system("com.apple.binary-property-list")

    // Images, PDF, audio and video.
    public static let image = system("public.image")
    public static let png = system("public.png")
    public static let jpeg = system("public.jpeg")
    public static let gif = system("com.compuserve.gif")
    public static let tiff = system("public.tiff")
    public static let heic = system("public.heic")
    public static let webP = system("org.webmproject.webp")
    public static let svg = system("public.svg-image")
    public static let pdf = system("com.adobe.pdf")
    public static let audiovisualContent = system("public.audiovisual-content")
    public static let audio = system("public.audio")
    public static let movie = system("public.movie")
    public static let mp3 = system("public.mp3")
    public static let mpeg4Movie = system("public.mpeg-4")
}
