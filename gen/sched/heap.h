/* A binary min-heap of fixed-size elements in storage the caller provides: the ready tasks of
 * the work graph, the waiting ranks of the scheduler core, the running tasks of `damka plan`'s
 * simulation. */
#ifndef DK_HEAP_H
#define DK_HEAP_H

#include <stdbool.h>
#include <stddef.h>

/* The largest element. */
enum { DK_HEAP_ELEM_MAX = 64 };

typedef struct dk_heap {
    void *data;                             /* room for every element pushed */
    size_t size;                            /* bytes an element (<= DK_HEAP_ELEM_MAX) */
    size_t n;                               /* elements held */
    bool (*less)(const void *a, const void *b);
} dk_heap;

/* Adds a copy of *e (not in the heap's storage). O(log n). */
void dk_heap_push(dk_heap *h, const void *e);

/* Moves the least element to *out (the heap must not be empty). O(log n). */
void dk_heap_pop(dk_heap *h, void *out);

/* The least element, or NULL when empty. */
static inline const void *dk_heap_top(const dk_heap *h) { return h->n ? h->data : NULL; }

#endif
