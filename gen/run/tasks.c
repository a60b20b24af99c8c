#include "tasks.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "../../rules/notation.h"
#include "../finish/pairreader.h"
#include "../store/bigmem.h"
#include "../finish/ctable_write.h"
#include "../finish/parttasks.h"
#include "../finish/intact.h"
#include "../store/stats.h"
#include "../store/testhooks.h"
#include "../store/unitfile.h"
#include "../store/valuefile.h"

/* The worker's values buffer for n values, kept from one unit to the next; NULL when out of
 * memory. */
static dk_value *worker_values(dk_worker *w, uint64_t n)
{
    if (n > w->values_cap) {
        dk_big_free(w->values, w->values_cap * sizeof *w->values);
        w->values = dk_big_alloc((size_t)n * sizeof *w->values);
        w->values_cap = w->values ? n : 0;
    }
    return w->values;
}

/* The message of a failed check: the material and the failing position as FEN. */
static int verify_failed(const dk_worker *w, const dk_groups *ug, uint64_t group, int member,
                         uint64_t kings, char *err, size_t errlen)
{
    const dk_index *ix = member ? &ug->pair->ix_twin : &ug->pair->ix;
    char name[DK_MATERIAL_NAME_MAX], fen[DK_FEN_MAX];
    dk_material_name(ix->m, name, sizeof name);
    dk_pos bp = dk_index_unrank_split(ix, ug->groups[group].men[member], kings);
    dk_fen_format(w->g->v, &bp, false, fen, sizeof fen);
    return dk_errorf(err, errlen, "verification failed: material %s, position %s", name, fen);
}

/* The independent forward check of a solved unit. */
static int verify_unit(dk_worker *w, const dk_groups *ug, const dk_value *values, char *err,
                       size_t errlen)
{
    uint64_t group, kings;
    int member;
    char verr[512];
    int rc = dk_verify_unit(w->solver, ug, values, &group, &member, &kings, verr, sizeof verr);
    if (rc == DK_OK)
        return DK_OK;
    if (rc == DK_FAILED) {
        char name[DK_MATERIAL_NAME_MAX];
        dk_material_name(ug->pair->m, name, sizeof name);
        return dk_errorf(err, errlen, "verification of %s could not read a value: %s", name, verr);
    }
    return verify_failed(w, ug, group, member, kings, err, errlen);
}

int dk_task_unit(dk_worker *w, uint32_t u, char *err, size_t errlen)
{
    dk_groups ug;
    if (dk_groups_build(&ug, w->gcache, u) != 0)
        return dk_errorf(err, errlen, "out of memory");
    unsigned stride = w->limit ? 2 : 1;
    dk_value *values = worker_values(w, (ug.npositions ? ug.npositions : 1) * stride);
    int rc = DK_FAILED;
    if (!values) {
        dk_errorf(err, errlen, "out of memory for a unit of %llu positions", (unsigned long long)ug.npositions);
    } else {
        dk_exit_check_set_room(w->check, dk_worker_check_room(w, true, ug.npositions));
        int kind;
        if (dk_hook_corrupt_exit(u, false, true, &kind))
            dk_solver_test_corrupt_exit(w->solver, ug.npositions / 4, (dk_exit_kind)kind);
        if (dk_solve_unit(w->solver, &ug, values, err, errlen) == 0 &&
            (dk_hook_corrupt_values(u, false, values, ug.npositions, stride), verify_unit(w, &ug, values, err, errlen) == 0))
            rc = dk_unitfile_save(&ug, w->dir, 0, w->limit, values, err, errlen);
    }
    dk_solver_test_corrupt_exit(w->solver, UINT64_MAX, DK_EXIT_ANY);
    dk_groups_free(&ug);
    return rc;
}

/* Whether every rank of comm succeeded (rc DK_OK on each); then DK_OK, else rc if this rank
 * failed itself, DK_PEER_FAILED with a line saying so if another rank did. */
static int all_succeeded(const dk_split_comm *comm, int rc, char *err, size_t errlen)
{
    int64_t all = rc ? -1 : 0;
    comm->min(comm->ctx, &all, 1);
    if (all == 0)
        return DK_OK;
    return rc ? rc : dk_statusf(DK_PEER_FAILED, err, errlen, "another rank sharing the unit failed");
}

