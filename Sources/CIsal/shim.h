#ifndef FILEWRAPPERKIT_CISAL_SHIM_H
#define FILEWRAPPERKIT_CISAL_SHIM_H
// ISA-L's inflate when libisal-dev is installed; nothing otherwise, and
// CInflate falls back to zlib. No `link` here: -lisal comes from
// pkg-config (libisal.pc) only when the library is there.
#if __has_include(<isa-l.h>)
#include <isa-l.h>
#endif
#endif
