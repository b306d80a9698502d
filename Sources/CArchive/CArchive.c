// libarchive, loaded on first use rather than at the program's start.
//
// Linked the usual way, libarchive.so.13 and what it needs (libxml2, ICU,
// nettle, libacl, lz4, bzip2) are mapped and relocated before main runs:
// 1.3 ms of every start on the machine of docs/performance.md, more than
// `unzip -p` takes to print a small member. Much of what the package does
// needs none of it: bundles, and zip containers whose members are stored
// or deflated, which it reads itself. So each function the package calls
// (ArchiveFunctions.h) is defined here: its first call, from any thread,
// opens the library once (dlopen, pthread_once) and looks up every
// function; each call then goes to libarchive's own.
//
// The definitions are hidden: libarchive's calls to its own exported
// functions never come back through them, whatever the program exports.

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#pragma GCC visibility push(hidden)
#include "CArchive.h"

/// The soname of libarchive 3, which Debian's libarchive13 installs.
static const char libraryName[] = "libarchive.so.13";

/// libarchive's own functions, looked up once.
static struct {
#define FWK_ARCHIVE_FUNCTION(type, name, parameters, arguments) type (*name) parameters;
#define FWK_ARCHIVE_PROCEDURE(name, parameters, arguments) void (*name) parameters;
#include "ArchiveFunctions.h"
#undef FWK_ARCHIVE_FUNCTION
#undef FWK_ARCHIVE_PROCEDURE
} library;

static pthread_once_t libraryLoaded = PTHREAD_ONCE_INIT;
/// Why the library could not be loaded; empty once it is.
static char loadFailure[512];

/// Records why `what` could not be loaded, for ``load()`` to report.
static void recordFailure(const char *what) {
    snprintf(loadFailure, sizeof loadFailure, "%s: %s", what, dlerror());
}

static void loadLibrary(void) {
    void *handle = dlopen(libraryName, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        recordFailure(libraryName);
        return;
    }
#define FWK_ARCHIVE_FUNCTION(type, name, parameters, arguments) \
    if ((library.name = (type (*) parameters)dlsym(handle, #name)) == NULL) { recordFailure(#name); return; }
#define FWK_ARCHIVE_PROCEDURE(name, parameters, arguments) FWK_ARCHIVE_FUNCTION(void, name, parameters, arguments)
#include "ArchiveFunctions.h"
#undef FWK_ARCHIVE_FUNCTION
#undef FWK_ARCHIVE_PROCEDURE
}

/// Loads the library, once for all threads. Where that failed, ends the
/// program naming what is missing, with the status the dynamic loader
/// gives a program whose library is missing (127): without libarchive
/// nothing here can go on, and the loader would have refused to start it.
/// The end comes after `pthread_once` has returned, never inside it.
static inline void load(void) {
    pthread_once(&libraryLoaded, loadLibrary);
    if (loadFailure[0] != 0) {
        fprintf(stderr, "FileWrapperArchive: cannot load %s (Debian installs it with libarchive13)\n", loadFailure);
        _exit(127);
    }
}

#define FWK_ARCHIVE_FUNCTION(type, name, parameters, arguments) \
    type name parameters {                                        \
        load();                                                   \
        return library.name arguments;                            \
    }
#define FWK_ARCHIVE_PROCEDURE(name, parameters, arguments) \
    void name parameters {                                  \
        load();                                             \
        library.name arguments;                             \
    }
#include "ArchiveFunctions.h"
#undef FWK_ARCHIVE_FUNCTION
#undef FWK_ARCHIVE_PROCEDURE

#pragma GCC visibility pop
