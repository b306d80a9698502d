#!/usr/bin/env bash
# Builds the libFuzzer targets of Tools/Fuzz with AddressSanitizer, seeds
# their corpora and runs each for a given time, one after another.
#
#   Tools/run-fuzzers.sh [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET defaults to 60; TARGET is fuzz-archive, fuzz-plain-tar,
# fuzz-manifest, fuzz-structured, fuzz-declarations, fuzz-tree-digest,
# fuzz-unpack or fuzz-flat-rtfd (default: all eight); only the targets
# named are built. Corpora grow in
# Tools/Fuzz/.build-fuzz/corpus/<target> across runs (kept out of git);
# crash, timeout, leak and out-of-memory inputs go to the artifacts folder
# printed at the start. Prints per target: runs, seconds, coverage, result.
# Exits 1 when any target found something.
set -euo pipefail

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz-archive fuzz-plain-tar fuzz-manifest fuzz-structured fuzz-declarations fuzz-tree-digest fuzz-unpack fuzz-flat-rtfd)

root=$(cd "$(dirname "$0")/.." && pwd)
fuzz="$root/Tools/Fuzz"
work="$fuzz/.build-fuzz"
corpus="$work/corpus"
artifacts="$work/artifacts/$(date -u +%Y%m%dT%H%M%SZ)"
shared="$root/../shared/corpus"

# `--sanitize fuzzer --sanitize address` alone gives swiftc two -sanitize=
# flags, and swiftc keeps only the last: Swift code would get AddressSanitizer
# but no coverage, and libFuzzer would be blind to it. The combined flag last
# on the command line gives Swift code both. -enable-testing lets
# fuzz-plain-tar reach the library's internal reader.
build=(--scratch-path "$work" --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
echo "building ${targets[*]} (Tools/Fuzz, scratch $work)" >&2
for target in "${targets[@]}"; do
    (cd "$fuzz" && swift build "${build[@]}" --product "$target" 2>&1 | grep -v "Cannot export local symbol" >&2)
done
bin=$(cd "$fuzz" && swift build "${build[@]}" --show-bin-path)

# Manifests of the sample document and of two archives, in every format,
# by wrapinspect built normally (a libFuzzer build has no main of its own).
seed_manifests() {
    local out=$1 seeds="$fuzz/.build-seeds"
    (cd "$root" && swift build --scratch-path "$seeds" --product wrapinspect 2>&1 | tail -1 >&2)
    local inspect
    inspect="$(cd "$root" && swift build --scratch-path "$seeds" --show-bin-path)/wrapinspect"
    for source in "$root/Fixtures/Travel.journal" "$root/Fixtures/Hostile/accepted-relative-links.tar" \
        "$root/Fixtures/Hostile/accepted-non-ascii.zip"; do
        for format in json jsonl mtree; do
            "$inspect" snapshot "$source" --format "$format" -o "$out/$(basename "$source").$format"
        done
    done
}

seed() {
    local target=$1 dir="$corpus/$1"
    mkdir -p "$dir"
    case $target in
        fuzz-archive)
            # libarchive's *_oom* tests only make it allocate gigabytes a
            # header declares; under ASan freeing them takes over 20 s, past
            # -timeout (see Fuzz/RESULTS.md).
            [ -d "$shared" ] && find "$shared" -type f ! -name README.md ! -name '*_oom*' -exec cp -n {} "$dir/" \;
            find "$root/Fixtures/Hostile" -type f ! -name README.md -exec cp -n {} "$dir/" \; ;;
        fuzz-plain-tar)
            # Every tar there is: the corpus's (most of them odd) and the hostile fixtures.
            [ -d "$shared" ] && find "$shared" -type f -name '*.tar' -exec cp -n {} "$dir/" \;
            find "$root/Fixtures/Hostile" -type f -name '*.tar' -exec cp -n {} "$dir/" \; ;;
        fuzz-manifest) seed_manifests "$dir" ;;
        # Pairs of JSON documents and property lists (XML, binary, binary
        # with shared references), each pair behind its first one's length.
        fuzz-structured) python3 "$fuzz/structured-seeds.py" "$dir" ;;
        fuzz-declarations) find "$root/Fixtures/Documents" -type f ! -name README.md -exec cp -n {} "$dir/" \; ;;
        fuzz-tree-digest) ;;  # the input is an encoding of our own; libFuzzer starts from nothing
        # Blobs in Apple's layout, written from the layout document.
        fuzz-flat-rtfd) python3 "$fuzz/flat-rtfd-seeds.py" "$dir" ;;
        fuzz-unpack)
            # Programs in its own encoding (shapes, no attack), and the findings kept as fixtures.
            python3 "$fuzz/unpack-seeds.py" "$dir"
            find "$root/Fixtures/Fuzz/fuzz-unpack" -type f -name '*.program' -exec cp -n {} "$dir/" \; 2>/dev/null || true ;;
        *) echo "unknown target $target" >&2; exit 2 ;;
    esac
}

