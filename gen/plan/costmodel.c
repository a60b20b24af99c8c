#include "costmodel.h"

#include <stdlib.h>
#include <string.h>

#include "budget.h"

/* The model's constants (Brazilian, draw rule of 15 moves): seconds a unit position (times
 * 1 + king_weight x kings) and a finished position, of decoding a finished table's position,
 * the span of a table a unit reads against its share (read_spread), the costs without the
 * rule, table and unit-file sizes in bits a position. How each was measured and fitted:
 * docs/measurements.md, "Forecasts of damka plan". */
static const double unit_seconds = 2.05e-7, king_weight = 1.22, finish_seconds = 1.205e-7;
static const double decode_seconds = 4.96e-9, read_spread = 2.0;
static const double plain_unit = 0.73, plain_finish = 0.64, plain_decode = 0.5;
static const double table_bits[3] = {0.18, 1.21, 0.50};
static const double unit_bits_rule = 4.26, unit_bits_plain = 3.21;
/* A split unit's time on its ranks against one rank's time for the same positions, talking
 * included (measured: docs/usage.md, "Split units"). */
static const double split_overhead = 1.3;
/* A finishing in parts (gen/finish/parttasks.h): the share of a finished position's time its scan
 * and its packing take, measured on Brazilian up to 5 pieces in parts of 2^20 positions, and
 * the join's a position of the pair (it copies the coded blocks), measured on the 6-piece pair
 * 2m2k-1m1k (2.2e8 positions; 5-piece pairs' joins are mostly opening and syncing files):
 * docs/measurements.md ("Finishing in parts"). */
static const double scan_share = 0.65, pack_share = 0.8, join_share = 0.02;

/* Each variant's unit time a position against Brazilian's by the pieces of the material (the last
 * entry for more), and its finishing time a position (whole, scans, packings, joins): International
 * from every task of its set up to 5 pieces and of two 6-piece subsets, one of kings only, timed
 * beside the same of Brazilian on one machine and build (DAMKA_TASK_TIMES, scripts/task-costs;
 * docs/measurements.md, "The cost of a 10x10 position"): alike up to 5 pieces, 1.4 times
 * Brazilian's at 6, where its tables and units are ten times as large; cheaper to finish.
 * Russian plays on Brazilian's board. */
static const struct variant_cost {
    double piece_factor[DK_FORECAST_PIECES], finish;
} variant_costs[DK_NVARIANTS] = {
    [DK_BRAZILIAN] = {{1, 1, 1, 1, 1, 1, 1}, 1},
    [DK_INTERNATIONAL] = {{1, 1, 1, 1, 1, 1.07, 1.4}, 0.84},
    [DK_RUSSIAN] = {{1, 1, 1, 1, 1, 1, 1}, 1},
};

static int kings(dk_material m) { return m.wk + m.bk; }

/* The positions of every unit into pos (room for g->nunits): what it counts of its layer. */
static void all_unit_positions(const dk_workgraph *g, double *pos)
{
    for (uint32_t u = 0; u < g->nunits; u++)
        pos[u] = (double)g->units[u].counted;
}

static double unit_cost(const dk_workgraph *g, const dk_forecast_model *m, uint32_t u, double positions)
{
    dk_material mat = g->pairs[g->units[u].pair].m;
    int n = dk_material_pieces(mat);
    return positions * m->unit_seconds * (1 + m->king_weight * kings(mat)) *
           m->piece_factor[n < DK_FORECAST_PIECES ? n : DK_FORECAST_PIECES - 1];
}

double dk_forecast_cost(const dk_workgraph *g, const dk_forecast_model *m, dk_wg_task t)
{
    if (t.kind == DK_WG_FINISH)
        return (double)g->pairs[t.id].positions * m->finish_seconds * (g->pairs[t.id].nparts ? join_share : 1);
    if (t.kind == DK_WG_SCAN || t.kind == DK_WG_PACK)
        return (double)(g->parts[t.id].hi - g->parts[t.id].lo) * m->finish_seconds *
               (t.kind == DK_WG_SCAN ? scan_share : pack_share);
    return unit_cost(g, m, t.id, (double)g->units[t.id].counted);
}

