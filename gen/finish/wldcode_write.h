/* The encoder of the WLD run-length code (query/wldcode.h has the decoder, query/FORMAT.md
 * the layout): count a table's runs, choose one Huffman code per context for the whole file,
 * then code each block as sub-blocks a reader can decode alone. */
#ifndef DK_WLDCODE_WRITE_H
#define DK_WLDCODE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "../../query/wldcode.h"

/* How often each symbol occurs in each context. */
typedef struct dk_wld_counts {
    uint64_t n[DK_WLD_CONTEXTS][DK_WLD_SYMBOLS];
} dk_wld_counts;

/* The codes chosen for a file. */
typedef struct dk_wld_encoder {
    uint8_t table[DK_WLD_TABLE];                     /* code lengths, as stored (FORMAT.md) */
    uint8_t len[DK_WLD_CONTEXTS][DK_WLD_SYMBOLS];
    uint16_t code[DK_WLD_CONTEXTS][DK_WLD_SYMBOLS];
} dk_wld_encoder;

/* Adds the runs of a block's n 2-bit codes (packed as in a decoded block) to k, cut into
 * sub-blocks of `sub` positions. Pure apart from *k. */
void dk_wld_count(dk_wld_counts *k, const uint8_t *codes, uint32_t n, uint32_t sub);

/* Chooses Huffman codes of at most DK_WLD_MAX_LEN bits for the counts. Pure. */
void dk_wld_encoder_init(dk_wld_encoder *e, const dk_wld_counts *k);

/* Codes a block of n positions (1 .. DK_WLD_MAX_BLOCK; its 2-bit codes packed in `codes`)
 * as sub-blocks of `sub` positions (a multiple of 4, at most DK_WLD_MAX_SUB) into out (room for
 * dk_wld_block_bound, query/wldcode.h): CRC, sub-block offsets, sub-blocks, each coded or, where coding would
 * not be shorter, stored as it is. Returns the bytes written. Every run must have a code in e
 * (true when e was made from counts that include this block). Pure apart from out. */
size_t dk_wld_encode_block(const dk_wld_encoder *e, const uint8_t *codes, uint32_t n, uint32_t sub,
                           uint8_t *out);

#endif
