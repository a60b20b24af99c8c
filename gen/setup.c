#include "setup.h"

#include <stdlib.h>

dk_workgraph *dk_setup_graph(const dk_gen_options *o, uint64_t unit_positions)
{
    if (o->only)
        return dk_workgraph_build(o->v, o->only, o->nonly, unit_positions);
    size_t n = dk_material_list(o->v, o->pieces, o->per_side, NULL, 0);
    dk_material *mats = malloc((n ? n : 1) * sizeof *mats);
    if (!mats)
        return NULL;
    dk_material_list(o->v, o->pieces, o->per_side, mats, n);
    dk_workgraph *g = dk_workgraph_build(o->v, mats, n, unit_positions);
    free(mats);
    return g;
}

void dk_setup_largest(const dk_workgraph *g, uint64_t *unit, uint64_t *pair)
{
    *unit = *pair = 0;
    for (uint32_t p = 0; p < g->npairs; p++)
        if (g->pairs[p].positions > *pair)
            *pair = g->pairs[p].positions;
    for (uint32_t u = 0; u < g->nunits; u++)
        if (g->units[u].positions > *unit)
            *unit = g->units[u].positions;
}

int dk_setup_reserve(const dk_workgraph *g, unsigned limit, dk_budget *b, char *err, size_t errlen)
{
    uint64_t unit, pair;
    dk_setup_largest(g, &unit, &pair);
    if (unit > b->unit_positions) {
        dk_budget big;
        if (dk_budget_split(b->memory, unit, limit, &big, err, errlen) != 0)
            return -1;
        b->cache_bytes = big.cache_bytes < b->cache_bytes ? big.cache_bytes : b->cache_bytes;
    }
    return dk_budget_reserve_finish(b, pair, limit, err, errlen);
}
