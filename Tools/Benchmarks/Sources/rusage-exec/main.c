// rusage-exec DIRECTORY PROGRAM [ARGUMENT...]
//
// Runs PROGRAM in DIRECTORY as a fork of this small process and prints, on
// one line of standard output, what the kernel accounted for it:
//
//     STATUS WALL_SECONDS USER_SECONDS SYSTEM_SECONDS MAXRSS_KIB
//
// STATUS is the exit status, or 128 + the signal that ended it. PROGRAM's
// own standard output goes to /dev/null, so that this line is alone and
// what a tool reports about its work (wrapinspect unpack's summary, help
// text) does not fill the benchmark's log; its errors still go to
// standard error.
//
// Why a separate C program: Linux charges a process's peak RSS (ru_maxrss)
// with the address space it had before execve. A child that a large
// process (a Swift program with Foundation) spawns with posix_spawn, which
// uses vfork, shares that address space until execve and so reports the
// parent's peak. Forked from this program, the measured process starts
// from a few hundred KiB, and its ru_maxrss is its own peak.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval time) {
    return (double)time.tv_sec + (double)time.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: rusage-exec DIRECTORY PROGRAM [ARGUMENT...]\n");
        return 2;
    }
    if (chdir(argv[1]) != 0) {
        fprintf(stderr, "rusage-exec: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    fflush(stdout);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "rusage-exec: fork: %s\n", strerror(errno));
        return 2;
    }
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, STDOUT_FILENO) < 0) {
            fprintf(stderr, "rusage-exec: /dev/null: %s\n", strerror(errno));
            _exit(127);
        }
        close(null);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "rusage-exec: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "rusage-exec: wait4: %s\n", strerror(errno));
            return 2;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double wall = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("%d %.6f %.6f %.6f %ld\n", code, wall, seconds(usage.ru_utime), seconds(usage.ru_stime), usage.ru_maxrss);
    return 0;
}
