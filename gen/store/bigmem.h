/* Large buffers a generation fills once and reads all over: a unit's scratch and values, the
 * pools of decompressed blocks, a table's values held while it is written, verification's
 * queue and memory of values. Mapped apart and in huge pages where the system gives them
 * (Linux: transparent huge pages on request): such a buffer is touched page by page right after
 * it is made, and on a virtual machine each fault of a 4 KiB page costs microseconds (Brazilian
 * up to 5 pieces took 750,000 of them, 5% of its processor time; 325,000 in huge pages). */
#ifndef DK_BIGMEM_H
#define DK_BIGMEM_H

#include <stddef.h>

/* bytes of zeroed memory (not touched yet), or NULL when out of memory (bytes 0: NULL).
 * Thread-safe. */
void *dk_big_alloc(size_t bytes);

/* Gives back memory of dk_big_alloc(bytes) (NULL: nothing). Thread-safe. */
void dk_big_free(void *p, size_t bytes);

/* Gives the pages of bytes [from, to) of p (of dk_big_alloc) back to the system, keeping the
 * mapping (read again, they are zero): for a part of a buffer not needed for a while. The page
 * that holds byte from - 1 is kept; the caller needs nothing from `to` on either. Best effort. */
void dk_big_idle(void *p, size_t from, size_t to);

#endif
