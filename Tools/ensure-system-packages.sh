#!/usr/bin/env bash
# Installs the Debian packages the build needs (libarchive-dev, libzstd-dev,
# zlib1g-dev, liblzma-dev, libisal-dev, pkg-config) when they are missing:
# apt-get as root, sudo otherwise. libisal-dev (ISA-L, whose inflate is
# about three times zlib's) is optional to the build: without it, zip
# members and gzip streams are inflated by zlib, and `wrapinspect
# --version` says so.
#
# With --test, also the programs the interop tests run against our archives:
# bsdtar (libarchive-tools), zip, unzip, python3, GNU cpio, the compressors
# GNU tar calls (bzip2, xz-utils, zstd, lz4), and 7z (p7zip-full), which
# writes the 7z archives of the memory-budget tests. GNU tar and gzip are
# always there.
# Also tzdata, for the test that packs under TZ=Asia/Tokyo, and strace, for
# the tests that count the system calls of an unpack (UnpackShapeTests among them),
# and chromium, which the diff --html test opens its page in (headless).
set -euo pipefail

with_test_tools=false
case "${1:-}" in
    "") ;;
    --test) with_test_tools=true ;;
    *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac

# Each test tool as command:package.
test_tools=(bsdtar:libarchive-tools zip:zip unzip:unzip python3:python3
            bzip2:bzip2 xz:xz-utils zstd:zstd lz4:lz4 strace:strace cpio:cpio 7z:p7zip-full
            chromium:chromium)

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
for library in libarchive:libarchive-dev libzstd:libzstd-dev zlib:zlib1g-dev liblzma:liblzma-dev libisal:libisal-dev; do
    pkg-config --exists "${library%%:*}" 2>/dev/null || missing+=("${library#*:}")
done
if $with_test_tools; then
    for tool in "${test_tools[@]}"; do
        command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
    done
    [ -e /usr/share/zoneinfo/Asia/Tokyo ] || missing+=(tzdata)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing system packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
    run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    run=(sudo)
else
    echo "error: ${missing[*]} must be installed, and this needs root." >&2
    echo "       Run as root, or: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${run[@]}" apt-get update -qq
"${run[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
pkg-config --exists libarchive || { echo "error: libarchive still not found by pkg-config" >&2; exit 1; }
if $with_test_tools; then
    for tool in "${test_tools[@]}"; do
        command -v "${tool%%:*}" >/dev/null 2>&1 || { echo "error: ${tool%%:*} still not found" >&2; exit 1; }
    done
fi