int dk_task_split(dk_worker *w, uint32_t u, const dk_split_comm *comm, char *err, size_t errlen)
{
    dk_groups ug;
    int built = dk_groups_build(&ug, w->gcache, u) == 0 ? 0 : dk_errorf(err, errlen, "out of memory");
    if (all_succeeded(comm, built, err, errlen) != 0) {
        dk_groups_free(&ug);
        return built ? DK_FAILED : DK_PEER_FAILED;
    }
    dk_hook_split_pause();
    unsigned stride = w->limit ? 2 : 1;
    uint64_t held = dk_split_positions(&ug, comm->rank, comm->nranks);
    dk_value *values = worker_values(w, (held ? held : 1) * stride);
    char name[DK_MATERIAL_NAME_MAX], serr[512];
    dk_material_name(ug.pair->m, name, sizeof name);
    int rc = values ? DK_OK
                    : dk_errorf(err, errlen, "out of memory for %llu positions of a split unit of %s",
                                (unsigned long long)held, name);
    if (values)
        dk_exit_check_set_room(w->check, dk_worker_check_room(w, true, held));
    if (all_succeeded(comm, rc, err, errlen) == 0) {
        bool bad_here;
        int member;
        uint64_t kings;
        int kind;
        if (dk_hook_corrupt_exit(u, true, comm->rank == comm->nranks - 1, &kind))
            dk_solver_test_corrupt_exit(w->solver, held / 4, (dk_exit_kind)kind);
        rc = dk_solve_split(w->solver, &ug, comm, values, serr, sizeof serr);
        dk_solver_test_corrupt_exit(w->solver, UINT64_MAX, DK_EXIT_ANY);
        if (rc != 0) {
            rc = dk_statusf(rc == DK_PEER_FAILED ? DK_PEER_FAILED : DK_FAILED, err, errlen,
                            "solving a split unit of %s: %s", name, serr);
        } else {
            dk_hook_corrupt_values(u, true, values, held, stride);
            rc = dk_verify_split(w->solver, &ug, comm, values, &bad_here, &member, &kings, serr, sizeof serr);
            if (rc == DK_WRONG_VALUE && bad_here)
                rc = verify_failed(w, &ug, 0, member, kings, err, errlen);
            else if (rc == DK_WRONG_VALUE) /* the rank that found it reports it */
                rc = dk_statusf(DK_PEER_FAILED, err, errlen,
                                "verification failed on another rank sharing a unit of %s", name);
            else if (rc == DK_FAILED)
                dk_errorf(err, errlen, "verification of %s: %s", name, serr);
        }
        /* then each rank writes the parts it holds */
        for (uint64_t q = (uint64_t)comm->rank, at = 0; rc == 0 && q < ug.nparts; q += (uint64_t)comm->nranks) {
            rc = dk_unitfile_save(&ug, w->dir, q, w->limit, values + at * stride, err, errlen);
            at += dk_unitfile_part_positions(&ug, q);
        }
        rc = all_succeeded(comm, rc, err, errlen);
    } else {
        rc = values ? DK_PEER_FAILED : DK_FAILED;
    }
    /* a split unit's share and exchange buffers may be far larger than a unit's: given back */
    dk_worker_idle(w);
    dk_groups_free(&ug);
    return rc;
}

static void remove_units(dk_worker *w, uint32_t pi)
{
    const dk_wpair *p = &w->g->pairs[pi];
    for (uint32_t u = w->g->layers[p->first_layer].first_unit;
         u < w->g->nunits && w->g->units[u].pair == pi; u++)
        dk_unitfile_remove(w->gcache, w->dir, u);
}

/* Writes one verified material, member `member` of the pair r reads (its values in table order,
 * read from the pair's units, and its must-capture map from their flags): first the values
 * once more, in order, into memory when they fit in `hold` bytes, else to
 * work/<variant>-<material>.raw (compressed), which the statistics and each compressed table
 * then read sequentially instead of gathering them from the units again; then the compressed
 * WLD, DTW and DTC tables and the statistics (last, as the mark of a finished table). The .raw
 * file is always written with keep_work, and stays. */
