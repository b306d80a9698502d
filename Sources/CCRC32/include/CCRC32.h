#ifndef FILEWRAPPERKIT_CCRC32_H
#define FILEWRAPPERKIT_CCRC32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The CRC-32 of zip and gzip (ISO 3309, reflected, as zlib's `crc32_z`
/// computes it): `crc` carried on by `count` bytes, starting from 0.
/// Folded with carry-less multiplication (PCLMULQDQ) where the processor
/// has it: 0.44 ms for 4 MiB, where zlib's tables take 1.56 ms (this
/// machine, docs/performance.md). Every zip member is checked as it is
/// read, and the check was most of the time `wrapinspect cat` took to read
/// a 4 MiB member. zlib's `crc32_z` elsewhere and for the last bytes.
uint32_t ccrc32_update(uint32_t crc, const void *bytes, size_t count);

/// Whether ``ccrc32_update`` folds with carry-less multiplication here,
/// for tests that compare it with zlib's.
bool ccrc32_is_accelerated(void);

#endif
