#include "verify_dir.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../query/tablebase.h"
#include "../rules/errors.h"
#include "../rules/notation.h"
#include "progress.h"
#include "stats.h"
#include "tablecheck.h"
#include "verify.h"

/* Values come from the compressed DTW tables (and DTC tables, with a draw rule); for the
 * material being checked the WLD table is read too and must agree. */
typedef struct source {
    dk_tablebase *tb;
    dk_material m;
    unsigned limit;
} source;

static int tb_value(void *ctx, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                    size_t errlen)
{
    const source *src = ctx;
    dk_tb_status st = dk_tb_probe_normal(src->tb, m, p, DK_METRIC_DTW, &out[0]);
    dk_value wld;
    if (st == DK_TB_OK && src->limit)
        st = dk_tb_probe_normal(src->tb, m, p, DK_METRIC_DTC, &out[1]);
    if (st == DK_TB_OK && dk_material_equal(m, src->m))
        st = dk_tb_probe_normal(src->tb, m, p, DK_METRIC_WLD, &wld);
    if (st == DK_TB_MISSING)
        return dk_errorf(err, errlen, "missing table %s", dk_tb_last_error());
    if (st != DK_TB_OK) /* the message names the file, and whether it is damaged or unreadable */
        return dk_errorf(err, errlen, "cannot read its tables: %s", dk_tb_last_error());
    if (dk_material_equal(m, src->m) && dk_code_of(wld) != dk_code_of(out[0])) {
        char fen[DK_FEN_MAX];
        dk_fen_format(dk_tb_variant(src->tb), p, false, fen, sizeof fen);
        return dk_errorf(err, errlen, "the WLD and DTW tables disagree at %s", fen);
    }
    return 0;
}

typedef struct job {
    source *src;
    const dk_index *ix;
    uint64_t lo, hi, bad;
    int rc;
    char err[512];
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    j->rc = dk_verify_subslices(j->ix, j->lo, j->hi, j->src->limit, tb_value, j->src, &j->bad,
                                j->err, sizeof j->err);
    return NULL;
}

/* Checks one material with nthreads threads. Returns DK_OK; DK_WRONG_VALUE or DK_FAILED (a
 * value that could not be read) with the line that says so in err. */
static int verify_material(dk_tablebase *tb, const char *dir, const dk_index *ix, unsigned limit,
                           int nthreads, char *err, size_t errlen)
{
    source src = {tb, ix->m, limit};
    job jobs[64];
    pthread_t th[64];
    int started[64] = {0};
    for (int t = 0; t < nthreads; t++) {
        jobs[t] = (job){&src, ix, ix->men_count * (uint64_t)t / (uint64_t)nthreads,
                        ix->men_count * (uint64_t)(t + 1) / (uint64_t)nthreads, 0, 0, ""};
        started[t] = t > 0 && pthread_create(&th[t], NULL, run_job, &jobs[t]) == 0;
        if (t > 0 && !started[t])
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
 * (tablecheck.h); sets *ix and *limit (the rule of its DTC file, 0 if none). Returns DK_OK, or
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
    dk_tb_status st;
    bool damaged;
    *ix = NULL;
    if (!err[0] && dk_tb_check_files(tb, m, err, sizeof err) == 0 &&
        !(*ix = dk_tb_index(tb, m, DK_METRIC_DTW, &st)))
        dk_errorf(err, sizeof err, "%s", dk_tb_last_error());
    /* the DTC file was opened by dk_tb_check_files: the limit is known; the statistics must
     * name the directory's rule, and with one a DTC file */
    *limit = access(dtc, F_OK) == 0 ? dk_tb_rule_limit(tb) : 0;
    if (*ix && (access(stats, F_OK) != 0 ||
                dk_table_check(dir, *ix, dk_tb_rule_limit(tb), &damaged, err, sizeof err) == 0))
        return DK_OK;
    dk_table_repair_hint(dir, v, m, false, hint, sizeof hint);
    return dk_errorf(why, whylen, "%s; %s", err, hint);
}

int dk_verify_dir(const char *dir, const dk_variant *v, int threads, FILE *out,
                  dk_verify_failure_fn *failure, void *ctx, dk_verify_summary *sum)
{
    char why[8192];
    memset(sum, 0, sizeof *sum);
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    dk_tb_options o = {(size_t)512 << 20};
    dk_tablebase *tb = dk_tb_open(dir, v, &o);
    size_t n = dk_material_list(v, DK_TB_MAX_PIECES, 0, NULL, 0);
    dk_material *mats = malloc(n * sizeof *mats);
    if (!tb || !mats) {
        dk_tb_close(tb);
        free(mats);
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
        bool bad = verify_material(tb, dir, ix, limit, threads, why, sizeof why) != DK_OK;
        if (bad)
            failure(ctx, why);
        sum->failed += bad;
        sum->positions += ix->size;
        if (out)
            fprintf(out, "%s %-13s %12llu positions  %s%s  %.2f s\n", v->name, name,
                    (unsigned long long)ix->size, limit ? "wld dtw dtc " : "wld dtw ",
                    bad ? "FAILED" : "ok", dk_now() - t0);
    }
    dk_tb_close(tb);
    free(mats);
    return sum->failed || !sum->tables ? DK_FAILED : DK_OK;
}
