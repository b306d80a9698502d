#!/usr/bin/env bash
# Builds Tools/Benchmarks in release mode and runs bundle-bench, passing
# every argument through (see `--help`). Results and method: Tools/Benchmarks/RESULTS.md.
#
#   Tools/run-bundle-benchmark.sh --markdown
#   Tools/run-bundle-benchmark.sh --small
#
# Unless --work is given, the workloads are generated once into
# Tools/Benchmarks/.build/work (git-ignored) and reused. Not /tmp: on ext4
# without a journal, creating files in a block group where many were deleted
# in the last minute is slow (the kernel's recently_deleted() check), and
# test suites delete thousands of files in /tmp.
set -euo pipefail

benchmarks="$(cd "$(dirname "${BASH_SOURCE[0]}")/Benchmarks" && pwd)"
swift build -c release --package-path "$benchmarks" >&2

work=(--work "$benchmarks/.build/work")
for argument in "$@"; do
    [[ "$argument" == --work ]] && work=()
done
exec "$benchmarks/.build/release/bundle-bench" "${work[@]}" "$@"
