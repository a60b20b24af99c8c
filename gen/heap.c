#include "heap.h"

#include <string.h>

static void *at(const dk_heap *h, size_t i) { return (char *)h->data + i * h->size; }

void dk_heap_push(dk_heap *h, const void *e)
{
    size_t i = h->n++;
    for (; i > 0 && h->less(e, at(h, (i - 1) / 2)); i = (i - 1) / 2)
        memcpy(at(h, i), at(h, (i - 1) / 2), h->size);
    memcpy(at(h, i), e, h->size);
}

void dk_heap_pop(dk_heap *h, void *out)
{
    unsigned char last[DK_HEAP_ELEM_MAX];
    memcpy(out, h->data, h->size);
    memcpy(last, at(h, --h->n), h->size);
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->less(at(h, c + 1), at(h, c)))
            c++;
        if (!h->less(at(h, c), last))
            break;
        memcpy(at(h, i), at(h, c), h->size);
        i = c;
    }
    if (h->n)
        memcpy(at(h, i), last, h->size);
}
