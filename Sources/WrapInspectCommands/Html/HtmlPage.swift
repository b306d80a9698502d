import ArgumentParser
import FileWrapperKit
import Foundation
import Glibc

/// One self-contained HTML page: inline CSS and a little inline script,
/// and a Content-Security-Policy that lets the browser load nothing else
/// (no network, no other file). The body is built by the reports
/// (``HtmlDiffReport``, ``HtmlDumpReport``, ``HtmlVerifyReport``) from
/// escaped text only (``HtmlText``).
struct HtmlPage {
    var title: String
    /// The body's HTML, each part already escaped.
    var body: [String] = []

    /// The whole document.
    var document: String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HtmlText.escaped(title))</title>
        <style>\(Self.style)</style>
        </head>
        <body>
        <header><h1>\(HtmlText.escaped(title))</h1>
        <div class="controls"><label><input type="checkbox" id="only-changes"> only changes</label>
        <button type="button" id="expand">expand all</button> <button type="button" id="collapse">collapse all</button>
        <span id="status"></span></div></header>
        \(body.joined(separator: "\n"))
        <script>\(Self.script)</script>
        </body>
        </html>

        """
    }

    /// Writes the page to `given` as wrapinspect writes the files it makes
    /// (``OutputDestination``): a regular file is replaced atomically, a
    /// link is followed, a pipe or device is written to. Not `-`: standard
    /// output has the command's own output.
    func write(to given: String) throws {
        guard given != "-" else {
            throw ValidationError("--html needs a file: standard output has the command's own output.")
        }
        try OutputDestination.resolving(given, binary: false).write(Array(document.utf8))
    }

    /// The page's look: a tree, patches in monospace, the size maps.
    static let style = """
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 24px 40px;color:#1d2330;background:#fff}
        header{position:sticky;top:0;background:#fff;border-bottom:1px solid #d8dde6;padding:8px 0;z-index:1}
        h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:22px 0 8px}
        .controls{font-size:13px;color:#4a5468}.controls button{font:inherit;margin-left:6px}
        #status{margin-left:12px}.note{color:#6b7488;font-size:13px}
        .summary{font-weight:600}
        ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:18px}ul.tree{padding-left:0}
        ul.tree li{margin:1px 0}
        .name{font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-all}
        .facts{color:#6b7488;margin-left:8px}
        .marker{display:inline-block;width:1.4em;font-weight:700;font-family:ui-monospace,monospace}
        .row.c-added .marker,.row.c-added .name{color:#1a7f37}
        .row.c-removed .marker,.row.c-removed .name{color:#cf222e}.row.c-removed .name{text-decoration:line-through}
        .row.c-contents .marker{color:#9a6700}.row.c-moved .marker{color:#0550ae}
        .row.c-kind .marker{color:#8250df}.row.c-metadata .marker{color:#0a7b83}
        summary.row{cursor:pointer}
        body.only-changes li:not(.changed):not(.holds-changes){display:none}
        details.patch{margin:2px 0 6px 1.4em}details.patch>summary{cursor:pointer;color:#4a5468;font-size:12px}
        pre.patch{margin:4px 0;padding:6px 8px;background:#f6f8fa;border:1px solid #d8dde6;border-radius:4px;overflow:auto;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
        pre.patch span{display:block;white-space:pre}
        .l-add{background:#e6ffec;color:#116329}.l-del{background:#ffebe9;color:#a40e26}.l-hunk{color:#0550ae}.l-head{font-weight:700}
        table.structured,table.forms{border-collapse:collapse;font-size:13px}
        table.structured td,table.structured th,table.forms td,table.forms th{border:1px solid #d8dde6;padding:3px 8px;text-align:left;vertical-align:top}
        table.structured td{font-family:ui-monospace,Menlo,Consolas,monospace}
        .maps{display:flex;flex-wrap:wrap;gap:24px}figure.map{flex:1 1 380px;min-width:300px;margin:0}figcaption{font-size:13px;color:#4a5468;margin-bottom:4px}
        .map svg{width:100%;height:auto;border:1px solid #d8dde6;background:#f6f8fa}
        .map svg text{font:11px system-ui,sans-serif;fill:#1d2330;pointer-events:none}
        .legend span{display:inline-block;margin-right:12px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
        .kept{color:#1a7f37;font-weight:700}.lost{color:#cf222e;font-weight:700}
        """

    /// The little the page does when opened: the "only changes" filter,
    /// expand and collapse (every patch open when the address ends in
    /// `#expand`), and a status line that counts the changes
    /// marked and the resources the browser loaded (none: the page is
    /// whole), which a test reads back from the page once it has run.
    static let script = """
        (function(){
        var body=document.body;
        document.getElementById('only-changes').addEventListener('change',function(e){body.classList.toggle('only-changes',e.target.checked);});
        function all(open){document.querySelectorAll('details').forEach(function(d){d.open=open;});}
        document.getElementById('expand').addEventListener('click',function(){all(true);});
        document.getElementById('collapse').addEventListener('click',function(){all(false);});
        if(location.hash==='#expand')all(true);
        document.querySelectorAll('li.changed').forEach(function(li){
          for(var p=li.parentElement;p;p=p.parentElement){if(p.tagName==='LI')p.classList.add('holds-changes');}
        });
        var loaded=performance.getEntriesByType('resource').length;
        var changed=document.querySelectorAll('li.changed').length;
        var entries=document.querySelectorAll('ul.tree li').length;
        document.getElementById('status').textContent=entries+' entries shown, '+changed+' changes marked, '+loaded+' resources loaded';
        body.setAttribute('data-resources',String(loaded));
        body.setAttribute('data-ready','yes');
        })();
        """
}
