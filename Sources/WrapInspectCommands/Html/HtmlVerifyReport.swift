import FileWrapperArchive
import FileWrapperKit

/// The page of `wrapinspect verify --html`: each form kept or lost, what it
/// cannot keep, what it lost, then the tree verified and its size map.
enum HtmlVerifyReport {
    /// The page for `results`; the tree is read again from `path` (a
    /// listing, no contents hashed) for its list and its map.
    static func page(_ results: [RoundTrip.Result], path: String, input: InputOptions) throws -> HtmlPage {
        var page = HtmlPage(title: "wrapinspect verify \(path)")
        let rows = results.map { result -> String in
            let kept = result.keepsTree ? "<span class=\"kept\">kept</span>" : "<span class=\"lost\">LOST</span>"
            var details = result.failure.map { HtmlText.escaped($0) } ?? ""
            if let diff = result.diff, !diff.isEmpty {
                details += "<pre class=\"patch\">" + DiffRendering(diff: diff).textLines(colored: false)
                    .map { "<span>\(HtmlText.escaped($0))</span>" }.joined() + "</pre>"
            }
            return "<tr\(result.keepsTree ? "" : " class=\"changed\"")><td>\(HtmlText.escaped(result.form.description))</td><td>\(kept)</td>"
                + "<td>\(HtmlText.escaped(result.notKept.joined(separator: ", ")))</td><td>\(details)</td></tr>"
        }
        let lost = results.count { !$0.keepsTree }
        page.body.append("<p class=\"summary\">\(lost == 0 ? "Every form kept the tree" : "\(lost) of \(results.count) forms lost something")</p>")
        page.body.append("<table class=\"forms\"><tr><th>form</th><th>result</th><th>not kept by the form</th><th>lost</th></tr>\(rows.joined())</table>")
        // Read again quietly: verify has said what it had to about the input.
        let options = ManifestReadOptions(hashingContents: false, formats: input.formats, limits: input.limits)
        let manifest = try Manifest(reading: StandardInput.url(for: path, limits: options.limits), options: options)
        page.body.append("<h2>Tree</h2>")
        page.body.append(HtmlTreeList.html(HtmlTreeList.rows(of: manifest), rootName: path))
        page.body.append("<h2>Size map</h2>")
        page.body.append(HtmlSizeMaps.html([(path, HtmlTreemap(manifest))], legend: false))
        return page
    }
}
