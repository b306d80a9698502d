#include "CCRC32.h"

#include <zlib.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

// The folding constants of the reflected polynomial 0x04C11DB7: x^k mod P
// for the distances folded (Intel, "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ", 2009), each in the half of a vector its
// multiplication takes.

/// Folds a 16-byte lane forward by 64 bytes (x^544, x^480 mod P).
#define FOLD_BY_FOUR_LOW 0x154442bd4ULL
#define FOLD_BY_FOUR_HIGH 0x1c6e41596ULL
/// Folds forward by 16 bytes (x^160, x^96 mod P).
#define FOLD_BY_ONE_LOW 0x1751997d0ULL
#define FOLD_BY_ONE_HIGH 0x0ccaa009eULL
/// Folds 96 bits to 64 (x^64 mod P).
#define FOLD_96_TO_64 0x163cd6124ULL
/// Barrett reduction: P itself, and floor(x^64 / P).
#define POLYNOMIAL 0x1db710641ULL
#define BARRETT_QUOTIENT 0x1f7011641ULL

/// `lane` multiplied forward by `constants` (low half by low, high by
/// high), added to `next`.
__attribute__((target("pclmul,sse4.1")))
static inline __m128i fold(__m128i lane, __m128i constants, __m128i next) {
    __m128i low = _mm_clmulepi64_si128(lane, constants, 0x00);
    __m128i high = _mm_clmulepi64_si128(lane, constants, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

/// The CRC register (not inverted) carried on by `count` bytes, a multiple
/// of 16 of at least 64.
__attribute__((target("pclmul,sse4.1")))
static uint32_t fold_blocks(uint32_t crc, const uint8_t *bytes, size_t count) {
    const __m128i byFour = _mm_set_epi64x((long long)FOLD_BY_FOUR_HIGH, (long long)FOLD_BY_FOUR_LOW);
    const __m128i byOne = _mm_set_epi64x((long long)FOLD_BY_ONE_HIGH, (long long)FOLD_BY_ONE_LOW);
    const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);

    __m128i lane1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)bytes), _mm_cvtsi32_si128((int)crc));
    __m128i lane2 = _mm_loadu_si128((const __m128i *)(bytes + 16));
    __m128i lane3 = _mm_loadu_si128((const __m128i *)(bytes + 32));
    __m128i lane4 = _mm_loadu_si128((const __m128i *)(bytes + 48));
    bytes += 64;
    count -= 64;
    for (; count >= 64; bytes += 64, count -= 64) {
        lane1 = fold(lane1, byFour, _mm_loadu_si128((const __m128i *)bytes));
        lane2 = fold(lane2, byFour, _mm_loadu_si128((const __m128i *)(bytes + 16)));
        lane3 = fold(lane3, byFour, _mm_loadu_si128((const __m128i *)(bytes + 32)));
        lane4 = fold(lane4, byFour, _mm_loadu_si128((const __m128i *)(bytes + 48)));
    }
    // Four lanes into one, then the 16-byte blocks left.
    lane1 = fold(lane1, byOne, lane2);
    lane1 = fold(lane1, byOne, lane3);
    lane1 = fold(lane1, byOne, lane4);
    for (; count >= 16; bytes += 16, count -= 16) {
        lane1 = fold(lane1, byOne, _mm_loadu_si128((const __m128i *)bytes));
    }
    // 128 bits to 64: the low half times x^96 mod P, added to the high half.
    lane1 = _mm_xor_si128(_mm_clmulepi64_si128(lane1, byOne, 0x10), _mm_srli_si128(lane1, 8));
    // 96 bits to 64.
    __m128i low = _mm_clmulepi64_si128(_mm_and_si128(lane1, low32), _mm_set_epi64x(0, (long long)FOLD_96_TO_64), 0x00);
    lane1 = _mm_xor_si128(_mm_srli_si128(lane1, 4), low);
    // Barrett reduction to the 32-bit remainder.
    const __m128i barrett = _mm_set_epi64x((long long)BARRETT_QUOTIENT, (long long)POLYNOMIAL);
    __m128i quotient = _mm_clmulepi64_si128(_mm_and_si128(lane1, low32), barrett, 0x10);
    __m128i product = _mm_clmulepi64_si128(_mm_and_si128(quotient, low32), barrett, 0x00);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(lane1, product), 1);
}

bool ccrc32_is_accelerated(void) {
    // 0 not asked yet, 1 no, 2 yes. Asked once: CPUID is slow in a VM.
    static int answer = 0;
    int known = __atomic_load_n(&answer, __ATOMIC_RELAXED);
    if (known == 0) {
        unsigned int eax, ebx, ecx, edx;
        known = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_PCLMUL) && (ecx & bit_SSE4_1) ? 2 : 1;
        __atomic_store_n(&answer, known, __ATOMIC_RELAXED);
    }
    return known == 2;
}

uint32_t ccrc32_update(uint32_t crc, const void *bytes, size_t count) {
    const uint8_t *next = bytes;
    if (count >= 64 && ccrc32_is_accelerated()) {
        size_t folded = count & ~(size_t)15;
        crc = ~fold_blocks(~crc, next, folded);
        next += folded;
        count -= folded;
    }
    return (uint32_t)crc32_z(crc, next, count);
}

#else

bool ccrc32_is_accelerated(void) {
    return false;
}

uint32_t ccrc32_update(uint32_t crc, const void *bytes, size_t count) {
    return (uint32_t)crc32_z(crc, bytes, count);
}

#endif
