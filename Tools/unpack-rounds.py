#!/usr/bin/env python3
"""Paired unpack rounds, each on a file system of its own.

Compares `wrapinspect unpack` builds with GNU tar (`tar -xf`, for tars),
bsdtar (`bsdtar -xf`), Info-ZIP (`unzip -q`, for zips) and `cp -a` on one
archive. Every round makes a new ext4 image (no journal, one inode per
4 KiB as on the root file system here, inode tables written before it is
mounted), loop-mounts it, copies the archive (and the source tree for
`cp -a`) into it, and runs each tool once, into a new directory, with a
`sync` before each; every other round takes the tools in reverse order. A
fresh file system keeps each round free of the files that earlier rounds
deleted: on ext4 without a journal, creating files near many deleted in
the last minutes is slow (the kernel's `recently_deleted()` check), which
made runs on the root file system vary by a factor of two.

Prints, per tool, the median wall-clock, user and system time, and the
median over rounds of its time divided by each peer's in the same round.

Needs root (mount), mkfs.ext4, GNU tar, bsdtar and unzip. Example, from the
repository root:

  Tools/unpack-rounds.py --archive w1.tar --source w1 --rounds 12 \\
      before=/tmp/wrapinspect-before after=.build/release/wrapinspect
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

MOUNT = "/mnt/fwk-unpack-rounds"


def run(command):
    """Runs `command`; returns wall-clock, user and system seconds."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(command)}")
    return wall, usage.ru_utime, usage.ru_stime


def fresh_file_system(image, size):
    subprocess.run(["umount", MOUNT], stderr=subprocess.DEVNULL)
    if os.path.exists(image):
        os.remove(image)
    with open(image, "wb") as file:
        file.truncate(size)
    # Inode tables written now, not by the kernel's ext4lazyinit thread during the round.
    subprocess.run(["mkfs.ext4", "-q", "-F", "-O", "^has_journal", "-i", "4096",
                    "-E", "lazy_itable_init=0", image], check=True)
    os.makedirs(MOUNT, exist_ok=True)
    subprocess.run(["mount", "-o", "loop", image, MOUNT], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", required=True, help="the archive to unpack")
    parser.add_argument("--source", help="the tree the archive holds, for `cp -a` (left out without it)")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--image", default="Tools/Benchmarks/.build/unpack-rounds.img",
                        help="where the image file goes (removed at the end)")
    parser.add_argument("--image-size", default="4G", help="room for every tool's tree (default 4G)")
    parser.add_argument("builds", nargs="+", metavar="NAME=WRAPINSPECT", help="wrapinspect builds to compare")
    arguments = parser.parse_args()

    builds = [build.split("=", 1) for build in arguments.builds]
    if any(len(build) != 2 for build in builds):
        sys.exit("each build is NAME=PATH")
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    size = int(arguments.image_size[:-1]) * units[arguments.image_size[-1]]
    # `in` and the archive's endings (`.tar.gz`), which tell the tools its format.
    _, dot, endings = os.path.basename(arguments.archive).partition(".")
    archive_name = "in" + dot + endings

    def commands(round_directory):
        archive = os.path.join(MOUNT, archive_name)
        tools = [(name, [os.path.abspath(path), "unpack", archive, os.path.join(round_directory, name)])
                 for name, path in builds]
        if ".tar" in archive_name:
            tools.append(("GNU tar", ["tar", "-xf", archive, "-C", os.path.join(round_directory, "GNU tar")]))
        tools.append(("bsdtar", ["bsdtar", "-xf", archive, "-C", os.path.join(round_directory, "bsdtar")]))
        if archive_name.endswith(".zip"):
            tools.append(("unzip", ["unzip", "-q", archive, "-d", os.path.join(round_directory, "unzip")]))
        if arguments.source:
            tools.append(("cp -a", ["cp", "-a", os.path.join(MOUNT, "source"), os.path.join(round_directory, "cp -a")]))
        return tools

    times = {}
    os.makedirs(os.path.dirname(os.path.abspath(arguments.image)), exist_ok=True)
    try:
        for number in range(arguments.rounds):
            fresh_file_system(arguments.image, size)
            shutil.copyfile(arguments.archive, os.path.join(MOUNT, archive_name))
            if arguments.source:
                subprocess.run(["cp", "-a", arguments.source, os.path.join(MOUNT, "source")], check=True)
            round_directory = os.path.join(MOUNT, "round")
            os.mkdir(round_directory)
            tools = commands(round_directory)
            if number % 2:
                tools.reverse()
            for name, command in tools:
                if name in ("GNU tar", "bsdtar"):
                    os.mkdir(os.path.join(round_directory, name))
                subprocess.run(["sync"], check=True)
                times.setdefault(name, []).append(run(command))
            print(f"round {number + 1}: " + ", ".join(f"{name} {times[name][-1][0]:.3f} s" for name, _ in tools),
                  file=sys.stderr)
    finally:
        subprocess.run(["umount", MOUNT], stderr=subprocess.DEVNULL)
        if os.path.exists(arguments.image):
            os.remove(arguments.image)

    peers = [name for name in times if name not in dict(builds)]
    print(f"{arguments.rounds} rounds, {arguments.archive}; medians")
    print("| tool | wall s | user s | sys s | " + " | ".join(f"÷ {peer}" for peer in peers) + " |")
    print("| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in peers) + " |")
    for name, runs in times.items():
        ratios = [f"{statistics.median(run[0] / peer_run[0] for run, peer_run in zip(runs, times[peer])):.2f}"
                  for peer in peers]
        print(f"| {name} | {statistics.median(r[0] for r in runs):.3f} | {statistics.median(r[1] for r in runs):.3f} "
              f"| {statistics.median(r[2] for r in runs):.3f} | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
