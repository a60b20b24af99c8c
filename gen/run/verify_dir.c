#include "verify_dir.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../query/ctable.h"
#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "../../rules/movegen.h"
#include "../../rules/notation.h"
#include "../check/checktables.h"
#include "progress.h"
#include "../store/stats.h"
#include "../finish/intact.h"
#include "../check/verify.h"

/* The decoded blocks a thread's reader may hold: verification reads each material's blocks in
 * order and its successors' tables at random, a few blocks at a time. */
enum { VERIFY_ROOM = 1 << 30 };

/* One table of the material being checked, read a block at a time in index order. */
typedef struct in_order {
    const dk_ctable *t;
    uint8_t *block;   /* its decoded block number `no` (UINT64_MAX: none) */
    size_t bytes;
    uint64_t no;
} in_order;

/* A thread's reader of the values: the material being checked in index order, its WLD, DTW and
 * (with a rule) DTC tables, which must agree; its successors' values through verification's own
 * reader (checktables.h: decoded blocks found by number, capture positions resolved once). */
typedef struct reader {
    dk_check_tables *values;
    unsigned limit;            /* the draw rule `values` was made for */
    void *dctx;
    const dk_index *ix;        /* the material being checked */
    const dk_index *turned;    /* its twin, where its quiet king moves lead */
    in_order table[3];         /* its WLD, DTW, DTC tables */
} reader;

static void reader_free(reader *r)
{
    dk_check_tables_free(r->values);
    dk_ctable_dctx_free(r->dctx);
    for (int k = 0; k < 3; k++)
        free(r->table[k].block);
}

/* Sets r to check material ix->m (a rule of `limit` plies) of tb, in dir. Returns 0, or -1 with
 * one line in err. */
static int reader_start(reader *r, dk_tablebase *tb, const char *dir, const dk_index *ix, unsigned limit,
                        uint64_t room, char *err, size_t errlen)
{
    if (!r->values || r->limit != limit) {
        dk_check_tables_free(r->values);
        r->values = dk_check_tables_new(dir, ix->v, limit, room, room);
        r->limit = limit;
    }
    if (!r->dctx)
        r->dctx = dk_ctable_dctx_new();
    if (!r->values || !r->dctx)
        return dk_errorf(err, errlen, "out of memory");
    dk_status st;
    r->ix = ix;
    if (!(r->turned = dk_tb_index(tb, dk_material_twin(ix->m), DK_METRIC_DTW, &st)))
        return dk_errorf(err, errlen, "cannot read the tables of its twin: %s", dk_tb_last_error());
    for (int k = 0; k < (limit ? 3 : 2); k++) {
        in_order *o = &r->table[k];
        o->no = UINT64_MAX;
        if (!(o->t = dk_tb_table(tb, ix->m, (dk_metric)(DK_METRIC_WLD + k), &st)))
            return dk_errorf(err, errlen, "cannot read its tables: %s", dk_tb_last_error());
        size_t need = dk_ctable_max_read_block_bytes(o->t);
        if (need > o->bytes) {
            free(o->block);
            o->bytes = 0;
            if (!(o->block = malloc(need)))
                return dk_errorf(err, errlen, "out of memory");
            o->bytes = need;
        }
    }
    return 0;
}

/* The value of position i of table o. */
static int in_order_value(reader *r, in_order *o, uint64_t i, dk_value *out, char *err, size_t errlen)
{
    const uint32_t size = dk_ctable_get_info(o->t)->read_block;
    if (i / size != o->no) {
        char why[512];
        if (dk_ctable_read_block(o->t, r->dctx, i / size, o->block, why, sizeof why) != 0)
            return dk_errorf(err, errlen, "cannot read its tables: %s", why);
        o->no = i / size;
    }
    *out = dk_ctable_decode(o->t, o->block, (uint32_t)(i % size));
    return 0;
}

static int stored_values(void *ctx, uint64_t i, const dk_pos *p, dk_value out[2], char *err, size_t errlen)
{
    reader *r = ctx;
    dk_value wld = 0;
    out[1] = DK_RULE_DRAW;
    if (in_order_value(r, &r->table[0], i, &wld, err, errlen) != 0 ||
        in_order_value(r, &r->table[1], i, &out[0], err, errlen) != 0 ||
        (r->limit && in_order_value(r, &r->table[2], i, &out[1], err, errlen) != 0))
        return -1;
    if (dk_code_of(wld) != dk_code_of(out[0])) {
        char fen[DK_FEN_MAX];
        dk_fen_format(r->ix->v, p, false, fen, sizeof fen);
        return dk_errorf(err, errlen, "the WLD and DTW tables disagree at %s", fen);
    }
    return 0;
}