static int write_tables(dk_worker *w, const dk_index *ix, dk_pair_reader *r, int member,
                        uint64_t hold, char *err, size_t errlen)
{
    const dk_value_source *units = dk_pair_reader_member(r, member);
    const dk_variant *v = w->g->v;
    dk_material m = ix->m;
    unsigned stride = w->limit ? 2 : 1;
    char path[2048], raw[2048], work[2048];
    snprintf(work, sizeof work, "%s/work", w->dir);
    dk_tb_path(work, v, m, "raw", raw, sizeof raw);
    bool fits = !w->keep_work && ix->size <= hold / (stride * sizeof(dk_value));
    const size_t held_bytes = fits ? (size_t)ix->size * stride * sizeof(dk_value) : 0;
    dk_value *held = dk_big_alloc(held_bytes);
    dk_vfile *f = NULL;
    dk_value_source in_order;
    if (held) {
        if (units->read(units, 0, (size_t)ix->size, held, err, errlen) != 0) {
            dk_big_free(held, held_bytes);
            return -1;
        }
        in_order = dk_value_array(held, stride, 0);
    } else {
        dk_vfile_info info = {DK_FILE_TABLE, (uint8_t)v->id, {m.wm, m.wk, m.bm, m.bk}, 0, 0, ix->size, 0,
                              (uint8_t)stride, w->limit, false};
        if (dk_vfile_save_from(raw, &info, units, err, errlen) != 0 ||
            !(f = dk_vfile_open(raw, false, NULL, err, errlen)))
            return -1;
        in_order = dk_vfile_source(f);
    }
    const uint8_t *must_capture = dk_pair_reader_captures(r, member); /* complete: all read */
    const dk_value_source *values = &in_order;
    int rc = -1;
    dk_stats st;
    if (dk_stats_compute(&st, ix, values, w->limit, err, errlen) != 0)
        goto out;
    for (int k = 0; k < (w->limit ? 3 : 2); k++) {
        dk_metric metric = (dk_metric)(k + 1);
        dk_ctable_params cp = dk_worker_table_params(w, m, metric);
        dk_ctable_info ci;
        dk_value_source src = *values;
        src.offset = metric == DK_METRIC_DTC; /* the rule value follows the DTW value */
        dk_tb_path(w->dir, v, m, dk_tb_metric_ext(metric), path, sizeof path);
        if (dk_ctable_write_from(path, &cp, &src, must_capture, ix->size, &ci, err, errlen) != 0) {
            dk_stats_free(&st);
            goto out;
        }
        st.file_size[k] = ci.file_size;
        st.file_crc[k] = ci.file_crc;
    }
    dk_stats_path(w->dir, v, m, path, sizeof path);
    rc = dk_stats_write(&st, path, err, errlen);
    dk_stats_free(&st);
out:
    dk_big_free(held, held_bytes);
    if (f) {
        dk_vfile_close(f);
        if (!w->keep_work)
            unlink(raw);
    }
    return rc;
}

int dk_task_finish_pair(dk_worker *w, uint32_t pi, char *err, size_t errlen)
{
    const dk_wpair *p = &w->g->pairs[pi];
    if (p->nparts) {
        int rc = dk_task_join_parts(w, pi, err, errlen);
        if (rc == 0 && !w->keep_work)
            remove_units(w, pi);
        return rc;
    }
    dk_worker_idle(w);
    dk_pair_reader *r = dk_pair_reader_new(w->g, w->gcache, w->above, w->dir, pi, w->limit, err, errlen);
    if (!r)
        return -1;
    int rc = 0;
    uint64_t hold = dk_budget_finish_hold(&w->budget, p->positions, w->limit);
    /* a member finished before the run that finishes the pair was killed stays as it is */
    for (int member = 0; rc == 0 && member < (p->self_twin ? 1 : 2); member++) {
        const dk_index *ix = member ? &p->ix_twin : &p->ix;
        if (!dk_material_finished(w->g, w->dir, ix, w->limit))
            rc = write_tables(w, ix, r, member, hold, err, errlen);
    }
    dk_pair_reader_free(r);
    if (rc == 0 && !w->keep_work)
        remove_units(w, pi);
    return rc;
}
