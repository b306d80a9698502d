#!/usr/bin/env bash
# Builds and runs the microbenchmarks of Tools/Benchmarks (package-benchmark:
# walk, hash, write, digest) in release mode, passing every argument through
# to `swift package benchmark`. Figures and method: Tools/Benchmarks/MICROBENCHMARKS.md.
#
#   Tools/run-microbenchmarks.sh
#   Tools/run-microbenchmarks.sh --target Hash
#   Tools/run-microbenchmarks.sh --filter 'ArchiveWriter zip.*'   (a regex the whole name must match)
#
# Fixtures are generated per benchmark below $MICROBENCHMARK_SCRATCH
# (default /work/micro-scratch) and removed after it. The tables are grouped
# by metric, so that one metric of every benchmark reads as one table.
set -euo pipefail

benchmarks="$(cd "$(dirname "${BASH_SOURCE[0]}")/Benchmarks" && pwd)"
export MICROBENCHMARK_SCRATCH="${MICROBENCHMARK_SCRATCH:-/work/micro-scratch}"

# The plugin builds what it runs too; building first shows compiler errors plainly.
for product in Walk Hash Write Digest; do
    swift build -c release --package-path "$benchmarks" --product "$product" >&2
done
exec swift package --package-path "$benchmarks" benchmark --no-progress --grouping metric "$@"
