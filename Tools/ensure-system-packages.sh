#!/usr/bin/env bash
# Installs the Debian packages the build needs (libarchive-dev, pkg-config)
# when they are missing: apt-get as root, sudo otherwise.
set -euo pipefail

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if ! pkg-config --exists libarchive 2>/dev/null; then
    missing+=(libarchive-dev)
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
