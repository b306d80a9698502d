#ifndef FILEWRAPPERKIT_CLZMA_SHIM_H
#define FILEWRAPPERKIT_CLZMA_SHIM_H
#include <lzma.h>
#endif
