/* The run-length code of WLD files (query/FORMAT.md): a sub-block of K
 * positions is a sequence of runs, each coded as one canonical Huffman symbol (the run's value
 * and the class of its length) chosen by the two values before it, then the length's low bits.
 * A miss decodes one sub-block instead of a whole zstd block, which is what makes cold probes
 * cheap. The decoder is here (engines link it); the encoder is gen/finish/wldcode_write.c. */
#ifndef DK_WLDCODE_H
#define DK_WLDCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    DK_WLD_CLASSES = 64,                    /* length classes (dk_wld_class) */
    DK_WLD_SYMBOLS = 3 * DK_WLD_CLASSES,    /* value * DK_WLD_CLASSES + class */
    DK_WLD_CONTEXTS = 7,                    /* 0: a sub-block's first run; 1..6: dk_wld_context */
    DK_WLD_MAX_LEN = 15,                    /* longest code, in bits */
    DK_WLD_TABLE = DK_WLD_CONTEXTS * DK_WLD_SYMBOLS / 2, /* bytes of code lengths (4 bits each) */
    DK_WLD_MAX_SUB = 1 << 16,               /* most positions in a sub-block (runs stay < 2^17) */
    DK_WLD_MAX_BLOCK = 1 << 17,             /* most positions in a block (u16 offsets fit) */
    DK_WLD_FAST = 10,                       /* bits the decoder looks up at once */
};

/* The class of a run length (1 .. 2^17 - 1) and how many low bits follow it: lengths 1..7 are
 * classes 0..6 with no extra bits; a longer length with top bit e (2^e <= len) is 7 + 4 (e - 3)
 * plus its next two bits, followed by its e - 2 lowest bits. Pure. */
static inline unsigned dk_wld_class(uint32_t len, unsigned *extra)
{
    if (len < 8) {
        *extra = 0;
        return len - 1;
    }
    unsigned e = 31 - (unsigned)__builtin_clz(len);
    *extra = e - 2;
    return 7 + 4 * (e - 3) + (len >> (e - 2) & 3);
}

/* The context of the run after a run of value cur that followed one of value prev (both
 * 0..2, different): 1..6. Pure. */
static inline unsigned dk_wld_context(unsigned prev, unsigned cur)
{
    return 1 + 2 * cur + (prev != (cur + 1) % 3);
}

/* The value taken as "before" a sub-block's first run of value v, for the context of the run
 * after it (any fixed choice works; the writer and reader agree on this one). Pure. */
static inline unsigned dk_wld_first_prev(unsigned v) { return (v + 2) % 3; }

/* The most bytes a coded block of n positions in sub-blocks of `sub` takes (every sub-block
 * stored as it is), and whether a block of `block` positions so coded always fits the u16
 * offsets of its sub-blocks (FORMAT.md). Pure. */
static inline size_t dk_wld_block_bound(uint32_t n, uint32_t sub)
{
    return 4 + 2 * (size_t)((n + sub - 1) / sub - 1) + (n + 3) / 4;
}

static inline bool dk_wld_layout_ok(uint32_t block, uint32_t sub)
{
    return sub >= 4 && sub % 4 == 0 && sub <= DK_WLD_MAX_SUB && block % sub == 0 &&
           block <= DK_WLD_MAX_BLOCK && dk_wld_block_bound(block, sub) <= 0xffff;
}

/* Decoding tables of one file, built from its code lengths. Read-only once built: any number
 * of threads may decode with it. */
typedef struct dk_wld_codes {
    /* by context and next DK_WLD_FAST bits: the run that code stands for, all a decoder needs
     * (dk_wld_entry); 0: a longer code, or none */
    uint32_t fast[DK_WLD_CONTEXTS][1 << DK_WLD_FAST];
    uint32_t limit[DK_WLD_CONTEXTS][DK_WLD_MAX_LEN + 2]; /* first 15-bit prefix past length L */
    uint16_t base[DK_WLD_CONTEXTS][DK_WLD_MAX_LEN + 1];  /* index in sorted of length L's first code, minus its code */
    uint8_t sorted[DK_WLD_CONTEXTS][DK_WLD_SYMBOLS];     /* symbols by (length, symbol) */
} dk_wld_codes;

/* Builds c from the DK_WLD_TABLE bytes of code lengths (FORMAT.md: symbol s of context x is
 * the nibble 2 * (x * DK_WLD_SYMBOLS + s), low nibble first). Returns 0, or -1 if the lengths
 * are not a prefix code (more codes than fit, Kraft sum over 1). Thread-safe. */
int dk_wld_codes_init(dk_wld_codes *c, const uint8_t table[DK_WLD_TABLE]);

/* Decodes a sub-block of n positions (1 .. DK_WLD_MAX_SUB) stored in src[0..len) into out
 * (ceil(n / 4) bytes, 2-bit codes packed as in a decoded WLD unit). Returns 0, or -1 if the bytes are
 * not a valid sub-block: a code not in the table, a run past the end, bits missing or left
 * over. Never reads outside src or writes outside out. Thread-safe. */
int dk_wld_decode(const dk_wld_codes *c, const uint8_t *src, size_t len, uint32_t n, uint8_t *out);

#endif
