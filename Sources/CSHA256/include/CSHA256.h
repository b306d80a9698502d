#ifndef FILEWRAPPERKIT_CSHA256_H
#define FILEWRAPPERKIT_CSHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// SHA-256 (FIPS 180-4) whose state lives wherever the caller puts it, so
/// that a hash costs no allocation: manifests hash tens of thousands of
/// short inputs. Blocks are compressed with the x86 SHA instructions where
/// the processor has them, in portable C elsewhere.

typedef struct {
    uint32_t state[8];
    /// Bytes hashed so far.
    uint64_t length;
    /// The start of a block that is not complete yet: `length % 64` bytes.
    uint8_t pending[64];
} csha256_context;

void csha256_init(csha256_context *context);
void csha256_update(csha256_context *context, const void *bytes, size_t count);
/// Writes the 32-byte digest; the context must be initialized again before reuse.
void csha256_final(csha256_context *context, uint8_t digest[32]);

/// The two ways of compressing `blocks` 64-byte blocks into `state`, for
/// tests that compare them. The accelerated one returns false, and leaves
/// `state` as it was, on a processor without the SHA instructions.
void csha256_compress_portable(uint32_t state[8], const uint8_t *data, size_t blocks);
bool csha256_compress_accelerated(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
