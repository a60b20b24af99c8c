#include "worker.h"

#include "pairreader.h"

#include "../store/bigmem.h"
#include "../store/testhooks.h"
#include "../store/valuefile.h"

uint64_t dk_worker_check_room(const dk_worker *w, bool solving, uint64_t positions)
{
    uint64_t tiny;
    if (dk_hook_table_bytes(&tiny))
        return tiny;
    return solving ? dk_budget_check_room(&w->budget, positions, w->limit)
                   : dk_budget_check_cache(w->budget.cache_bytes);
}

int dk_worker_init(dk_worker *w, const dk_workgraph *g, const char *dir, bool keep_work,
                   bool dictionary, unsigned limit, const dk_budget *b)
{
    /* the solver's cache of tables: three quarters of the cache, the check's reader the rest
     * (more while a unit is solved: dk_worker_check_room); the units above: the exit cache, one pool for
     * the solver's unit files and the check's, which a pair's finishing borrows */
    uint64_t solver_tables = b->cache_bytes - dk_budget_check_cache(b->cache_bytes);
    uint64_t tiny;
    if (dk_hook_table_bytes(&tiny))
        solver_tables = tiny;
    *w = (dk_worker){.g = g, .dir = dir, .keep_work = keep_work, .dictionary = dictionary,
                     .limit = limit, .budget = *b};
    w->finished = dk_finished_new(dir, g->v, limit, solver_tables);
    w->gcache = dk_groups_cache_new(g);
    w->above = dk_block_pool_new(b->exit_cache_bytes, DK_VFILE_SLOT_BYTES);
    if (w->finished && w->gcache && w->above &&
        (w->check = dk_exit_check_new(g, w->gcache, dir, limit, dk_worker_check_room(w, false, 0), dk_worker_check_room(w, true, 0),
                                   w->above)))
        w->solver = dk_solver_new(g, w->finished, w->check, w->gcache, dir, limit, w->above);
    if (!w->solver || !w->check || !w->gcache) {
        dk_worker_free(w);
        return -1;
    }
    return 0;
}

void dk_worker_idle(dk_worker *w)
{
    dk_solver_idle(w->solver);
    dk_exit_check_idle(w->check);
    /* both have given their blocks back; the part a pair's finishing borrows stays mapped (its
     * pages filled again without a fault each, counted in the finishing's bytes) */
    dk_block_pool_idle(w->above, DK_PAIR_READER_POOL_BYTES);
    dk_exit_check_set_room(w->check, dk_worker_check_room(w, false, 0));
    dk_big_free(w->values, w->values_cap * sizeof *w->values);
    w->values = NULL;
    w->values_cap = 0;
}

dk_ctable_params dk_worker_table_params(const dk_worker *w, dk_material m, dk_metric metric)
{
    return (dk_ctable_params){(uint8_t)w->g->v->id, {m.wm, m.wk, m.bm, m.bk}, metric, 0, 0, w->dictionary,
                              metric == DK_METRIC_DTC ? w->limit : 0, w->limit ? 2 : 1, 0};
}

void dk_worker_free(dk_worker *w)
{
    dk_big_free(w->values, w->values_cap * sizeof *w->values);
    w->values = NULL;
    w->values_cap = 0;
    dk_solver_free(w->solver);
    dk_exit_check_free(w->check);
    dk_block_pool_free(w->above);
    dk_finished_free(w->finished);
    dk_groups_cache_free(w->gcache);
    w->solver = NULL;
    w->check = NULL;
    w->finished = NULL;
    w->gcache = NULL;
    w->above = NULL;
}

