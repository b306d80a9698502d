#ifndef FILEWRAPPERKIT_CZSTD_SHIM_H
#define FILEWRAPPERKIT_CZSTD_SHIM_H
#include <zstd.h>
#include <zstd_errors.h>
#endif
