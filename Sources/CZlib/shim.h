#ifndef FILEWRAPPERKIT_CZLIB_SHIM_H
#define FILEWRAPPERKIT_CZLIB_SHIM_H
#include <zlib.h>
#endif
