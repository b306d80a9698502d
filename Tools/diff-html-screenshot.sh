#!/usr/bin/env bash
# Makes docs/diff-html.png, the README's picture of `wrapinspect diff
# --html`: the sample's scripted edit (Tools/sample-edit.sh) compared, times
# ignored, and the page opened in headless Chromium with every patch open.
# Usage, after `swift build`: Tools/diff-html-screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
Tools/sample-edit.sh Fixtures/Travel.journal "$work"
cd "$work"
status=0
"$root/.build/debug/wrapinspect" diff --ignore mtime --html diff.html Travel.journal Edited.journal >/dev/null || status=$?
[ "$status" -eq 1 ] || { echo "error: wrapinspect diff exited $status" >&2; exit 1; }
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1750 \
    --screenshot="$root/docs/diff-html.png" "file://$work/diff.html#expand" 2>/dev/null
