#include "unitfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../rules/errors.h"

struct dk_unitfile {
    const dk_groups *ug;
    const char *dir;
    unsigned limit, stride;
    bool check_all;
    dk_block_pool *pool;
    dk_vfile **part; /* by part, NULL until first read */
};

int dk_unitfile_path(const dk_groups *ug, const char *dir, uint64_t part, char *buf, size_t len)
{
    int n = dk_groups_path(ug, dir, buf, len);
    if (ug->nparts > 1 && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, ".p%llu", (unsigned long long)part);
    return n;
}

uint64_t dk_unitfile_part_positions(const dk_groups *ug, uint64_t q)
{
    uint64_t lo = q * ug->part_size;
    return ug->npositions - lo < ug->part_size ? ug->npositions - lo : ug->part_size;
}

int dk_unitfile_save(const dk_groups *ug, const char *dir, uint64_t part, unsigned limit,
                     const dk_value *values, char *err, size_t errlen)
{
    const dk_material m = ug->pair->m;
    dk_vfile_info info = {DK_FILE_UNIT, (uint8_t)ug->g->v->id, {m.wm, m.wk, m.bm, m.bk}, 0,
                          (uint32_t)ug->level, dk_unitfile_part_positions(ug, part), 0, (uint8_t)(limit ? 2 : 1), limit,
                          true};
    char path[4096];
    dk_unitfile_path(ug, dir, part, path, sizeof path);
    return dk_vfile_save(path, &info, values, err, errlen);
}

dk_unitfile *dk_unitfile_open(const dk_groups *ug, const char *dir, unsigned limit, bool check_all,
                              dk_block_pool *pool, char *err, size_t errlen)
{
    dk_unitfile *f = calloc(1, sizeof *f);
    if (f)
        f->part = calloc(ug->nparts, sizeof *f->part);
    if (!f || !f->part) {
        free(f);
        return dk_errorf(err, errlen, "out of memory"), NULL;
    }
    *f = (dk_unitfile){.ug = ug, .dir = dir, .limit = limit, .stride = limit ? 2 : 1, .check_all = check_all,
                       .pool = pool, .part = f->part};
    return f;
}

/* Part q's file, opened and checked on first use. */
static dk_vfile *part_file(dk_unitfile *f, uint64_t q, char *err, size_t errlen)
{
    if (f->part[q])
        return f->part[q];
    char path[4096];
    dk_unitfile_path(f->ug, f->dir, q, path, sizeof path);
    dk_vfile *t = dk_vfile_open(path, f->check_all, f->pool, err, errlen);
    const dk_vfile_info *in = t ? dk_vfile_get_info(t) : NULL;
    if (in && (in->kind != DK_FILE_UNIT || !in->flagged || in->count != dk_unitfile_part_positions(f->ug, q) ||
               in->stride != f->stride || in->limit != f->limit)) {
        dk_errorf(err, errlen, "%s is damaged or from another version: wrong kind or number of "
                  "values, or another draw rule", path);
        dk_vfile_close(t);
        t = NULL;
    }
    return f->part[q] = t;
}

int dk_unitfile_read(dk_unitfile *f, uint64_t first, size_t n, dk_value *out, char *err,
                     size_t errlen)
{
    const uint64_t per_part = f->ug->part_size * f->stride;
    if (f->ug->nparts == 1 && f->part[0] && first + n <= per_part) /* most units: one part, open */
        return dk_vfile_read(f->part[0], first, n, out, err, errlen);
    for (uint64_t at = first; at < first + n;) {
        uint64_t q = per_part ? at / per_part : 0, in = at - q * per_part;
        uint64_t run = per_part - in < first + n - at ? per_part - in : first + n - at;
        dk_vfile *t = q < f->ug->nparts ? part_file(f, q, err, errlen) : NULL;
        if (!t)
            return q < f->ug->nparts ? -1 : dk_errorf(err, errlen, "internal error: a read past a unit's end");
        if (dk_vfile_read(t, in, run, out + (at - first), err, errlen) != 0)
            return -1;
        at += run;
    }
    return 0;
}

void dk_unitfile_close(dk_unitfile *f)
{
    if (!f)
        return;
    for (uint64_t q = 0; q < f->ug->nparts; q++)
        dk_vfile_close(f->part[q]);
    free(f->part);
    free(f);
}

bool dk_unitfile_intact(const dk_groups *ug, const char *dir, unsigned limit)
{
    char err[512];
    dk_unitfile *f = dk_unitfile_open(ug, dir, limit, true, NULL, err, sizeof err);
    bool ok = f != NULL;
    for (uint64_t q = 0; ok && q < ug->nparts; q++) {
        char path[4096];
        dk_unitfile_path(ug, dir, q, path, sizeof path);
        ok = access(path, F_OK) == 0 && part_file(f, q, err, sizeof err) != NULL;
        dk_vfile_close(f->part[q]); /* one part mapped at a time */
        f->part[q] = NULL;
    }
    dk_unitfile_close(f);
    return ok;
}

void dk_unitfile_remove(dk_groups_cache *gcache, const char *dir, uint32_t u)
{
    dk_groups ug;
    if (dk_groups_build(&ug, gcache, u) != 0)
        return;
    for (uint64_t q = 0; q < ug.nparts; q++) {
        char path[4096];
        dk_unitfile_path(&ug, dir, q, path, sizeof path);
        unlink(path);
    }
    dk_groups_free(&ug);
}
