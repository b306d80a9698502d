#!/usr/bin/env bash
# The comparative benchmark of issue 6; its method, and the latest figures
# with the date and commit they were made on, are in docs/performance.md.
#
# Builds the release wrapinspect at the repository root (with the Swift
# runtime linked in statically: its shared libraries cost about 6 MiB of
# RSS at start), the ZIPFoundation peer (Tools/ZIPFoundationPeer) and
# Tools/Benchmarks, then runs archive-bench, which generates the workloads
# with ../shared/bench/gen.py (from the repository root) where they are
# missing, measures wrapinspect against GNU tar, bsdtar, Info-ZIP,
# ZIPFoundation, cp -a and sha256sum, runs bundle-bench for FileWrapper's
# saves, and prints one report: the targets, then the details. Every
# argument goes to archive-bench (see --help):
#
#   Tools/run-benchmark.sh --markdown            the full run, about 30 minutes
#   Tools/run-benchmark.sh --small               one timed run of w1 and w3
#   Tools/run-benchmark.sh --workloads w3 --formats tar.zst,zip,snapshot
#   Tools/run-benchmark.sh --wrapinspect PATH    another wrapinspect, none built
#
# Needs GNU tar, bsdtar (libarchive-tools), zip, unzip, python3 and GNU
# coreutils and findutils. Unless --work is given, the workloads are
# generated once into Tools/Benchmarks/.build/work (git-ignored) and
# reused, and archives and unpacked trees go there too. Not /tmp: on ext4
# without a journal, creating files in a block group where many were
# deleted in the last minutes is slow (the kernel's recently_deleted()
# check), and test suites delete thousands of files in /tmp. For the same
# reason w1's unpacked trees (about 20 GiB) stay until the end of the run,
# w1 goes last, and it starts only 6 minutes after the benchmark last
# removed many files.
set -euo pipefail

for program in tar bsdtar zip unzip python3 sha256sum xargs; do
    command -v "$program" >/dev/null || { echo "run-benchmark.sh: $program is missing (apt-get install tar libarchive-tools zip unzip python3 coreutils findutils)" >&2; exit 2; }
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
benchmarks="$root/Tools/Benchmarks"

work=(--work "$benchmarks/.build/work")
builds_wrapinspect=true
builds_zipfoundation=true
for argument in "$@"; do
    case "$argument" in
        --work) work=() ;;
        --wrapinspect) builds_wrapinspect=false ;;
        --zipfoundation-zip) builds_zipfoundation=false ;;
    esac
done

if $builds_wrapinspect; then
    swift build -c release --static-swift-stdlib --product wrapinspect --package-path "$root" >&2
fi
if $builds_zipfoundation; then
    swift build -c release --package-path "$root/Tools/ZIPFoundationPeer" >&2
fi
swift build -c release --product archive-bench --package-path "$benchmarks" >&2
exec "$benchmarks/.build/release/archive-bench" "${work[@]}" "$@"
