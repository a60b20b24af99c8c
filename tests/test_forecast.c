/* The forecast of `damka plan` (gen/plan/simulate.h, on the costs of gen/plan/costmodel.h): the
 * simulated scheduler against what any schedule must satisfy and against a longest-path
 * computation of its own. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../gen/plan/costmodel.h"
#include "../gen/plan/simulate.h"
#include "../gen/sched/workgraph.h"
#include "../index/material.h"
#include "support.h"

/* (Not libm's: the suites link without it.) */
static double maxd(double a, double b) { return a > b ? a : b; }
static double absd(double a) { return a < 0 ? -a : a; }

static dk_workgraph *graph(dk_variant_id id, int pieces, uint64_t unit_positions)
{
    dk_workgraph *g = test_graph(id, pieces, unit_positions);
    assert_non_null(g);
    return g;
}

/* The test graphs: many small units, a few pairs, both variants. */
static dk_workgraph *graphs[3];

static int setup(void **state)
{
    (void)state;
    graphs[0] = graph(DK_BRAZILIAN, 4, 20000);
    graphs[1] = graph(DK_BRAZILIAN, 5, (uint64_t)1 << 22);
    graphs[2] = graph(DK_INTERNATIONAL, 3, 5000);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        dk_workgraph_free(graphs[i]);
    return 0;
}

/* The calibrated model without decoding costs: the paths this file computes from task costs
 * alone know nothing of what a rank holds (test_decoding checks decoding). */
static dk_forecast_model model(const dk_workgraph *g, uint64_t cache)
{
    dk_forecast_model m = dk_forecast_default_model(g, 30, cache, 0);
    m.decode_seconds = 0;
    return m;
}

static double total_cost(const dk_workgraph *g, const dk_forecast_model *m, double *longest)
{
    double sum = 0;
    *longest = 0;
    for (uint32_t u = 0; u < g->nunits; u++) {
        double c = dk_forecast_cost(g, m, (dk_wg_task){DK_WG_UNIT, u});
        sum += c;
        *longest = c > *longest ? c : *longest;
    }
    for (uint32_t p = 0; p < g->npairs; p++) {
        double c = dk_forecast_cost(g, m, (dk_wg_task){DK_WG_FINISH, p});
        sum += c;
        *longest = c > *longest ? c : *longest;
    }
    return sum;
}

static void assert_close(double a, double b)
{
    assert_true(absd(a - b) <= 1e-9 * maxd(absd(a), absd(b)) + 1e-12);
}

/* The longest chain of tasks, from the edges of workgraph.h (not through its readiness): a
 * unit ends its cost after the layer above and every pair it reads are finished; a pair's
 * finish after its units. Units in id order and pairs in id order are topological. */
static double longest_path(const dk_workgraph *g, const dk_forecast_model *m)
{
    double *unit_end = calloc(g->nunits, sizeof *unit_end), *finish_end = calloc(g->npairs, sizeof *finish_end);
    double *layer_end = calloc(g->nlayers, sizeof *layer_end), longest = 0;
    for (uint32_t pi = 0; pi < g->npairs; pi++) {
        const dk_wpair *p = &g->pairs[pi];
        double deps = 0;
        for (uint32_t j = 0; j < p->ndeps; j++)
            deps = maxd(deps, finish_end[g->deps[p->first_dep + j]]);
        double pair_end = 0;
        for (uint32_t k = 0; k < p->nlayers; k++) {
            uint32_t li = p->first_layer + k;
            const dk_layer *l = &g->layers[li];
            bool above = k > 0 && g->layers[li - 1].level == l->level + 1;
            double begin = maxd(deps, above ? layer_end[li - 1] : 0);
            for (uint32_t u = l->first_unit; u < l->first_unit + l->nunits; u++) {
                unit_end[u] = begin + dk_forecast_cost(g, m, (dk_wg_task){DK_WG_UNIT, u});
                layer_end[li] = maxd(layer_end[li], unit_end[u]);
            }
            pair_end = maxd(pair_end, layer_end[li]);
        }
        finish_end[pi] = pair_end + dk_forecast_cost(g, m, (dk_wg_task){DK_WG_FINISH, pi});
        longest = maxd(longest, finish_end[pi]);
    }
    free(unit_end);
    free(finish_end);
    free(layer_end);
    return longest;
}

