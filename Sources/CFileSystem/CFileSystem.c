#define _GNU_SOURCE
#include "CFileSystem.h"
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <linux/openat2.h>

const unsigned int cfs_RENAME_NOREPLACE = RENAME_NOREPLACE;
const unsigned int cfs_RENAME_EXCHANGE = RENAME_EXCHANGE;

int cfs_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

ssize_t cfs_copy_file_range(int fd_in, off_t *off_in, int fd_out, size_t len) {
    return copy_file_range(fd_in, off_in, fd_out, NULL, len, 0);
}

int cfs_open_beneath(int dirfd, const char *path, int flags) {
    struct open_how how = {
        .flags = (unsigned long long)(flags | O_CLOEXEC),
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

int cfs_syncfs(int fd) { return syncfs(fd); }

int cfs_affinity_count(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}

int cfs_start_writeback(int fd, off_t offset, off_t count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}

int cfs_lock_byte(int fd, off_t offset) {
    struct flock lock = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1 };
    return fcntl(fd, F_OFD_SETLK, &lock);
}

int cfs_byte_is_locked(int fd, off_t offset) {
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1 };
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0) return -1;
    return lock.l_type != F_UNLCK;
}

int cfs_lock_file(int fd, int exclusive, int wait) {
    struct flock lock = { .l_type = exclusive ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock);
}

ssize_t cfs_llistxattr(const char *path, char *list, size_t size) { return llistxattr(path, list, size); }
ssize_t cfs_lgetxattr(const char *path, const char *name, void *value, size_t size) {
    return lgetxattr(path, name, value, size);
}
ssize_t cfs_flistxattr(int fd, char *list, size_t size) { return flistxattr(fd, list, size); }
ssize_t cfs_fgetxattr(int fd, const char *name, void *value, size_t size) {
    return fgetxattr(fd, name, value, size);
}
int cfs_fsetxattr(int fd, const char *name, const void *value, size_t size) {
    return fsetxattr(fd, name, value, size, 0);
}

void *cfs_memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen) {
    return memmem(haystack, haystacklen, needle, needlelen);
}

int cfs_free_bytes(int fd, unsigned long long *free) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    *free = (unsigned long long)info.f_bavail * (unsigned long long)info.f_bsize;
    return 0;
}
