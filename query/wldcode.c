#include "wldcode.h"

#include <string.h>

/* What a code of L bits in context x stands for, packed in 32 bits for the decoder's table:
 * L (bits 0..3), the length's extra bits (4..7), the context after the run (8..10), the run's
 * value (11..12) and its length without the extra bits (13..29). */
static uint32_t entry(unsigned x, unsigned sym, unsigned L)
{
    unsigned v = sym / DK_WLD_CLASSES, cls = sym % DK_WLD_CLASSES, extra = 0, base = cls + 1;
    if (cls >= 7) { /* 4 + the next two bits, shifted past the extra bits */
        extra = 1 + (cls - 7) / 4;
        base = (4 + (cls - 7) % 4) << extra;
    }
    unsigned next = dk_wld_context(x ? (x - 1) / 2 : dk_wld_first_prev(v), v);
    if (x && v == (x - 1) / 2) /* the run's value again: only a damaged table says so */
        next = x;
    return L | extra << 4 | next << 8 | v << 11 | (uint32_t)base << 13;
}

int dk_wld_codes_init(dk_wld_codes *c, const uint8_t table[DK_WLD_TABLE])
{
    memset(c, 0, sizeof *c);
    for (unsigned x = 0; x < DK_WLD_CONTEXTS; x++) {
        uint8_t len[DK_WLD_SYMBOLS];
        unsigned count[DK_WLD_MAX_LEN + 1] = {0};
        for (unsigned s = 0; s < DK_WLD_SYMBOLS; s++) {
            unsigned k = x * DK_WLD_SYMBOLS + s;
            len[s] = table[k / 2] >> (4 * (k % 2)) & 15;
            count[len[s]]++;
        }
        /* canonical codes: by length, then symbol; first[L] is length L's first code */
        uint32_t code = 0, first[DK_WLD_MAX_LEN + 1] = {0}, kraft = 0;
        unsigned offset[DK_WLD_MAX_LEN + 1] = {0}, n = 0;
        for (unsigned L = 1; L <= DK_WLD_MAX_LEN; L++) {
            first[L] = code;
            offset[L] = n;
            n += count[L];
            kraft += count[L] << (DK_WLD_MAX_LEN - L);
            code = (code + count[L]) << 1;
            c->limit[x][L] = (first[L] + count[L]) << (DK_WLD_MAX_LEN - L);
            c->base[x][L] = (uint16_t)(offset[L] - first[L]); /* wraps; added back in decode */
        }
        if (kraft > 1u << DK_WLD_MAX_LEN)
            return -1;
        unsigned next[DK_WLD_MAX_LEN + 1];
        memcpy(next, offset, sizeof next);
        for (unsigned s = 0; s < DK_WLD_SYMBOLS; s++) {
            unsigned L = len[s];
            if (!L)
                continue;
            c->sorted[x][next[L]++] = (uint8_t)s;
            uint32_t cd = first[L] + (next[L] - 1 - offset[L]);
            if (L <= DK_WLD_FAST)
                for (uint32_t e = cd << (DK_WLD_FAST - L); e < (cd + 1) << (DK_WLD_FAST - L); e++)
                    c->fast[x][e] = entry(x, s, L);
        }
    }
    return 0;
}

/* Bits of a sub-block, most significant first. Past the end it reads zeros, so that a damaged
 * sub-block is refused after the fact (bits used against bytes stored) instead of read beyond. */
typedef struct bits {
    const uint8_t *p, *end;
    uint64_t buf;   /* the next bits, left-aligned */
    unsigned n;     /* how many of them are valid */
} bits;

static inline void refill(bits *r)
{
    if (r->end - r->p >= 8) {
        uint64_t w;
        memcpy(&w, r->p, 8);
        r->buf |= __builtin_bswap64(w) >> r->n; /* the bytes not taken whole are ORed again */
        r->p += (63 - r->n) >> 3;
        r->n |= 56;
        return;
    }
    for (; r->n <= 56; r->n += 8)
        r->buf |= (uint64_t)(r->p < r->end ? *r->p++ : 0) << (56 - r->n);
}

static inline uint32_t take(bits *r, unsigned k)
{
    uint32_t v = k ? (uint32_t)(r->buf >> (64 - k)) : 0;
    r->buf <<= k;
    r->n -= k;
    return v;
}

/* Sets positions [at, at + len) of the 2-bit codes in w (32 a word, position j of a word in
 * bits 2j, 2j + 1), all zero from `at` on, to the value whose pattern is pat (0, 0x55.. or
 * 0xaa..): whole words at once, then the positions past the run cleared again. */
static inline void fill(uint64_t *w, uint32_t at, uint32_t len, uint64_t pat)
{
    uint32_t a = at / 32, b = (at + len - 1) / 32;
    w[a] |= pat & ~0ull << (2 * (at % 32));
    for (uint32_t i = a + 1; i <= b; i++)
        w[i] = pat;
    w[b] &= ~0ull >> (62 - 2 * ((at + len - 1) % 32));
}

int dk_wld_decode(const dk_wld_codes *c, const uint8_t *src, size_t len, uint32_t n, uint8_t *out)
{
    static const uint64_t pattern[4] = {0, 0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull, ~0ull};
    bits r = {src, src + len, 0, 0};
    uint64_t w[DK_WLD_MAX_SUB / 32];
    memset(w, 0, (n + 31) / 32 * 8);
    unsigned x = 0;
    size_t used = 0; /* bits consumed */
    for (uint32_t at = 0; at < n;) {
        refill(&r);
        uint32_t e = c->fast[x][r.buf >> (64 - DK_WLD_FAST)];
        if (!e) {
            uint32_t peek = (uint32_t)(r.buf >> (64 - DK_WLD_MAX_LEN));
            unsigned L = DK_WLD_FAST + 1;
            for (; L <= DK_WLD_MAX_LEN && peek >= c->limit[x][L]; L++)
                ;
            if (L > DK_WLD_MAX_LEN)
                return -1; /* not a code of this context */
            e = entry(x, c->sorted[x][(uint16_t)(c->base[x][L] + (peek >> (DK_WLD_MAX_LEN - L)))], L);
        }
        unsigned k = (e & 15) + (e >> 4 & 15); /* the code, then the length's extra bits */
        uint32_t bits = take(&r, k) & ((1u << (e >> 4 & 15)) - 1);
        uint32_t run = (e >> 13) + bits;
        used += k;
        if (run > n - at)
            return -1;
        fill(w, at, run, pattern[e >> 11 & 3]);
        at += run;
        x = e >> 8 & 7;
    }
    /* every byte used, and no bit past the end */
    if ((used + 7) / 8 != len)
        return -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, w, (n + 3) / 4); /* the words' bytes are the codes' bytes */
#else
    for (uint32_t i = 0; i < (n + 3) / 4; i++)
        out[i] = (uint8_t)(w[i / 8] >> (8 * (i % 8)));
#endif
    return 0;
}
