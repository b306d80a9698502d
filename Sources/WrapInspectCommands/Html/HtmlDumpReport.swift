import FileWrapperKit

/// The page of `wrapinspect dump --html`: the tree, its totals, and its size map.
enum HtmlDumpReport {
    static func page(_ manifest: Manifest, name: String) -> HtmlPage {
        var page = HtmlPage(title: "wrapinspect dump \(name)")
        let summary = TreeListing(manifest, rootName: name, maxDepth: nil, showsDigests: false).totals.summary
        page.body.append("<p class=\"summary\">\(HtmlText.escaped(summary))</p>")
        page.body.append("<h2>Tree</h2>")
        page.body.append(HtmlTreeList.html(HtmlTreeList.rows(of: manifest), rootName: name))
        page.body.append("<h2>Size map</h2>")
        page.body.append(HtmlSizeMaps.html([(name, HtmlTreemap(manifest))], legend: false))
        return page
    }
}
