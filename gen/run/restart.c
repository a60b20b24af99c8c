#include "restart.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../query/tablebase.h"
#include "../finish/partfiles.h"
#include "../store/stats.h"
#include "../finish/intact.h"
#include "../store/unitfile.h"

/* Whether the tables of one material are finished and whole; see dk_restart_scan. One that
 * cannot be read now (an I/O error, memory) is taken as unfinished and left as it is:
 * finishing its pair writes it again only if it then finds it unfinished too. */
static bool material_intact(const char *dir, const dk_index *ix, unsigned limit)
{
    char stats[4096], why[1536], name[DK_MATERIAL_NAME_MAX];
    dk_stats_path(dir, ix->v, ix->m, stats, sizeof stats);
    int rc = dk_table_intact(dir, ix, limit, why, sizeof why);
    if (rc == DK_OK)
        return true;
    if (rc != DK_DAMAGED) /* never finished, or unreadable now: made in its turn, nothing to say */
        return false;
    dk_material_name(ix->m, name, sizeof name);
    fprintf(stderr, "gen: making %s %s again: %s\n", ix->v->name, name, why);
    unlink(stats); /* finishing the pair keeps a material whose statistics are there */
    return false;
}

/* Whether the tables of both materials of pair p are finished and whole. */
static bool pair_intact(const dk_workgraph *g, const char *dir, uint32_t p, unsigned limit)
{
    const dk_wpair *pair = &g->pairs[p];
    bool intact = material_intact(dir, &pair->ix, limit);
    if (!pair->self_twin)
        intact &= material_intact(dir, &pair->ix_twin, limit); /* both checked: both named */
    return intact;
}

/* Whether unit u's files are all present and intact (CRC checked, right size, the same draw
 * rule). gcache (of graph g) makes u's groups only when its first file is there. */
static bool unit_finished(const dk_workgraph *g, dk_groups_cache *gcache, const char *dir, uint32_t u,
                          unsigned limit)
{
    /* The file's name needs no list of the unit's subslices: where it is missing (every unit of a
     * new run) its groups are not made, which lists its pair or walks its level. A unit whose
     * count of positions is only an upper bound may have fewer parts than its shape says: its
     * groups are made. */
    dk_groups ug;
    char path[4096];
    dk_groups_shape(&ug, g, u, g->units[u].positions);
    dk_unitfile_path(&ug, dir, 0, path, sizeof path);
    if (g->units[u].exact && access(path, F_OK) != 0)
        return false;
    if (dk_groups_build(&ug, gcache, u) != 0)
        return false;
    bool ok = dk_unitfile_intact(&ug, dir, limit);
    dk_groups_free(&ug);
    return ok;
}

int dk_restart_scan(dk_workgraph *g, const char *dir, unsigned limit, uint64_t *positions_done,
                    uint32_t *materials_done)
{
    uint64_t *units = calloc(g->nunits / 64 + 1, sizeof *units), *pairs = calloc(g->npairs / 64 + 1, sizeof *pairs);
    dk_groups_cache *gcache = units && pairs ? dk_groups_cache_new(g) : NULL;
    if (!gcache) {
        free(units);
        free(pairs);
        return -1;
    }
    for (uint32_t p = 0; p < g->npairs; p++)
        if (pair_intact(g, dir, p, limit)) {
            pairs[p / 64] |= (uint64_t)1 << (p % 64);
            *materials_done += g->pairs[p].self_twin ? 1 : 2;
        }
    for (uint32_t u = 0; u < g->nunits; u++) {
        uint32_t p = g->units[u].pair;
        if ((pairs[p / 64] >> (p % 64) & 1) || unit_finished(g, gcache, dir, u, limit)) {
            units[u / 64] |= (uint64_t)1 << (u % 64);
            *positions_done += g->units[u].counted;
        }
    }
    dk_groups_cache_free(gcache);
    /* the parts of the finishings under way: scanned, packed (parttasks.h) */
    uint64_t *parts = calloc((2 * (size_t)g->nparts) / 64 + 1, sizeof *parts);
    if (!parts) {
        free(units);
        free(pairs);
        return -1;
    }
    for (uint32_t q = 0; q < g->nparts; q++) {
        uint32_t p = g->parts[q].pair;
        int found = pairs[p / 64] >> (p % 64) & 1 ? 0 : dk_fpart_found(g, dir, q, limit);
        uint64_t packed = g->nparts + (uint64_t)q;
        if (found & 1)
            parts[q / 64] |= (uint64_t)1 << (q % 64);
        if (found & 2)
            parts[packed / 64] |= (uint64_t)1 << (packed % 64);
    }
    dk_workgraph_reset_parts(g, units, pairs, parts);
    free(units);
    free(pairs);
    free(parts);
    return 0;
}

bool dk_dir_rule_differs(const char *dir, const dk_variant *v, unsigned limit, unsigned *found,
                         char *which, size_t len)
{
    size_t n = dk_material_list(v, DK_TB_MAX_PIECES, 0, NULL, 0);
    dk_material *ms = malloc(n * sizeof *ms);
    bool differs = false;
    if (!ms)
        return false;
    dk_material_list(v, DK_TB_MAX_PIECES, 0, ms, n);
    for (size_t i = 0; i < n && !differs; i++) {
        char path[4096];
        dk_stats st;
        dk_stats_path(dir, v, ms[i], path, sizeof path);
        if (access(path, F_OK) != 0 || dk_stats_load(&st, path) != 0)
            continue;
        dk_stats_free(&st);
        if (st.limit != limit) {
            differs = true;
            *found = st.limit;
            dk_material_name(ms[i], which, len);
        }
    }
    free(ms);
    return differs;
}
