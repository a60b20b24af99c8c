#include "setup.h"

#include <stdlib.h>

#include "../rules/errors.h"
#include "forecast.h"

dk_workgraph *dk_setup_graph(const dk_gen_options *o, const dk_budget *b)
{
    dk_workgraph *g = NULL;
    if (o->only) {
        g = dk_workgraph_build(o->v, o->only, o->nonly, b->unit_positions);
    } else {
        size_t n = dk_material_list(o->v, o->pieces, o->per_side, NULL, 0);
        dk_material *mats = malloc((n ? n : 1) * sizeof *mats);
        if (!mats)
            return NULL;
        dk_material_list(o->v, o->pieces, o->per_side, mats, n);
        g = dk_workgraph_build(o->v, mats, n, b->unit_positions);
        free(mats);
    }
    uint64_t split = o->split_positions ? o->split_positions : dk_budget_split_positions(b->memory, o->rule_limit);
    for (uint32_t u = 0; g && u < g->nunits; u++)
        g->units[u].split = g->units[u].oversize && g->units[u].positions > split;
    /* the longest chains of work first, by the forecast's costs */
    dk_forecast_model m = g ? dk_forecast_default_model(g, o->rule_limit, 0, 0) : (dk_forecast_model){0};
    if (g && dk_forecast_prioritize(g, &m) != 0) {
        dk_workgraph_free(g);
        return NULL;
    }
    if (g)
        dk_workgraph_reset(g, NULL, NULL);
    return g;
}

uint64_t dk_setup_held(const dk_workgraph *g, uint32_t u, int nranks)
{
    const dk_unit *un = &g->units[u];
    uint64_t S = g->max_positions;
    if (!un->split || un->positions <= S)
        return un->positions;
    uint64_t parts = (un->positions + S - 1) / S, most = (parts + (uint64_t)nranks - 1) / (uint64_t)nranks;
    return most * S < un->positions ? most * S : un->positions;
}

void dk_setup_largest(const dk_workgraph *g, int nranks, uint64_t *unit, uint64_t *pair)
{
    *unit = *pair = 0;
    for (uint32_t p = 0; p < g->npairs; p++)
        if (g->pairs[p].positions > *pair)
            *pair = g->pairs[p].positions;
    for (uint32_t u = 0; u < g->nunits; u++) {
        uint64_t held = dk_setup_held(g, u, nranks);
        if (held > *unit)
            *unit = held;
    }
}

int dk_setup_reserve(const dk_workgraph *g, int nranks, unsigned limit, dk_budget *b, char *err,
                     size_t errlen)
{
    uint64_t unit, pair;
    dk_setup_largest(g, nranks, &unit, &pair);
    if (unit > b->unit_positions) {
        dk_budget big;
        char why[512];
        if (dk_budget_split(b->memory, unit, limit, &big, why, sizeof why) != 0) {
            /* the fewest ranks whose share of every split unit fits */
            int fits = 0;
            for (int r = nranks + 1; r <= (1 << 24) && !fits; r = r < (1 << 23) ? 2 * r : (1 << 24) + 1) {
                uint64_t u2, p2;
                dk_setup_largest(g, r, &u2, &p2);
                if (u2 <= b->unit_positions || dk_budget_split(b->memory, u2, limit, &big, why, sizeof why) == 0)
                    fits = r;
            }
            if (!fits)
                return dk_errorf(err, errlen, "a rank's share of the largest split unit (%llu positions on %d "
                                 "rank%s) does not fit: give more memory", (unsigned long long)unit, nranks,
                                 nranks > 1 ? "s" : "");
            return dk_errorf(err, errlen, "a rank's share of the largest split unit (%llu positions on %d rank%s) "
                             "needs %llu MiB: give more memory or run on at least %d ranks",
                             (unsigned long long)unit, nranks, nranks > 1 ? "s" : "",
                             (unsigned long long)((dk_budget_unit_bytes(unit, limit) + b->exit_cache_bytes) >> 20), fits);
        }
        b->cache_bytes = big.cache_bytes < b->cache_bytes ? big.cache_bytes : b->cache_bytes;
    }
    return dk_budget_reserve_finish(b, pair, limit, err, errlen);
}
