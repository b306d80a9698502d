#ifndef FILEWRAPPERKIT_CFILESYSTEM_H
#define FILEWRAPPERKIT_CFILESYSTEM_H

#include <sys/types.h>

/// Linux calls that Swift's Glibc module leaves out (they need _GNU_SOURCE
/// or <sys/xattr.h>). Each returns what the system call returns and leaves
/// errno set on failure.

/// renameat2(2); `flags` is a combination of the constants below.
int cfs_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);
extern const unsigned int cfs_RENAME_NOREPLACE;
extern const unsigned int cfs_RENAME_EXCHANGE;

/// copy_file_range(2) to the current offset of `fd_out`, from `*off_in`
/// (advanced by what is copied) or, when `off_in` is NULL, from the current
/// offset of `fd_in`.
ssize_t cfs_copy_file_range(int fd_in, off_t *off_in, int fd_out, size_t len);

/// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS:
/// opens the relative `path` below `dirfd` in one call, failing (ELOOP,
/// EXDEV) rather than going through any symlink or `..` out of `dirfd`.
/// O_CLOEXEC is added to `flags`. ENOSYS where the kernel (before 5.6) or a
/// seccomp filter does not have it.
int cfs_open_beneath(int dirfd, const char *path, int flags);

/// fstatfs(2): the bytes free for an unprivileged process (f_bavail
/// blocks of f_bsize) on the file system that holds `fd`, in `*free`.
/// Not fstatvfs, which glibc makes read /proc/mounts.
int cfs_free_bytes(int fd, unsigned long long *free);

/// syncfs(2): flushes the whole file system that holds `fd`.
int cfs_syncfs(int fd);

/// sched_getaffinity(2) counted with CPU_COUNT: how many processors this
/// thread may run on; -1 on failure.
int cfs_affinity_count(void);

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts writing back the
/// byte range without waiting for it.
int cfs_start_writeback(int fd, off_t offset, off_t count);

/// fcntl(2) F_OFD_SETLK: a read lock on the one byte at `offset` of `fd`,
/// held by the open file description until its last descriptor is closed
/// (not by the process: another descriptor of the same process is another
/// holder, and the lock does not end with a thread or pass to a child).
int cfs_lock_byte(int fd, off_t offset);

/// fcntl(2) F_OFD_GETLK: 1 when another open file description holds a lock
/// on the byte at `offset` of `fd` that a write lock would meet, 0 when
/// none does, -1 with errno set when the file system cannot tell.
int cfs_byte_is_locked(int fd, off_t offset);

/// fcntl(2) F_OFD_SETLKW (`wait` nonzero) or F_OFD_SETLK: a lock on the
/// whole of `fd`, a write lock when `exclusive` is nonzero (`fd` open for
/// writing), else a read lock; converts a lock this open file description
/// already holds. Held by the open file description until its last
/// descriptor is closed, so the kernel drops it when its holder dies.
/// Without `wait`, fails with EAGAIN when another holder is in the way.
int cfs_lock_file(int fd, int exclusive, int wait);

/// The xattr family on a path that is not followed if it is a symlink.
ssize_t cfs_llistxattr(const char *path, char *list, size_t size);
ssize_t cfs_lgetxattr(const char *path, const char *name, void *value, size_t size);

/// memmem(3): the first occurrence of `needle` in `haystack`, or NULL.
void *cfs_memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);

/// The xattr family on an open descriptor.
ssize_t cfs_flistxattr(int fd, char *list, size_t size);
ssize_t cfs_fgetxattr(int fd, const char *name, void *value, size_t size);
int cfs_fsetxattr(int fd, const char *name, const void *value, size_t size);

#endif
