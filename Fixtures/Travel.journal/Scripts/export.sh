#!/bin/sh
# Joins the journal's entries, oldest first, into one Markdown file.
# Usage: Scripts/export.sh [OUTPUT]     (OUTPUT defaults to ./Travel.md)
set -eu
journal=$(cd "$(dirname "$0")/.." && pwd)
output=${1:-Travel.md}
{
    printf '# Travel journal\n\n'
    for entry in "$journal"/Entries/*.md; do
        cat "$entry"
        printf '\n'
    done
} > "$output"
echo "wrote $output"
