#include "CSHA256.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define CSHA256_X86 1
#endif

/// The round constants: the first 32 bits of the fractional parts of the
/// cube roots of the first 64 primes. 16-byte aligned for vector loads.
static const uint32_t round_constants[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
    0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
    0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
    0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
    0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

void csha256_init(csha256_context *context) {
    /// The fractional parts of the square roots of the first 8 primes.
    static const uint32_t initial[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(context->state, initial, sizeof initial);
    context->length = 0;
}

static inline uint32_t rotate_right(uint32_t value, unsigned count) {
    return (value >> count) | (value << (32 - count));
}

static inline uint32_t load_big_endian(const uint8_t *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

void csha256_compress_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
    for (; blocks > 0; blocks--, data += 64) {
        uint32_t schedule[64];
        for (int t = 0; t < 16; t++) {
            schedule[t] = load_big_endian(data + 4 * t);
        }
        for (int t = 16; t < 64; t++) {
            uint32_t w15 = schedule[t - 15], w2 = schedule[t - 2];
            uint32_t sigma0 = rotate_right(w15, 7) ^ rotate_right(w15, 18) ^ (w15 >> 3);
            uint32_t sigma1 = rotate_right(w2, 17) ^ rotate_right(w2, 19) ^ (w2 >> 10);
            schedule[t] = schedule[t - 16] + sigma0 + schedule[t - 7] + sigma1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            uint32_t sum1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
            uint32_t choice = (e & f) ^ (~e & g);
            uint32_t temporary1 = h + sum1 + choice + round_constants[t] + schedule[t];
            uint32_t sum0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
            uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
            uint32_t temporary2 = sum0 + majority;
            h = g;
            g = f;
            f = e;
            e = d + temporary1;
            d = c;
            c = b;
            b = a;
            a = temporary1 + temporary2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}

#ifdef CSHA256_X86

/// The SHA extensions (SHA-NI): two rounds an instruction. The state is
/// kept as the instructions want it, A B E F in one register and C D G H
/// in the other; the schedule in four registers of four words each.
__attribute__((target("sha,sse4.1,ssse3")))
static void compress_with_sha_instructions(uint32_t state[8], const uint8_t *data, size_t blocks) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i abcd = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i efgh = _mm_loadu_si128((const __m128i *)&state[4]);
    abcd = _mm_shuffle_epi32(abcd, 0xB1);
    efgh = _mm_shuffle_epi32(efgh, 0x1B);
    __m128i abef = _mm_alignr_epi8(abcd, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, abcd, 0xF0);

    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        __m128i words[4];
        // Unrolled, so that the words stay in registers and the schedule
        // of later groups is computed while earlier rounds run.
#pragma GCC unroll 16
        for (int group = 0; group < 16; group++) {
            __m128i *current = &words[group & 3];
            if (group < 4) {
                *current = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * group)), byte_swap);
            } else {
                // W[t] = W[t-16] + s0(W[t-15]) + W[t-7] + s1(W[t-2]), four at a time.
                const __m128i previous = words[(group - 1) & 3];
                const __m128i seventh = _mm_alignr_epi8(previous, words[(group - 2) & 3], 4);
                *current = _mm_sha256msg1_epu32(*current, words[(group - 3) & 3]);
                *current = _mm_sha256msg2_epu32(_mm_add_epi32(*current, seventh), previous);
            }
            __m128i input = _mm_add_epi32(*current, _mm_load_si128((const __m128i *)&round_constants[4 * group]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, input);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(input, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

/// Whether the processor has the SHA extensions and the SSSE3 and SSE4.1
/// instructions they are used with. Asked once: CPUID is slow in a VM.
static bool has_sha_instructions(void) {
    // 0 not asked yet, 1 no, 2 yes.
    static int answer = 0;
    int known = __atomic_load_n(&answer, __ATOMIC_RELAXED);
    if (known == 0) {
        unsigned int eax, ebx, ecx, edx;
        bool sha = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & bit_SHA);
        bool vectors = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSSE3) && (ecx & bit_SSE4_1);
        known = sha && vectors ? 2 : 1;
        __atomic_store_n(&answer, known, __ATOMIC_RELAXED);
    }
    return known == 2;
}

bool csha256_compress_accelerated(uint32_t state[8], const uint8_t *data, size_t blocks) {
    if (!has_sha_instructions()) return false;
    compress_with_sha_instructions(state, data, blocks);
    return true;
}

#else

bool csha256_compress_accelerated(uint32_t state[8], const uint8_t *data, size_t blocks) {
    (void)state, (void)data, (void)blocks;
    return false;
}

#endif

static void compress(uint32_t state[8], const uint8_t *data, size_t blocks) {
    if (!csha256_compress_accelerated(state, data, blocks)) {
        csha256_compress_portable(state, data, blocks);
    }
}

void csha256_update(csha256_context *context, const void *bytes, size_t count) {
    if (count == 0) return;
    const uint8_t *data = bytes;
    size_t pending = context->length % 64;
    context->length += count;
    if (pending > 0) {
        size_t taken = 64 - pending < count ? 64 - pending : count;
        memcpy(context->pending + pending, data, taken);
        data += taken;
        count -= taken;
        if (pending + taken < 64) return;
        compress(context->state, context->pending, 1);
    }
    if (count >= 64) {
        compress(context->state, data, count / 64);
        data += count / 64 * 64;
        count %= 64;
    }
    memcpy(context->pending, data, count);
}

void csha256_final(csha256_context *context, uint8_t digest[32]) {
    size_t pending = context->length % 64;
    uint64_t bits = context->length * 8;
    // A one bit, zeros up to 8 bytes short of a block end, the length in bits.
    uint8_t tail[128] = { 0x80 };
    size_t tail_length = pending < 56 ? 64 - pending : 128 - pending;
    for (int index = 0; index < 8; index++) {
        tail[tail_length - 1 - index] = (uint8_t)(bits >> (8 * index));
    }
    csha256_update(context, tail, tail_length);
    for (int index = 0; index < 8; index++) {
        uint32_t word = context->state[index];
        digest[4 * index] = (uint8_t)(word >> 24);
        digest[4 * index + 1] = (uint8_t)(word >> 16);
        digest[4 * index + 2] = (uint8_t)(word >> 8);
        digest[4 * index + 3] = (uint8_t)word;
    }
}