/* One material, self-twin, one level: a unit, then its finish, whatever the ranks. */
static void test_single_pair(void **state)
{
    (void)state;
    dk_material kk = {0, 1, 0, 1};
    dk_workgraph *g = dk_workgraph_build(dk_variant_get(DK_BRAZILIAN), &kk, 1, 1 << 20);
    assert_non_null(g);
    assert_int_equal(g->npairs, 1);
    assert_int_equal(g->nunits, 1);
    uint64_t n = g->units[0].positions;
    assert_int_equal(n, 992); /* 32 x 31 placements of two kings */
    dk_forecast_model m = {.unit_seconds = 1e-3, .finish_seconds = 0.5e-3, .table_bits = {8, 16, 8},
                           .unit_bits = 32, .limit = 30, .cache_bytes = 1 << 20, .read_spread = 2.0,
                           .piece_factor = {1, 1, 1, 1, 1, 1, 1}};
    for (uint32_t ranks = 1; ranks <= 4; ranks *= 2) {
        dk_forecast f;
        assert_int_equal(dk_forecast_run(g, &m, ranks, &f), 0);
        assert_close(f.wall, 0.992 + 0.496);
        assert_close(f.work, 0.992 + 0.496);
        assert_int_equal(f.peak_parallel, 1);
        assert_int_equal(f.ranks_used, 1);
        assert_int_equal(f.table_bytes, 992 * 4);   /* 32 bits a position */
        assert_int_equal(f.work_peak_bytes, 992 * 4); /* the unit file, until the finish */
        assert_int_equal(f.disk_peak_bytes, 992 * 4);
        assert_int_equal(f.read_bytes, 0);            /* nothing below it */
    }
    dk_workgraph_free(g);
}

/* On one rank the wall time is the sum of every task's cost. */
static void test_one_rank(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        dk_forecast_model m = model(graphs[i], (uint64_t)1 << 30);
        double longest, sum = total_cost(graphs[i], &m, &longest);
        dk_forecast f;
        assert_int_equal(dk_forecast_run(graphs[i], &m, 1, &f), 0);
        assert_close(f.wall, sum);
        assert_close(f.work, sum);
        assert_int_equal(f.peak_parallel, 1);
        assert_int_equal(f.ranks_used, 1);
    }
}

/* The seconds of a run's chain, which must be its wall time (each task on it began as the one
 * before ended, the first at the start); its tasks at least one, decoding within its units'. */
static void assert_chain(const dk_forecast *f)
{
    double seconds = 0;
    uint32_t tasks = 0;
    for (int k = 0; k < DK_LINK_KINDS; k++) {
        seconds += f->chain[k].seconds;
        tasks += f->chain[k].tasks;
    }
    assert_true(tasks >= 1);
    assert_close(seconds, f->wall);
    assert_true(f->chain_decode >= 0 &&
                f->chain_decode <= (f->chain[DK_LINK_UNIT].seconds + f->chain[DK_LINK_SPLIT].seconds) * (1 + 1e-12));
}

/* Unlimited ranks give the critical path, at least the longest task; no number of ranks does
 * better than the critical path or than the work shared evenly; the chain of each run adds up
 * to its wall time. */
static void test_critical_path(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        const dk_workgraph *g = graphs[i];
        dk_forecast_model m = model(g, (uint64_t)1 << 30);
        double longest, sum = total_cost(g, &m, &longest);
        dk_forecast unl, f;
        assert_int_equal(dk_forecast_run(graphs[i], &m, DK_FORECAST_UNLIMITED, &unl), 0);
        assert_close(unl.wall, longest_path(g, &m));
        assert_true(unl.wall >= longest);
        assert_close(unl.longest, longest);
        assert_close(unl.work, sum);
        assert_true(unl.peak_parallel > 1 && unl.ranks_used == unl.peak_parallel);
        assert_chain(&unl);
        for (uint32_t r = 1; r <= 64; r *= 4) {
            assert_int_equal(dk_forecast_run(graphs[i], &m, r, &f), 0);
            assert_true(f.wall >= unl.wall * (1 - 1e-12) && f.wall >= sum / r * (1 - 1e-12));
            assert_chain(&f);
        }
        /* At the peak parallelism the run is the unlimited one. */
        assert_int_equal(dk_forecast_run(graphs[i], &m, unl.peak_parallel, &f), 0);
        assert_close(f.wall, unl.wall);
    }
}

/* More ranks never make the run slower (on these graphs), and the saturation point is the
 * fewest ranks within the tolerance. */
static void test_more_ranks(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        dk_forecast_model m = model(graphs[i], (uint64_t)1 << 30);
        dk_forecast f, at, unl;
        uint32_t sat = dk_forecast_saturation(graphs[i], &m, 0.05, &at, &unl);
        assert_true(sat >= 1 && sat <= unl.peak_parallel);
        assert_true(at.wall <= unl.wall * 1.05);
        double last = INFINITY;
        for (uint32_t r = 1; r <= unl.peak_parallel + 2; r++) {
            assert_int_equal(dk_forecast_run(graphs[i], &m, r, &f), 0);
            assert_true(f.wall <= last);
            last = f.wall;
            if (r + 1 == sat)
                assert_true(f.wall > unl.wall * 1.05);
            if (r == sat)
                assert_close(f.wall, at.wall);
        }
    }
}

