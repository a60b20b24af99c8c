#include "checksum.h"

#include <string.h>

#if defined(__SSE4_2__)
#include <nmmintrin.h>

uint32_t dk_crc32c(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t c = ~crc;
    for (; len >= 8; len -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = _mm_crc32_u64(c, w);
    }
    uint32_t c32 = (uint32_t)c;
    for (; len; len--)
        c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}
#else
#include <pthread.h>

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void init_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
        table[i] = c;
    }
}

uint32_t dk_crc32c(uint32_t crc, const void *data, size_t len)
{
    pthread_once(&table_once, init_table);
    const unsigned char *p = data;
    uint32_t c = ~crc;
    while (len--)
        c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}
#endif
