extension Interop {
    /// Python programs that use only the standard library's `tarfile` and
    /// `zipfile`, run as `python3 -c SCRIPT ARGUMENTS...`.
    enum Python {
        /// `ARCHIVE DESTINATION`: prints the names in the tar archive (any
        /// compression tarfile detects), one a line, and extracts it. The
        /// "tar" extraction filter, where Python has filters (3.12, and
        /// 3.11.4 on), keeps modes but set-id bits and group/other write.
        static let tarfileExtract = """
            import sys, tarfile
            archive, destination = sys.argv[1:3]
            with tarfile.open(archive) as tar:
                print("\\n".join(tar.getnames()))
                options = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}
                tar.extractall(destination, **options)
            """

        /// `ARCHIVE DESTINATION`: checks every entry's CRC, prints the
        /// names in the zip archive, one a line, and extracts it. zipfile
        /// restores no modes and no times, and writes a symlink entry as a
        /// regular file that holds the target.
        static let zipfileExtract = """
            import sys, zipfile
            archive, destination = sys.argv[1:3]
            with zipfile.ZipFile(archive) as z:
                bad = z.testzip()
                if bad is not None:
                    sys.exit(f"bad CRC in {bad}")
                print("\\n".join(z.namelist()))
                z.extractall(destination)
            """

        /// `MODE FORMAT ARCHIVE NAME...`: writes the named files and
        /// directories (symlinks kept as symlinks) to a tar archive opened
        /// with `MODE` (`w`, `w:gz`, `w:bz2`, `w:xz`) in `tarfile.FORMAT`
        /// (`PAX_FORMAT`, `GNU_FORMAT`, `USTAR_FORMAT`).
        static let tarfileCreate = """
            import sys, tarfile
            mode, form, archive, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
            with tarfile.open(archive, mode, format=getattr(tarfile, form)) as tar:
                for name in names:
                    tar.add(name)
            """

        /// `ARCHIVE NAME...`: writes the named files and directories to a
        /// deflated zip archive. zipfile has no call for symlinks, so they
        /// are written the way Info-ZIP writes them: the mode with S_IFLNK
        /// in the external attributes and the target as the contents. Times
        /// are DOS times in local time, to two seconds.
        static let zipfileCreate = """
            import os, stat, sys, time, zipfile
            archive, names = sys.argv[1], sys.argv[2:]
            with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
                def add(path):
                    info = os.lstat(path)
                    if stat.S_ISLNK(info.st_mode):
                        entry = zipfile.ZipInfo(path, time.localtime(info.st_mtime)[:6])
                        entry.external_attr = info.st_mode << 16
                        z.writestr(entry, os.readlink(path))
                        return
                    z.write(path)
                    if stat.S_ISDIR(info.st_mode):
                        for name in sorted(os.listdir(path)):
                            add(os.path.join(path, name))
                for name in names:
                    add(name)
            """
    }
}
