#include "heap.h"

#include <string.h>

static void *at(const dk_heap *h, size_t i) { return (char *)h->data + i * h->size; }

/* memcpy of an element, by words when its size allows: the heaps here hold a few words, which
 * this copies without a call. */
static inline void copy(void *to, const void *from, size_t size)
{
    if (size % 4) {
        memcpy(to, from, size);
        return;
    }
    for (size_t k = 0; k < size; k += 4)
        memcpy((char *)to + k, (const char *)from + k, 4);
}

/* Puts *e at hole i, moving up past the parents it is less than. */
static void sift_up(dk_heap *h, size_t i, const void *e)
{
    for (; i > 0 && h->less(e, at(h, (i - 1) / 2)); i = (i - 1) / 2)
        copy(at(h, i), at(h, (i - 1) / 2), h->size);
    copy(at(h, i), e, h->size);
}

void dk_heap_push(dk_heap *h, const void *e) { sift_up(h, h->n++, e); }

/* The root's hole goes down to a leaf along the lesser children, then the last element fills
 * it from there upwards: about one comparison a level instead of two, since the last element
 * mostly belongs near the bottom. */
void dk_heap_pop(dk_heap *h, void *out)
{
    unsigned char last[DK_HEAP_ELEM_MAX];
    memcpy(out, h->data, h->size); /* once a pop; copy's word loop, inlined at link time, made GCC
                                    * see writes past a caller's smaller element */
    copy(last, at(h, --h->n), h->size);
    if (h->n == 0)
        return;
    size_t i = 0;
    for (size_t c; (c = 2 * i + 1) < h->n; i = c) {
        if (c + 1 < h->n && h->less(at(h, c + 1), at(h, c)))
            c++;
        copy(at(h, i), at(h, c), h->size);
    }
    sift_up(h, i, last);
}
