/* A pair's finishing cut into parts (workgraph.h, dk_workgraph_cut_finishes): ranges of whole
 * blocks of one member's tables, each within the finishing bound. */
#include "../sched/workgraph.h"

#include <stdlib.h>

/* The parts of a member of `size` positions, each of at most `step` positions. */
static uint64_t parts_of(uint64_t size, uint64_t step) { return (size + step - 1) / step; }

uint64_t dk_workgraph_part_step(uint64_t finish_positions)
{
    uint64_t step = finish_positions / DK_FPART_ALIGN * DK_FPART_ALIGN;
    return step ? step : DK_FPART_ALIGN;
}

int dk_workgraph_cut_finishes(dk_workgraph *g, uint64_t finish_positions)
{
    uint64_t step = dk_workgraph_part_step(finish_positions);
    uint64_t n = 0;
    for (uint32_t p = 0; finish_positions && p < g->npairs; p++)
        if (g->pairs[p].positions > finish_positions)
            n += parts_of(g->pairs[p].ix.size, step) + (g->pairs[p].self_twin ? 0 : parts_of(g->pairs[p].ix_twin.size, step));
    if (n > UINT32_MAX / 2)
        return -1;
    size_t tasks = (size_t)g->nunits + g->npairs + 2 * (size_t)n + 1;
    dk_fpart *parts = malloc((n ? n : 1) * sizeof *parts);
    uint8_t *state = malloc(2 * n + 1);
    double *prio = calloc(2 * n + 1, sizeof *prio);
    dk_wg_ready *ready = realloc(g->ready.data, tasks * sizeof *ready);
    if (ready)
        g->ready.data = ready;
    if (!parts || !state || !prio || !ready) {
        free(parts);
        free(state);
        free(prio);
        return -1;
    }
    uint32_t q = 0;
    for (uint32_t p = 0; p < g->npairs; p++) {
        dk_wpair *pair = &g->pairs[p];
        pair->first_part = q;
        for (int member = 0; finish_positions && pair->positions > finish_positions && member < (pair->self_twin ? 1 : 2); member++) {
            uint64_t size = member ? pair->ix_twin.size : pair->ix.size;
            for (uint64_t lo = 0; lo < size; lo += step)
                parts[q++] = (dk_fpart){p, member, lo, size - lo < step ? size : lo + step};
        }
        pair->nparts = q - pair->first_part;
    }
    free(g->parts);
    free(g->part_state);
    free(g->part_prio);
    g->parts = parts;
    g->part_state = state;
    g->part_prio = prio;
    g->nparts = q;
    g->finish_positions = finish_positions;
    for (uint32_t u = 0; u < g->nunits; u++)
        g->unit_prio[u] = 0;
    for (uint32_t p = 0; p < g->npairs; p++)
        g->finish_prio[p] = 0;
    dk_workgraph_reset(g, NULL, NULL);
    return 0;
}
