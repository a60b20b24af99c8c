#include "setup.h"

#include <stdio.h>
#include <stdlib.h>

#include "../../rules/errors.h"
#include "../plan/costmodel.h"

/* o's targets: o->only, or a list made here (*owned, to free). NULL when out of memory. */
static const dk_material *targets(const dk_gen_options *o, size_t *n, dk_material **owned)
{
    *owned = NULL;
    if (o->only) {
        *n = o->nonly;
        return o->only;
    }
    *n = dk_material_list(o->v, o->pieces, o->per_side, NULL, 0);
    if ((*owned = malloc((*n ? *n : 1) * sizeof **owned)) != NULL)
        dk_material_list(o->v, o->pieces, o->per_side, *owned, *n);
    return *owned;
}

uint64_t dk_setup_positions(const dk_variant *v, const dk_material *mats, size_t n)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        dk_index ix;
        if (dk_index_init(&ix, v, mats[i]) == 0 && __builtin_add_overflow(total, ix.size, &total))
            return UINT64_MAX;
    }
    return total;
}

uint64_t dk_setup_target_positions(const dk_gen_options *o)
{
    size_t n;
    dk_material *owned;
    const dk_material *mats = targets(o, &n, &owned);
    uint64_t total = mats ? dk_setup_positions(o->v, mats, n) : 0;
    free(owned);
    return total;
}

uint64_t dk_setup_default_unit(uint64_t positions)
{
    uint64_t unit = DK_DEFAULT_UNIT_POSITIONS;
    while (unit < DK_SETUP_UNIT_MAX && positions / unit > DK_SETUP_UNITS_AIM)
        unit *= 2;
    return unit;
}

/* The largest pair (a material and its twin) among o's targets, in positions. */
static uint64_t largest_target_pair(const dk_variant *v, const dk_material *mats, size_t n)
{
    uint64_t most = 0;
    for (size_t i = 0; i < n; i++) {
        dk_index a, b;
        if (dk_index_init(&a, v, mats[i]) != 0 || dk_index_init(&b, v, dk_material_twin(mats[i])) != 0)
            continue;
        uint64_t pair = dk_material_equal(mats[i], dk_material_twin(mats[i])) ? a.size : a.size + b.size;
        most = pair > most ? pair : most;
    }
    return most;
}

/* The finishing bound of a run of `positions` positions on `nranks` ranks with budget b:
 * o->finish_positions, else the least of what a rank's memory holds for finishing
 * (dk_budget_finish_positions) and a quarter of one rank's share of the positions (at least
 * DK_SETUP_FINISH_LEAST). On many ranks the run waits on its longest chain of tasks, and a pair
 * finished whole is a long link of it; cut into parts that any ranks scan and pack, it is short
 * (finishing in parts is about 1.5 times the work, and finishing a tenth of a run's: on few
 * ranks, where the work binds, the bound stays above every pair). Pure. */
static uint64_t finish_positions(const dk_gen_options *o, const dk_budget *b, uint64_t positions, int nranks)
{
    if (o->finish_positions)
        return o->finish_positions;
    uint64_t memory = dk_budget_finish_positions(b, o->rule_limit), share = positions / 4 / (uint64_t)nranks;
    share = share > DK_SETUP_FINISH_LEAST ? share : DK_SETUP_FINISH_LEAST;
    return share < memory ? share : memory;
}

/* The work graph of o's targets: o->only and what they depend on, else every material of
 * o->v up to o->pieces pieces with at most o->per_side a side; units of at most
 * b->unit_positions positions, those of one subslice above o->split_positions (default: what
 * half of b->memory holds, dk_budget_split_positions) marked split; the pairs above `finish`
 * positions finished in parts (dk_workgraph_cut_finishes). Returns NULL when out of memory or a
 * material is invalid. Thread-safe. */
