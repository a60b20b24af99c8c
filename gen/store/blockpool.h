/* A cache of decompressed blocks shared by the files one thread reads (gen/store/valuefile.h).
 *
 * Why shared: the solver reads the units above the one it solves through man moves, and from
 * the twin side of a pair it sweeps a whole subslice of them again and again (the kings'
 * order is transposed by the flip). Caches of a fixed size a file refill themselves on every
 * sweep once a subslice outgrows them, while most open files are barely read: one pool, with
 * its bound from the memory budget, gives the room to the files that are read.
 *
 * Slots are handed out in order, those of closed files first, so memory is touched only as
 * far as blocks are held at once; when every slot holds a block, a clock (second chance)
 * picks the one to replace, whichever file it belongs to. A reader keeps a map by block of
 * its slots (-1: not held), which the pool updates when it takes a block away. */
#ifndef DK_BLOCKPOOL_H
#define DK_BLOCKPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct dk_block_pool dk_block_pool;

/* A pool of slots of slot_bytes each, as many as `bytes` holds (at least one). The memory is
 * reserved, not touched. Returns NULL when out of memory. One per thread. */
dk_block_pool *dk_block_pool_new(uint64_t bytes, size_t slot_bytes);

/* Frees the pool; every reader must have released its blocks. */
void dk_block_pool_free(dk_block_pool *p);

/* The bytes a slot holds. */
size_t dk_block_pool_slot_bytes(const dk_block_pool *p);

/* The memory of the slot held for `block` by the reader whose map is slot_of, marked as read
 * (slot_of[block] must be >= 0). */
uint8_t *dk_block_pool_get(dk_block_pool *p, const int32_t *slot_of, uint64_t block);

/* A slot for `block` of the reader whose map is slot_of (slot_of[block] is set to it; the
 * block it held before, if any, is taken from its reader): its memory, to be filled. */
uint8_t *dk_block_pool_take(dk_block_pool *p, int32_t *slot_of, uint64_t block);

/* Gives the slot of `block` back (slot_of[block] becomes -1), if it has one. */
void dk_block_pool_release(dk_block_pool *p, int32_t *slot_of, uint64_t block);

/* Gives the memory of the slots beyond the first keep_bytes back to the system while the pool
 * is not in use (every reader must have released its blocks): those kept are filled again
 * without a page fault. The pool stays usable. */
void dk_block_pool_idle(dk_block_pool *p, uint64_t keep_bytes);

/* From now on hands out only the slots in the first `bytes` of the pool (0: all of them): a
 * reader that may take no more (finishing a pair borrows the worker's pool) gets them.
 * Every reader must have released its blocks. */
void dk_block_pool_bound(dk_block_pool *p, uint64_t bytes);

/* Hands out only the slots in the first `bytes` of the pool (at least one, at most all) from
 * now on, while readers hold blocks: those held beyond are taken from their readers, and the
 * memory beyond is given back to the system; the blocks held within stay. For a reader whose
 * room changes from one unit to the next (gen/check/checktables.h). */
void dk_block_pool_limit(dk_block_pool *p, uint64_t bytes);

/* The slots the pool has (what dk_block_pool_limit may give at most). */
uint32_t dk_block_pool_slots(const dk_block_pool *p);

#endif
