#ifndef FILEWRAPPERKIT_CARCHIVE_H
#define FILEWRAPPERKIT_CARCHIVE_H
// libarchive's declarations, as the system's headers give them (Debian:
// libarchive-dev 3.6.2). The functions behind them are CArchive.c's, which
// load the library on first use.
#include <archive.h>
#include <archive_entry.h>
#endif