static dk_workgraph *setup_graph(const dk_gen_options *o, const dk_budget *b, uint64_t finish)
{
    size_t n;
    dk_material *owned;
    const dk_material *mats = targets(o, &n, &owned);
    dk_workgraph *g = mats ? dk_workgraph_build(o->v, mats, n, b->unit_positions) : NULL;
    free(owned);
    uint64_t split = o->split_positions ? o->split_positions : dk_budget_split_positions(b->memory, o->rule_limit);
    for (uint32_t u = 0; g && u < g->nunits; u++)
        g->units[u].split = g->units[u].oversize && g->units[u].positions > split;
    if (g && dk_workgraph_cut_finishes(g, finish) != 0) {
        dk_workgraph_free(g);
        return NULL;
    }
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

/* What finishing a pair of `positions` takes, in positions as dk_budget_finish_bytes counts
 * them: the pair, or when it is finished in parts of at most `part` positions (0: not), its
 * largest part (the join copies the parts' blocks and index a chunk at a time). */
static uint64_t finishing_positions(uint64_t positions, uint64_t part)
{
    return part ? part : positions;
}

void dk_setup_largest(const dk_workgraph *g, int nranks, uint64_t *unit, uint64_t *pair)
{
    *unit = *pair = 0;
    for (uint32_t p = 0; p < g->npairs; p++) {
        const dk_wpair *wp = &g->pairs[p];
        uint64_t part = 0;
        for (uint32_t q = wp->first_part; q < wp->first_part + wp->nparts; q++)
            part = g->parts[q].hi - g->parts[q].lo > part ? g->parts[q].hi - g->parts[q].lo : part;
        uint64_t most = finishing_positions(wp->positions, part);
        *pair = most > *pair ? most : *pair;
    }
    *unit = dk_workgraph_largest_held(g, (uint64_t)nranks);
}

/* Whether a rank of memory b->memory fits a unit (or share) of `unit` positions beside the
 * exit cache and the least cache of tables. */
static bool unit_fits(const dk_budget *b, uint64_t unit, unsigned limit)
{
    return dk_budget_least(unit, 0, limit) <= b->memory;
}

/* Makes room in b for g's largest tasks on `nranks` ranks, lowering b's cache: a rank's share
 * of a split unit (which may be above the bound) and the largest finishing task
 * (dk_setup_largest), with a draw rule of `limit` plies. Returns 0, or -1 with one line in err
 * when the memory cannot hold them; a refusal because of a split unit names `hint` (> 0) ranks
 * as what would make its share fit, with b->memory a rank when the memory given (b->given) is
 * less. */
static int reserve(const dk_workgraph *g, int nranks, unsigned limit, dk_budget *b, int hint, char *err,
                   size_t errlen)
{
    uint64_t unit, pair;
    dk_setup_largest(g, nranks, &unit, &pair);
    if (unit > b->unit_positions && !unit_fits(b, unit, limit)) {
        char why[256];
        int n = snprintf(why, sizeof why, "a rank's share of the largest split unit, %llu positions on %d rank%s",
                         (unsigned long long)unit, nranks, nranks > 1 ? "s" : "");
        if (hint && n > 0 && (size_t)n < sizeof why && b->given < b->memory)
            snprintf(why + n, sizeof why - (size_t)n, "; or run on at least %d ranks with %llu MiB a rank", hint,
                     (unsigned long long)(b->memory >> 20));
        else if (hint && n > 0 && (size_t)n < sizeof why)
            snprintf(why + n, sizeof why - (size_t)n, "; or run on at least %d ranks", hint);
        return dk_budget_refuse(err, errlen, dk_budget_least(unit, pair, limit), b->given, why);
    }
    if (unit > b->unit_positions) {
        uint64_t left = b->memory - dk_budget_unit_bytes(unit, limit) - b->exit_cache_bytes;
        b->cache_bytes = left < b->cache_bytes ? left : b->cache_bytes;
    }
    return dk_budget_reserve_finish(b, pair, limit, err, errlen);
}

/* Whether gen accepts g's largest tasks on `nranks` ranks with budget b (reserve would succeed;
 * b is left as it is): the test behind every refusal and behind the rank count a refusal names. */
static bool accepts(const dk_workgraph *g, int nranks, unsigned limit, const dk_budget *b)
{
    dk_budget tried = *b;
    char err[8];
    return reserve(g, nranks, limit, &tried, 0, err, sizeof err) == 0;
}

/* The fewest ranks above nranks (doubling, up to 2^24) that g's tasks fit with budget b
 * (accepts), or 0. */
static int fewest_ranks(const dk_workgraph *g, int nranks, unsigned limit, const dk_budget *b)
{
    for (int r = nranks + 1; r <= (1 << 24); r = r < (1 << 23) ? 2 * r : (1 << 24) + 1)
        if (accepts(g, r, limit, b))
            return r;
    return 0;
}

/* reserve, its refusal naming the fewest ranks accepted. */
static int reserve_hinted(const dk_workgraph *g, int nranks, unsigned limit, dk_budget *b, char *err,
                          size_t errlen)
{
    dk_budget tried = *b;
    if (reserve(g, nranks, limit, &tried, 0, err, errlen) == 0) {
        *b = tried;
        return 0;
    }
    int hint = fewest_ranks(g, nranks, limit, b);
    tried = *b;
    return hint ? reserve(g, nranks, limit, &tried, hint, err, errlen) : -1;
}

/* dk_setup_run with `memory` a rank, the memory given being `given` (less when the run is set up
 * at the floor to find what it needs). */
static dk_workgraph *setup_run(const dk_gen_options *o, uint64_t memory, uint64_t given, int nranks, dk_budget *b,
                               bool *refused, char *err, size_t errlen)
{
    *refused = false;
    size_t n;
    dk_material *owned;
    const dk_material *mats = targets(o, &n, &owned);
    if (!mats) {
        dk_errorf(err, errlen, "out of memory");
        return NULL;
    }
    /* a large run's default bound raised as far as the memory allows (dk_setup_default_unit) */
    uint64_t positions = dk_setup_positions(o->v, mats, n);
    uint64_t unit = o->unit_positions, raised = unit ? 0 : dk_setup_default_unit(positions);
    uint64_t most = dk_budget_split_positions(memory, o->rule_limit);
    while (raised > DK_DEFAULT_UNIT_POSITIONS && raised > most)
        raised /= 2;
    if (raised > DK_DEFAULT_UNIT_POSITIONS)
        unit = raised;
    /* a large run (9 pieces and more on 8x8) is refused before its graph is built (seconds, and
     * gigabytes) when finishing its targets' largest pair (in parts when it is above the
     * finishing bound) does not fit: the line says what that alone needs, a lower bound; a
     * smaller run's line says the least of the whole run */
    bool large = positions / DK_DEFAULT_UNIT_POSITIONS > DK_SETUP_UNITS_AIM;
    uint64_t pair = large ? largest_target_pair(o->v, mats, n) : 0;
    free(owned);
    if (dk_budget_split(memory, given, unit, o->rule_limit, b, err, errlen) != 0) {
        *refused = true;
        uint64_t floor = dk_budget_floor(o->rule_limit);
        bool again = false; /* the floor refused too (only tried below the floor): its line says
                             * how much the run needs, and that a rank got `given` */
        dk_workgraph *g = memory < floor ? setup_run(o, floor, given, nranks, b, &again, err, errlen) : NULL;
        if (g) /* the floor suffices: say so */
            dk_budget_refuse(err, errlen, floor, given, "the least of any run");
        dk_workgraph_free(g);
        return NULL;
    }
    uint64_t finish = finish_positions(o, b, positions, nranks);
    uint64_t part = dk_workgraph_part_step(finish);
    if (pair > finish)
        pair = finishing_positions(pair, part < pair ? part : pair);
    dk_budget early = *b;
    if (large && dk_budget_reserve_finish(&early, pair, o->rule_limit, err, errlen) != 0) {
        *refused = true;
        return NULL;
    }
    dk_workgraph *g = setup_graph(o, b, finish);
    if (!g) {
        dk_errorf(err, errlen, "cannot build the work graph (out of memory)");
        return NULL;
    }
    if (reserve_hinted(g, nranks, o->rule_limit, b, err, errlen) != 0) {
        *refused = true;
        dk_workgraph_free(g);
        return NULL;
    }
    return g;
}

dk_workgraph *dk_setup_run(const dk_gen_options *o, uint64_t memory, int nranks, dk_budget *b, bool *refused,
                           char *err, size_t errlen)
{
    return setup_run(o, memory, memory, nranks, b, refused, err, errlen);
}
