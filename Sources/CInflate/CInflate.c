// The one raw inflater: ISA-L's isal_inflate where <isa-l.h> is there at
// build time (CINFLATE_ISAL), zlib's inflate otherwise. Both take the
// same input and give the same bytes; only the speed differs.
#include "CInflate.h"

#include <limits.h>
#include <stdlib.h>

#if __has_include(<isa-l.h>)
#define CINFLATE_ISAL 1
#include <isa-l.h>
#else
#define CINFLATE_ISAL 0
#include <zlib.h>
#endif

#define CINFLATE_STRINGIFY(x) #x
#define CINFLATE_VERSION(major, minor, patch) CINFLATE_STRINGIFY(major) "." CINFLATE_STRINGIFY(minor) "." CINFLATE_STRINGIFY(patch)

#if CINFLATE_ISAL

struct cinflate_stream {
    struct inflate_state state;
    /// Bytes given in calls before the one that ended the stream, read
    /// past its end (at most 8: ISA-L's bit buffer).
    uint8_t overread[8];
    size_t overread_count;
};

cinflate_stream *cinflate_new(void) {
    cinflate_stream *stream = malloc(sizeof *stream);
    if (stream != NULL) {
        isal_inflate_init(&stream->state);
        stream->state.crc_flag = ISAL_DEFLATE;
        stream->overread_count = 0;
    }
    return stream;
}

void cinflate_free(cinflate_stream *stream) {
    free(stream);
}

void cinflate_reset(cinflate_stream *stream) {
    isal_inflate_reset(&stream->state);
    stream->state.crc_flag = ISAL_DEFLATE;
    stream->overread_count = 0;
}

size_t cinflate_overread(const cinflate_stream *stream, uint8_t bytes[8]) {
    for (size_t index = 0; index < stream->overread_count; index++) bytes[index] = stream->overread[index];
    return stream->overread_count;
}

/// ISA-L counts output in 32 bits and checks each match distance against
/// that count; past 4 GiB it would wrap and refuse valid distances. Held
/// at 2 GiB, it still exceeds any distance (32 KiB at most).
static const uint32_t cinflate_total_out_cap = UINT32_C(1) << 31;

cinflate_status cinflate_step(cinflate_stream *stream, const void *input, size_t *input_count, void *output, size_t *output_count) {
    struct inflate_state *state = &stream->state;
    uint32_t in = *input_count > UINT32_MAX ? UINT32_MAX : (uint32_t)*input_count;
    uint32_t out = *output_count > UINT32_MAX ? UINT32_MAX : (uint32_t)*output_count;
    state->next_in = (uint8_t *)input;
    state->avail_in = in;
    state->next_out = output;
    state->avail_out = out;
    int status = isal_inflate(state);
    size_t consumed = in - state->avail_in;
    *output_count = out - state->avail_out;
    if (state->total_out > cinflate_total_out_cap) state->total_out = cinflate_total_out_cap;
    if (status < 0 || status == ISAL_NEED_DICT) {
        *input_count = consumed;
        return CINFLATE_DAMAGED;
    }
    if (state->block_state != ISAL_BLOCK_FINISH) {
        *input_count = consumed;
        return CINFLATE_PROGRESS;
    }
    // ISA-L reads input up to 8 bytes ahead into a bit buffer and, for a
    // raw stream, keeps the whole bytes after the final block there: give
    // back those of this call's input, as zlib does, and keep the rest
    // (read in earlier calls) for cinflate_overread.
    size_t unused = (size_t)(state->read_in_length / 8);
    size_t earlier = unused > consumed ? unused - consumed : 0;
    uint64_t bits = state->read_in >> (state->read_in_length % 8);
    for (size_t index = 0; index < earlier; index++) stream->overread[index] = (uint8_t)(bits >> (8 * index));
    stream->overread_count = earlier;
    *input_count = consumed - (unused - earlier);
    return CINFLATE_END;
}

const char *cinflate_library(void) {
    return "ISA-L " CINFLATE_VERSION(ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION, ISAL_PATCH_VERSION);
}

#else

struct cinflate_stream {
    z_stream z;
};

cinflate_stream *cinflate_new(void) {
    cinflate_stream *stream = calloc(1, sizeof *stream);
    // windowBits -15: raw deflate, any window up to 32 KiB.
    if (stream != NULL && inflateInit2(&stream->z, -15) != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

void cinflate_free(cinflate_stream *stream) {
    if (stream == NULL) return;
    inflateEnd(&stream->z);
    free(stream);
}

void cinflate_reset(cinflate_stream *stream) {
    inflateReset(&stream->z);
}

size_t cinflate_overread(const cinflate_stream *stream, uint8_t bytes[8]) {
    (void)stream;
    (void)bytes;
    return 0;
}

cinflate_status cinflate_step(cinflate_stream *stream, const void *input, size_t *input_count, void *output, size_t *output_count) {
    z_stream *z = &stream->z;
    uInt in = *input_count > UINT_MAX ? UINT_MAX : (uInt)*input_count;
    uInt out = *output_count > UINT_MAX ? UINT_MAX : (uInt)*output_count;
    z->next_in = (Bytef *)input;
    z->avail_in = in;
    z->next_out = output;
    z->avail_out = out;
    int status = inflate(z, Z_NO_FLUSH);
    *input_count = in - z->avail_in;
    *output_count = out - z->avail_out;
    switch (status) {
    case Z_STREAM_END: return CINFLATE_END;
    case Z_OK: case Z_BUF_ERROR: return CINFLATE_PROGRESS;
    case Z_MEM_ERROR: return CINFLATE_NO_MEMORY;
    default: return CINFLATE_DAMAGED;
    }
}

const char *cinflate_library(void) {
    return "zlib " ZLIB_VERSION;
}

#endif
