#ifndef FILEWRAPPERKIT_CINFLATE_H
#define FILEWRAPPERKIT_CINFLATE_H

#include <stddef.h>
#include <stdint.h>

/// One raw deflate stream (no zlib or gzip wrapper), decoded by ISA-L
/// where the build found libisal-dev, by zlib otherwise.
typedef struct cinflate_stream cinflate_stream;

/// How a call to cinflate_step went.
typedef enum {
    /// Input consumed or output produced, or neither possible without
    /// more of one; the stream goes on.
    CINFLATE_PROGRESS = 0,
    /// The stream ended; input after its end is left unconsumed.
    CINFLATE_END = 1,
    /// The input is not deflate data.
    CINFLATE_DAMAGED = -1,
    /// The library could not allocate memory.
    CINFLATE_NO_MEMORY = -2,
} cinflate_status;

/// A new stream, or NULL when memory cannot be allocated.
cinflate_stream *_Nullable cinflate_new(void);
void cinflate_free(cinflate_stream *_Nullable stream);
/// Makes `stream` ready for a new deflate stream.
void cinflate_reset(cinflate_stream *_Nonnull stream);

/// Expands from `input` (`*input_count` bytes) into `output`
/// (`*output_count` bytes of room) as far as both allow; on return
/// `*input_count` is the bytes consumed and `*output_count` those produced.
cinflate_status cinflate_step(cinflate_stream *_Nonnull stream,
                              const void *_Nullable input, size_t *_Nonnull input_count,
                              void *_Nullable output, size_t *_Nonnull output_count);

/// After CINFLATE_END: how many bytes given in earlier calls lie after
/// the stream's end (ISA-L reads up to 8 bytes ahead; zlib never does),
/// copied in order into `bytes`. The caller reads them before the rest of
/// the input of the call that ended the stream.
size_t cinflate_overread(const cinflate_stream *_Nonnull stream, uint8_t bytes[_Nonnull 8]);

/// The library that inflates, with its version: "ISA-L 2.30.0" or "zlib 1.2.13".
const char *_Nonnull cinflate_library(void);

#endif
