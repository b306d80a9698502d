#ifndef FILEWRAPPERKIT_CARCHIVE_SHIM_H
#define FILEWRAPPERKIT_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