/* Units split over the ranks (every unit above the bound, as gen marks them with a split bound
 * as small as the unit bound): the run still ends, no schedule beats the work shared evenly or
 * the unlimited run, no more tasks run than ranks, and with unlimited ranks a split unit, one
 * rank a part, no longer sets the longest task. */
static void test_split(void **state)
{
    (void)state;
    dk_workgraph *g = graph(DK_BRAZILIAN, 5, 65536);
    dk_forecast_model m = model(g, (uint64_t)1 << 30);
    dk_forecast whole, split, f;
    assert_int_equal(dk_forecast_run(g, &m, DK_FORECAST_UNLIMITED, &whole), 0);
    uint32_t marked = 0;
    for (uint32_t u = 0; u < g->nunits; u++)
        marked += g->units[u].split = g->units[u].oversize;
    assert_true(marked > 0);
    assert_int_equal(dk_forecast_run(g, &m, DK_FORECAST_UNLIMITED, &split), 0);
    assert_true(split.longest < whole.longest);
    for (uint32_t r = 1; r <= 16; r *= 2) {
        assert_int_equal(dk_forecast_run(g, &m, r, &f), 0);
        assert_true(f.wall >= f.work / r * (1 - 1e-12));
        assert_true(f.wall >= split.wall * (1 - 1e-12));
        assert_true(f.peak_parallel <= r);
        assert_chain(&f);
    }
    assert_chain(&split);
    dk_workgraph_free(g);
}

/* --rate: the units' average rate is what was asked, finishing scaled alike; --speed divides
 * every time. */
static void test_rate(void **state)
{
    (void)state;
    const dk_workgraph *g = graphs[1];
    dk_forecast_model cal = model(g, 0), m = dk_forecast_default_model(g, 30, 0, 2e6);
    assert_true(absd(dk_forecast_mean_rate(g, &m) / 2e6 - 1) < 1e-9);
    assert_close(m.finish_seconds / m.unit_seconds, cal.finish_seconds / cal.unit_seconds);
    dk_forecast_model dcal = dk_forecast_default_model(g, 30, 0, 0), dm = dk_forecast_default_model(g, 30, 0, 2e6);
    assert_true(dcal.decode_seconds > 0);
    assert_close(dm.decode_seconds / dm.unit_seconds, dcal.decode_seconds / dcal.unit_seconds);
    dk_forecast_model fast = dcal; /* --speed: every time divided, the rates multiplied */
    dk_forecast_scale(&fast, 2.5);
    assert_close(dk_forecast_mean_rate(g, &fast), 2.5 * dk_forecast_mean_rate(g, &dcal));
    assert_close(fast.finish_seconds * 2.5, dcal.finish_seconds);
    assert_close(fast.decode_seconds * 2.5, dcal.decode_seconds);
    dk_forecast_model plain = dk_forecast_default_model(g, 0, 0, 0);
    assert_true(plain.unit_seconds < cal.unit_seconds && plain.table_bits[2] == 0 && cal.table_bits[2] > 0);
}

/* Files: every table written once; the work directory empty at the end, so the disk's peak is
 * at least the tables. Reads: with an ample cache one rank decodes each part of a table at most
 * once; without a cache every unit reads its parts again. */
static void test_files_and_reads(void **state)
{
    (void)state;
    const dk_workgraph *g = graphs[0];
    dk_forecast_model m = model(g, (uint64_t)1 << 40);
    double bits = m.table_bits[0] + m.table_bits[1] + m.table_bits[2], tables = 0, read_all = 0;
    for (uint32_t p = 0; p < g->npairs; p++) {
        tables += (double)g->pairs[p].positions * bits / 8;
        read_all += (double)g->pairs[p].positions * (m.table_bits[1] + m.table_bits[2]) / 8;
    }
    dk_forecast ample, none, many;
    assert_int_equal(dk_forecast_run(graphs[0], &m, 1, &ample), 0);
    assert_true(absd((double)ample.table_bytes - tables) <= g->npairs);
    assert_true(ample.disk_peak_bytes + g->npairs >= ample.table_bytes && ample.work_peak_bytes > 0);
    assert_true(ample.read_bytes > 0 && (double)ample.read_bytes <= read_all);
    assert_int_equal(ample.read_max_bytes, ample.read_bytes);
    assert_int_equal(dk_forecast_run(graphs[0], &m, 8, &many), 0);
    assert_true(many.read_bytes >= ample.read_bytes && many.read_max_bytes <= many.read_bytes);
    m.cache_bytes = 0;
    assert_int_equal(dk_forecast_run(graphs[0], &m, 1, &none), 0);
    assert_true(none.read_bytes > ample.read_bytes && none.held_peak_bytes < ample.held_peak_bytes);
}

