#!/usr/bin/env bash
# The sample document's scripted edit (issue 26), for the diff --html test
# and the README's screenshot (Tools/diff-html-screenshot.sh):
#   OUT/Travel.journal  SAMPLE, with a property list (Settings.plist, XML)
#                       and a zip of attachments (Attachments.zip) added;
#   OUT/Edited.journal  its copy, with a line appended to a markdown entry,
#                       a JSON key changed (index.json's title), the property
#                       list re-serialized as binary with the same data, and
#                       one member of the nested zip changed.
# Written by python3's plistlib and zipfile, with fixed times.
# Usage: Tools/sample-edit.sh SAMPLE OUT
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SAMPLE OUT" >&2; exit 2; }
sample=$1 out=$2
mkdir -p "$out"
cp -a "$sample" "$out/Travel.journal"
mkdir -p "$out/Travel.journal/Drafts"
python3 - "$out/Travel.journal" <<'EOF'
import plistlib, sys, zipfile
root = sys.argv[1]
settings = {"Theme": "Azulejo", "ShowMap": True, "FontSize": 14, "Recent": ["Porto", "Sintra"]}
with open(root + "/Settings.plist", "wb") as f:
    plistlib.dump(settings, f, fmt=plistlib.FMT_XML)
with zipfile.ZipFile(root + "/Attachments.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for name, text in (("tickets.txt", "Lisbon - Sintra, 2 May, 08:15\nSintra - Lisbon, 2 May, 18:40\n"),
                       ("receipts.txt", "Pasteis de Belem: 6.30 EUR\nTram 28: 3.00 EUR\n")):
        z.writestr(zipfile.ZipInfo(name, (2026, 5, 1, 10, 0, 0)), text)
EOF
cp -a "$out/Travel.journal" "$out/Edited.journal"
edited="$out/Edited.journal"
printf '\nThe tiles on the station walls.\n' >> "$edited/Entries/2026-05-03 Porto.md"
sed -i 's/"title": "Portugal, May 2026"/"title": "Portugal and Galicia, May 2026"/' "$edited/index.json"
python3 - "$edited" <<'EOF'
import plistlib, sys, zipfile
root = sys.argv[1]
with open(root + "/Settings.plist", "rb") as f:
    settings = plistlib.load(f)
with open(root + "/Settings.plist", "wb") as f:
    plistlib.dump(settings, f, fmt=plistlib.FMT_BINARY)
with zipfile.ZipFile(root + "/Attachments.zip") as z:
    members = [(info, z.read(info)) for info in z.infolist()]
with zipfile.ZipFile(root + "/Attachments.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for info, data in members:
        if info.filename == "receipts.txt":
            data += b"Francesinha: 12.50 EUR\n"
        z.writestr(info, data)
EOF