mkdir -p "$artifacts"
echo "artifacts: $artifacts" >&2
# LeakSanitizer stays on, skipping only the leaks outside our code that
# Tools/sanitizers/lsan.supp names (the suite's sanitizer runs use it too).
# Swift's own crash backtracer would hold libFuzzer's output open, so it is off.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$root/Tools/sanitizers/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1"
status=0
printf '%-18s %10s %8s %8s %8s  %s\n' target runs seconds cov corpus result
for target in "${targets[@]}"; do
    seed "$target"
    out="$artifacts/$target"
    mkdir -p "$out"
    extra=()
    # Archives from the corpus reach megabytes: mutate their first 64 KiB.
    # libarchive asks for blocks as large as a header declares before it
    # finds the archive broken (liblzma's 4 GiB dictionary for zipx LZMA in
    # test_read_format_zip_zipx_lzma_oom.zipx, 5 GB for the file count in
    # test_read_format_7zip_malformed_numfiles_oom.7z, and their mutants).
    # Such blocks stay virtual until written, so the bound that matters is
    # -rss_limit_mb; single allocations up to 16 GiB are let through.
    [ "$target" = fuzz-archive ] && extra=(-max_len=65536 -malloc_limit_mb=16384)
    [ "$target" = fuzz-plain-tar ] && extra=(-max_len=65536)
    # A program of 16 entries fits in a few hundred bytes; an attack takes
    # three or more entries, so inputs may be that long from the start
    # (libFuzzer would otherwise begin at 4 bytes and grow them slowly).
    [ "$target" = fuzz-unpack ] && extra=(-max_len=512 -len_control=0)
    # swift-corelibs-foundation leaks about 1 KB for every property list it
    # cannot parse (Tools/sanitizers/lsan.supp): a declarations run would pass 2 GiB after
    # some 2 million inputs, so it runs in rounds of a million.
    [ "$target" = fuzz-declarations ] && extra=(-runs=1000000)
    log="$out/fuzz.log"
    : >"$log"
    started=$(date +%s)
    runs=0
    # Rounds until the time is spent or something is found.
    while remaining=$(( seconds - ($(date +%s) - started) )); [ "$remaining" -gt 0 ]; do
        set +e
        "$bin/$target" "$corpus/$target" -max_total_time="$remaining" -rss_limit_mb=2048 -timeout=10 \
            -artifact_prefix="$out/" -print_final_stats=1 "${extra[@]}" >>"$log" 2>&1
        code=$?
        set -e
        executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        runs=$(( runs + ${executed:-0} ))
        [ "$code" -eq 0 ] || break
    done
    elapsed=$(( $(date +%s) - started ))
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    files=$(find "$corpus/$target" -type f | wc -l)
    # A slow unit (over 10 s, which a loaded machine reaches) is a note, not a finding.
    found=$(find "$out" -type f ! -name fuzz.log ! -name 'slow-unit-*' | wc -l)
    if [ "$code" -eq 0 ] && [ "$found" -eq 0 ]; then
        result=clean
    else
        result="FOUND (exit $code): $(grep -m1 -E '^SUMMARY|ERROR: libFuzzer|Fatal error' "$log" || true) -> $out"
        status=1
    fi
    printf '%-18s %10s %8s %8s %8s  %s\n' "$target" "${runs:-?}" "$elapsed" "${cov:-?}" "$files" "$result"
done
exit $status
