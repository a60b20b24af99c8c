#include "intact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../query/ctable.h"
#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "../store/stats.h"

/* Checks one table file against what the statistics st record for it (file k: metric k + 1). */
static int check_file(const char *dir, const dk_index *ix, const dk_stats *st, int k, char *err, size_t errlen)
{
    char path[4096];
    dk_metric metric = (dk_metric)(k + 1);
    dk_tb_path(dir, ix->v, ix->m, dk_tb_metric_ext(metric), path, sizeof path);
    dk_status why;
    dk_ctable *t = dk_ctable_open_why(path, &why, err, errlen);
    if (!t) /* a table file gone while its statistics say it is finished: the set is damaged */
        return why == DK_MISSING ? DK_DAMAGED : why;
    const dk_ctable_info *in = dk_ctable_get_info(t);
    const uint8_t want[4] = {ix->m.wm, ix->m.wk, ix->m.bm, ix->m.bk};
    int rc;
    if (in->metric != metric || in->variant != ix->v->id || memcmp(in->material, want, 4) != 0 ||
        in->count != ix->size)
        rc = dk_statusf(DK_DAMAGED, err, errlen, "%.900s is damaged: its header does not match its name", path);
    else if (in->file_size != st->file_size[k] || in->file_crc != st->file_crc[k])
        rc = dk_statusf(DK_DAMAGED, err, errlen, "%.900s is not the file its statistics record (its size or CRC "
                        "differs)", path);
    else
        rc = dk_ctable_check_crc(t, err, errlen);
    dk_ctable_close(t);
    return rc;
}

int dk_table_intact(const char *dir, const dk_index *ix, unsigned limit, char *err, size_t errlen)
{
    char path[4096];
    dk_stats st;
    dk_stats_path(dir, ix->v, ix->m, path, sizeof path);
    int rc = dk_stats_read(&st, path, err, errlen);
    if (rc != DK_OK)
        return rc;
    dk_stats_free(&st);
    if (!dk_material_equal(st.m, ix->m))
        return dk_statusf(DK_DAMAGED, err, errlen, "%.900s is damaged: it holds another material's statistics", path);
    if (st.limit != limit)
        return dk_statusf(DK_DAMAGED, err, errlen, "%.900s follows a draw rule of %u plies, not %u", path, st.limit,
                          limit);
    for (int k = 0; k < (limit ? 3 : 2); k++)
        if ((rc = check_file(dir, ix, &st, k, err, errlen)) != DK_OK)
            return rc;
    return DK_OK;
}

/* The draw rule of dir's tables in plies: that of the first statistics file that loads (a
 * directory holds one rule), else the variant's default. */
static unsigned dir_rule(const char *dir, const dk_variant *v)
{
    unsigned limit = 2 * (unsigned)v->draw_rule_moves;
    size_t n = dk_material_list(v, DK_TB_MAX_PIECES, 0, NULL, 0);
    dk_material *ms = malloc(n * sizeof *ms);
    if (!ms)
        return limit;
    dk_material_list(v, DK_TB_MAX_PIECES, 0, ms, n);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        dk_stats st;
        dk_stats_path(dir, v, ms[i], path, sizeof path);
        if (access(path, F_OK) == 0 && dk_stats_load(&st, path) == 0) {
            dk_stats_free(&st);
            limit = st.limit;
            break;
        }
    }
    free(ms);
    return limit;
}

void dk_table_repair_hint(const char *dir, const dk_variant *v, dk_material m, bool remove_stats,
                          char *buf, size_t len)
{
    char name[DK_MATERIAL_NAME_MAX], stats[4096];
    dk_material_name(m, name, sizeof name);
    dk_stats_path(dir, v, m, stats, sizeof stats);
    snprintf(buf, len, "%s%.1000s%srun damka gen --variant %s --materials %s --draw-rule %u --out %.1000s "
             "to make it again", remove_stats ? "remove " : "", remove_stats ? stats : "",
             remove_stats ? ", then " : "", v->name, name, dir_rule(dir, v) / 2, dir);
}

bool dk_material_finished(const dk_workgraph *g, const char *dir, const dk_index *ix, unsigned limit)
{
    char path[2048], err[256];
    dk_stats st;
    dk_stats_path(dir, g->v, ix->m, path, sizeof path);
    if (dk_stats_load(&st, path) != 0)
        return false;
    dk_stats_free(&st);
    if (st.limit != limit)
        return false;
    for (int k = 0; k < (limit ? 3 : 2); k++) {
        dk_tb_path(dir, g->v, ix->m, dk_tb_metric_ext((dk_metric)(k + 1)), path, sizeof path);
        dk_ctable *t = dk_ctable_open(path, err, sizeof err);
        const dk_ctable_info *in = t ? dk_ctable_get_info(t) : NULL;
        bool ok = t && in->count == ix->size && in->file_crc == st.file_crc[k] &&
                  in->file_size == st.file_size[k];
        dk_ctable_close(t);
        if (!ok)
            return false;
    }
    return true;
}