static int successor_values(void *ctx, dk_material m, const dk_pos *p, dk_value out[2], char *err, size_t errlen)
{
    reader *r = ctx;
    return dk_check_tables_value(r->values, m, p, out, err, errlen);
}

/* A successor by a quiet king move, made only when the reader needs it. */
typedef struct quiet_move {
    const dk_variant *v;
    const dk_pos *p;
    int from, to;
} quiet_move;

static void make_successor(void *ctx, dk_pos *out)
{
    const quiet_move *q = ctx;
    dk_move m = {.from = (uint8_t)q->from, .to = (uint8_t)q->to};
    dk_pos after = dk_apply(q->p, &m);
    *out = dk_pos_flip(q->v, &after);
}

static int quiet_values(void *ctx, uint64_t i, const dk_pos *p, int from, int to, dk_value out[2], char *err,
                        size_t errlen)
{
    reader *r = ctx;
    quiet_move q = {r->ix->v, p, from, to};
    return dk_check_tables_value_at(r->values, r->turned->m, i, make_successor, &q, out, err, errlen);
}

typedef struct job {
    reader *r;
    const dk_index *ix;
    unsigned limit;
    uint64_t lo, hi, bad;
    int rc;
    char err[512];
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    const dk_verify_reads reads = {stored_values, quiet_values, successor_values, j->r->turned, j->r};
    j->rc = dk_verify_subslices(j->ix, j->lo, j->hi, j->limit, &reads, &j->bad, j->err, sizeof j->err);
    return NULL;
}

/* Checks one material with nthreads threads. Returns DK_OK; DK_WRONG_VALUE or DK_FAILED (a
 * value that could not be read) with the line that says so in err. */
static int verify_material(dk_tablebase *tb, reader *readers, const char *dir, const dk_index *ix,
                           unsigned limit, int nthreads, char *err, size_t errlen)
{
    job jobs[64];
    pthread_t th[64];
    int started[64] = {0};
    for (int t = 0; t < nthreads; t++) {
        jobs[t] = (job){&readers[t], ix, limit, ix->men_count * (uint64_t)t / (uint64_t)nthreads,
                        ix->men_count * (uint64_t)(t + 1) / (uint64_t)nthreads, 0, 0, ""};
        jobs[t].rc = reader_start(&readers[t], tb, dir, ix, limit, VERIFY_ROOM / (uint64_t)nthreads, jobs[t].err,
                                  sizeof jobs[t].err);
    }
    for (int t = 0; t < nthreads; t++)
        if (jobs[t].rc != 0)
            return dk_errorf(err, errlen, "%s: %s", ix->v->name, jobs[t].err);
    for (int t = 1; t < nthreads; t++) {
        started[t] = pthread_create(&th[t], NULL, run_job, &jobs[t]) == 0;
        if (!started[t])
            run_job(&jobs[t]);
    }
    run_job(&jobs[0]);
    for (int t = 1; t < nthreads; t++)
        if (started[t])
            pthread_join(th[t], NULL);
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(ix->m, name, sizeof name);
    for (int t = 0; t < nthreads; t++) {
        if (jobs[t].rc < 0)
            return dk_errorf(err, errlen, "%s %s: %s", ix->v->name, name, jobs[t].err);
        if (jobs[t].rc > 0) {
            char fen[DK_FEN_MAX];
            dk_pos p = dk_index_unrank(ix, jobs[t].bad);
            dk_fen_format(ix->v, &p, false, fen, sizeof fen);
            char hint[3072];
            dk_table_repair_hint(dir, ix->v, ix->m, true, hint, sizeof hint);
            return dk_statusf(DK_WRONG_VALUE, err, errlen, "%s %s: wrong value at %s; %s", ix->v->name, name,
                              fen, hint);
        }
    }
    return DK_OK;
}

/* Checks every byte of material m's files and, if it has one, its statistics file against them
 * (intact.h); sets *ix and *limit (the rule of its DTC file, 0 if none). Returns DK_OK, or
 * DK_FAILED with the failure and the command that makes the table again in why. */
