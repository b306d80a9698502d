#!/usr/bin/env bash
# Builds Tools/Benchmarks in release mode and runs archive-bench, passing
# every argument through (see `--help`). Results and method: Tools/Benchmarks/RESULTS.md.
#
#   Tools/run-archive-benchmark.sh --markdown
#   Tools/run-archive-benchmark.sh --small
#   Tools/run-archive-benchmark.sh --workloads w3 --formats tar.zst,zip
#
# Needs bsdtar (libarchive-tools), zip, unzip and python3. Unless --work is
# given, the workloads are generated once into Tools/Benchmarks/.build/work
# (git-ignored, shared with bundle-bench) and reused. Not /tmp: on ext4
# without a journal, creating files in a block group where many were deleted
# in the last minute is slow (the kernel's recently_deleted() check), and
# test suites delete thousands of files in /tmp. For the same reason w1's
# unpacked trees stay until the end of the run (about 13 GiB), w1 goes last,
# and it starts only 6 minutes after the benchmark last removed many files.
set -euo pipefail

for program in bsdtar zip unzip python3; do
    command -v "$program" >/dev/null || { echo "run-archive-benchmark.sh: $program is missing (apt-get install libarchive-tools zip unzip python3)" >&2; exit 2; }
done

benchmarks="$(cd "$(dirname "${BASH_SOURCE[0]}")/Benchmarks" && pwd)"
swift build -c release --package-path "$benchmarks" >&2

work=(--work "$benchmarks/.build/work")
for argument in "$@"; do
    [[ "$argument" == --work ]] && work=()
done
exec "$benchmarks/.build/release/archive-bench" "${work[@]}" "$@"