double dk_forecast_split_cost(const dk_workgraph *g, const dk_forecast_model *m, uint32_t u, uint32_t ranks)
{
    double pos = (double)g->units[u].counted, S = (double)g->max_positions;
    uint64_t parts = pos > S ? (uint64_t)((pos + S - 1) / S) : 1;
    uint64_t most = (parts + ranks - 1) / ranks;
    return unit_cost(g, m, u, pos) * (double)most / (double)parts * (ranks > 1 ? split_overhead : 1);
}

int dk_forecast_prioritize(dk_workgraph *g, const dk_forecast_model *m)
{
    double *unit = malloc((g->nunits + 1) * sizeof *unit), *finish = malloc((g->npairs + 1) * sizeof *finish);
    double *part = malloc((2 * (size_t)g->nparts + 1) * sizeof *part);
    if (!unit || !finish || !part) {
        free(unit);
        free(finish);
        free(part);
        return -1;
    }
    for (uint32_t q = 0; q < g->nparts; q++) {
        part[q] = dk_forecast_cost(g, m, (dk_wg_task){DK_WG_SCAN, q});
        part[g->nparts + q] = dk_forecast_cost(g, m, (dk_wg_task){DK_WG_PACK, q});
    }
    all_unit_positions(g, unit);
    for (uint32_t u = 0; u < g->nunits; u++)
        unit[u] = unit_cost(g, m, u, unit[u]);
    for (uint32_t p = 0; p < g->npairs; p++)
        finish[p] = dk_forecast_cost(g, m, (dk_wg_task){DK_WG_FINISH, p});
    dk_workgraph_prioritize(g, unit, finish, part);
    free(unit);
    free(finish);
    free(part);
    return 0;
}

double dk_forecast_mean_rate(const dk_workgraph *g, const dk_forecast_model *m)
{
    double positions = 0, seconds = 0, *pos = malloc((g->nunits + 1) * sizeof *pos);
    if (!pos)
        return 0;
    all_unit_positions(g, pos);
    for (uint32_t u = 0; u < g->nunits; u++) {
        positions += pos[u];
        seconds += unit_cost(g, m, u, pos[u]);
    }
    free(pos);
    return seconds > 0 ? positions / seconds : 0;
}

dk_forecast_model dk_forecast_default_model(const dk_workgraph *g, unsigned limit, uint64_t cache_bytes,
                                            double mean_rate)
{
    const struct variant_cost *vc = &variant_costs[g->v->id];
    dk_forecast_model m = {.unit_seconds = unit_seconds * (limit ? 1 : plain_unit),
                           .king_weight = king_weight,
                           .finish_seconds = finish_seconds * (limit ? 1 : plain_finish) * vc->finish,
                           .unit_bits = limit ? unit_bits_rule : unit_bits_plain,
                           .limit = limit,
                           .cache_bytes = cache_bytes - dk_budget_check_cache(cache_bytes),
                           .decode_seconds = decode_seconds * (limit ? 1 : plain_decode),
                           .read_spread = read_spread};
    memcpy(m.table_bits, table_bits, sizeof table_bits);
    memcpy(m.piece_factor, vc->piece_factor, sizeof m.piece_factor);
    if (!limit)
        m.table_bits[2] = 0;
    double now = dk_forecast_mean_rate(g, &m);
    if (mean_rate > 0 && now > 0)
        dk_forecast_scale(&m, mean_rate / now);
    return m;
}

void dk_forecast_scale(dk_forecast_model *m, double speed)
{
    m->unit_seconds /= speed;
    m->finish_seconds /= speed;
    m->decode_seconds /= speed;
}