static int check_files(dk_tablebase *tb, const char *dir, const dk_variant *v, dk_material m,
                       const dk_index **ix, unsigned *limit, char *why, size_t whylen)
{
    char path[4096], dtc[4096], stats[4096], err[1536] = "", hint[3072];
    for (int k = DK_METRIC_WLD; k <= DK_METRIC_DTW && !err[0]; k++) {
        dk_tb_path(dir, v, m, dk_tb_metric_ext((dk_metric)k), path, sizeof path);
        if (access(path, F_OK) != 0)
            dk_errorf(err, sizeof err, "%.1400s is missing", path);
    }
    dk_tb_path(dir, v, m, dk_tb_metric_ext(DK_METRIC_DTC), dtc, sizeof dtc);
    dk_stats_path(dir, v, m, stats, sizeof stats);
    dk_status st;
    *ix = NULL;
    if (!err[0] && dk_tb_check_files(tb, m, err, sizeof err) == 0 &&
        !(*ix = dk_tb_index(tb, m, DK_METRIC_DTW, &st)))
        dk_errorf(err, sizeof err, "%s", dk_tb_last_error());
    /* the DTC file was opened by dk_tb_check_files: the limit is known; the statistics must
     * name the directory's rule, and with one a DTC file */
    *limit = access(dtc, F_OK) == 0 ? dk_tb_rule_limit(tb) : 0;
    if (*ix && (access(stats, F_OK) != 0 ||
                dk_table_intact(dir, *ix, dk_tb_rule_limit(tb), err, sizeof err) == DK_OK))
        return DK_OK;
    dk_table_repair_hint(dir, v, m, false, hint, sizeof hint);
    return dk_errorf(why, whylen, "%s; %s", err, hint);
}

/* The sizes and CRC-32C of table m's files, opened and checked by check_files. */
static void table_files(dk_tablebase *tb, dk_material m, unsigned limit, dk_table_files *f)
{
    memset(f, 0, sizeof *f);
    for (int k = 0; k < (limit ? 3 : 2); k++) {
        dk_status st;
        const dk_ctable *t = dk_tb_table(tb, m, (dk_metric)(DK_METRIC_WLD + k), &st);
        if (t) {
            f->size[k] = dk_ctable_get_info(t)->file_size;
            f->crc[k] = dk_ctable_get_info(t)->file_crc;
        }
    }
}

int dk_verify_dir(const char *dir, const dk_variant *v, int threads, dk_verify_journal *journal, FILE *out,
                  dk_verify_failure_fn *failure, void *ctx, dk_verify_summary *sum)
{
    char why[8192];
    memset(sum, 0, sizeof *sum);
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    /* libdamka opens and checks the files; the values are read by the threads' readers */
    dk_tablebase *tb = dk_tb_open(dir, v, &(dk_tb_options){1});
    size_t n = dk_material_list(v, DK_TB_MAX_PIECES, 0, NULL, 0);
    dk_material *mats = malloc(n * sizeof *mats);
    reader *readers = calloc((size_t)threads, sizeof *readers);
    if (!tb || !mats || !readers) {
        dk_tb_close(tb);
        free(mats);
        free(readers);
        failure(ctx, "out of memory");
        sum->failed = 1;
        return DK_FAILED;
    }
    dk_material_list(v, DK_TB_MAX_PIECES, 0, mats, n);
    for (size_t i = 0; i < n; i++) {
        char wld[4096], dtw[4096], stats[4096], name[DK_MATERIAL_NAME_MAX];
        dk_tb_path(dir, v, mats[i], "wld", wld, sizeof wld);
        dk_tb_path(dir, v, mats[i], "dtw", dtw, sizeof dtw);
        dk_stats_path(dir, v, mats[i], stats, sizeof stats);
        if (access(wld, F_OK) != 0 && access(dtw, F_OK) != 0 && access(stats, F_OK) != 0)
            continue;
        dk_material_name(mats[i], name, sizeof name);
        sum->tables++;
        double t0 = dk_now();
        const dk_index *ix;
        unsigned limit;
        if (check_files(tb, dir, v, mats[i], &ix, &limit, why, sizeof why) != DK_OK) {
            failure(ctx, why);
            sum->failed++;
            continue;
        }
        dk_table_files files;
        table_files(tb, mats[i], limit, &files);
        bool before = journal && dk_verify_journal_passed(journal, v, mats[i], &files);
        bool bad = !before && verify_material(tb, readers, dir, ix, limit, threads, why, sizeof why) != DK_OK;
        if (bad)
            failure(ctx, why);
        if (!bad && !before && journal && dk_verify_journal_add(journal, v, mats[i], &files, why, sizeof why) != DK_OK) {
            char line[sizeof why + 128];
            snprintf(line, sizeof line, "%s; the tables after %s are checked but not recorded", why, name);
            failure(ctx, line);
            sum->journal_failed = true;
            journal = NULL;
        }
        sum->failed += bad;
        sum->passed_before += before;
        sum->positions += ix->size;
        if (out)
            fprintf(out, "%s %-13s %12llu positions  %s%s  %.2f s\n", v->name, name,
                    (unsigned long long)ix->size, limit ? "wld dtw dtc " : "wld dtw ",
                    bad ? "FAILED" : before ? "ok (passed before: journal)" : "ok", dk_now() - t0);
    }
    for (int t = 0; t < threads; t++)
        reader_free(&readers[t]);
    free(readers);
    dk_tb_close(tb);
    free(mats);
    return sum->failed || sum->journal_failed || !sum->tables ? DK_FAILED : DK_OK;
}