/* Memory: without a budget none is forecast; with one, the peak is what a rank holds at the start
 * of one of its tasks (budget.h's parts), its decoded tables at most the most it ever held, the
 * whole within the budget; a rank without a cache (a chunk at a time) holds less. */
static void test_memory_peak(void **state)
{
    (void)state;
    const dk_workgraph *g = graphs[0];
    dk_forecast f;
    dk_forecast_model m = model(g, (uint64_t)1 << 30);
    assert_int_equal(dk_forecast_run(graphs[0], &m, 2, &f), 0);
    assert_int_equal(dk_budget_use_total(&f.memory_peak), 0);
    char err[256];
    assert_int_equal(dk_budget_split((uint64_t)1 << 30, (uint64_t)1 << 30, 0, 30, &m.budget, err, sizeof err), 0);
    m.cache_bytes = m.budget.cache_bytes - dk_budget_check_cache(m.budget.cache_bytes);
    assert_int_equal(dk_forecast_run(graphs[0], &m, 2, &f), 0);
    uint64_t peak = dk_budget_use_total(&f.memory_peak);
    assert_true(peak > 0 && peak <= m.budget.memory);
    assert_true(f.memory_peak.tables > 0 && f.memory_peak.tables <= f.held_peak_bytes);
    assert_true(f.memory_peak.check <= f.memory_peak.tables);
    m.cache_bytes = 0;
    dk_forecast none;
    assert_int_equal(dk_forecast_run(graphs[0], &m, 2, &none), 0);
    assert_true(none.memory_peak.tables <= none.held_peak_bytes && dk_budget_use_total(&none.memory_peak) < peak);
}

/* Decoding: on one rank the run is its tasks' costs plus the decoding of every part of a table
 * read, at decode_seconds a position read (whole and split units alike); a smaller cache decodes
 * more and takes longer, none the most; on several ranks no schedule beats the work shared
 * evenly. */
static void test_decoding(void **state)
{
    (void)state;
    dk_workgraph *split = graph(DK_BRAZILIAN, 5, 65536);
    for (uint32_t u = 0; u < split->nunits; u++)
        split->units[u].split = split->units[u].oversize;
    dk_workgraph *gs[2] = {graphs[0], split};
    for (int i = 0; i < 2; i++) {
        dk_forecast_model m = model(gs[i], (uint64_t)1 << 30), with = m;
        with.decode_seconds = 1e-7;
        dk_forecast f0, f, small;
        assert_int_equal(dk_forecast_run(gs[i], &m, 1, &f0), 0);
        assert_int_equal(dk_forecast_run(gs[i], &with, 1, &f), 0);
        assert_true(f0.decode_work == 0 && f.decode_work > 0);
        assert_close(f.wall, f.work);
        assert_close(f.work - f0.work, f.decode_work);
        double positions = (double)f.read_bytes * 8 / (m.table_bits[1] + m.table_bits[2]);
        /* read_bytes rounds each table down to whole bytes */
        assert_true(f.decode_work >= positions * 1e-7 && f.decode_work / (positions * 1e-7) - 1 < 1e-3);
        /* a cache of a quarter of what the ample one held decodes more */
        with.cache_bytes = f.held_peak_bytes / 4;
        assert_int_equal(dk_forecast_run(gs[i], &with, 1, &small), 0);
        assert_true(small.decode_work > f.decode_work && small.wall > f.wall);
        /* nothing stays: every read decodes again */
        dk_forecast none;
        with.cache_bytes = 0;
        assert_int_equal(dk_forecast_run(gs[i], &with, 1, &none), 0);
        assert_true(none.decode_work >= small.decode_work && none.read_bytes > f.read_bytes);
        with.cache_bytes = m.cache_bytes;
        for (uint32_t r = 2; r <= 8; r *= 2) {
            assert_int_equal(dk_forecast_run(gs[i], &with, r, &f), 0);
            assert_true(f.decode_work > 0 && f.wall >= f.work / r * (1 - 1e-12));
        }
    }
    dk_workgraph_free(split);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_pair),
        cmocka_unit_test(test_one_rank),
        cmocka_unit_test(test_critical_path),
        cmocka_unit_test(test_more_ranks),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_files_and_reads),
        cmocka_unit_test(test_memory_peak),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_decoding),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
