/* damka info: the materials, sizes and work units of a set of tables, without building them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gen/plan/budget.h"
#include "../gen/store/json.h"
#include "../gen/run/setup.h"
#include "../gen/sched/subslice.h"
#include "../gen/sched/workgraph.h"
#include "../rules/errors.h"
#include "cli.h"
#include "runopts.h"

static int cmd_info(int argc, char **argv);

const cli_command cli_info = {
    "info", cmd_info, "[--variant V] --pieces N [--per-side K] [--unit-positions P] [--json]",
    "materials, sizes and work units of a set of tables, without building them",
    "Lists every material of 2 to N pieces with its positions, subslices and levels, the totals per\n"
    "number of pieces, and the work units gen would make (with the memory the largest needs).\n",
    VARIANT_HELP
    "  --pieces N             materials of 2 to N pieces, N up to 10 on 8x8, 9 on 10x10 (required)\n"
    "  --per-side K           at most K pieces a side (1 to 12 on 8x8, 20 on 10x10)\n"
    "  --unit-positions P     at most P positions a work unit (default 4194304, doubled while the\n"
    "                         positions are above 131072 units: from 9 pieces on 8x8)\n"
    "  --json                 one JSON object\n",
};

typedef struct material_row {
    dk_material m;
    uint64_t positions, subslices;
    int levels;
} material_row;

static int count_levels(const dk_variant *v, dk_material m)
{
    int maxl = dk_max_level(v, m), n = 0;
    uint64_t *counts = malloc(((size_t)maxl + 1) * sizeof *counts);
    if (!counts || dk_level_counts(v, m, counts) != 0) {
        free(counts);
        return -1;
    }
    for (int l = 0; l <= maxl; l++)
        n += counts[l] != 0;
    free(counts);
    return n;
}

typedef struct unit_summary {
    uint32_t largest;
    uint32_t oversize, bounded; /* units above the bound; units counted as an upper bound */
} unit_summary;

static unit_summary summarise(const dk_workgraph *g)
{
    unit_summary s = {0, 0, 0};
    for (uint32_t u = 0; u < g->nunits; u++) {
        if (g->units[u].positions > g->units[s.largest].positions)
            s.largest = u;
        s.oversize += g->units[u].oversize;
        s.bounded += !g->units[u].exact;
    }
    return s;
}

/* Positions with both sides to move of the materials with p pieces; their number in *count. */
static uint64_t piece_total(const material_row *rows, size_t n, int p, uint64_t *count)
{
    uint64_t sum = 0;
    *count = 0;
    for (size_t i = 0; i < n; i++)
        if (dk_material_pieces(rows[i].m) == p) {
            sum += 2 * rows[i].positions;
            ++*count;
        }
    return sum;
}

/* What a rank holds to solve unit u under the variant's default draw rule, with the least exit
 * cache (budget.h). */
static uint64_t unit_bytes(const dk_variant *v, const dk_unit *u)
{
    return dk_budget_unit_bytes(u->positions, 2 * (unsigned)v->draw_rule_moves) + dk_budget_exit_cache(0);
}

static void print_text(const dk_variant *v, int pieces, int per_side, const material_row *rows, size_t n,
                       const dk_workgraph *g)
{
    char name[DK_MATERIAL_NAME_MAX];
    printf("%s: materials of 2 to %d pieces", v->name, pieces);
    if (per_side)
        printf(", at most %d a side", per_side);
    printf(" (tables hold White to move)\n%-12s %20s %14s %7s\n", "material", "positions", "subslices", "levels");
    for (size_t i = 0; i < n; i++) {
        dk_material_name(rows[i].m, name, sizeof name);
        printf("%-12s %20llu %14llu %7d\n", name, (unsigned long long)rows[i].positions,
               (unsigned long long)rows[i].subslices, rows[i].levels);
    }
    printf("\n%-7s %10s %28s\n", "pieces", "materials", "positions (both sides to move)");
    uint64_t total = 0;
    for (int p = 2; p <= pieces; p++) {
        uint64_t count, sum = piece_total(rows, n, p, &count);
        total += sum;
        printf("%-7d %10llu %28llu\n", p, (unsigned long long)count, (unsigned long long)sum);
    }
    printf("%-7s %10zu %28llu\n\n", "total", n, (unsigned long long)total);
    unit_summary s = summarise(g);
    const dk_unit *big = &g->units[s.largest];
    dk_material_name(g->pairs[big->pair].m, name, sizeof name);
    printf("work units: %u (%u material pairs, %u levels), at most %llu positions a unit (--unit-positions)\n",
           g->nunits, g->npairs, g->nlayers, (unsigned long long)g->max_positions);
    printf("largest unit: %llu positions (%s and its twin, level %d)\n", (unsigned long long)big->positions,
           name, big->level);
    printf("units above the bound (one subslice, e.g. kings only): %u; units sized by an upper bound: %u\n",
           s.oversize, s.bounded);
    printf("memory a rank needs to solve the largest unit: %.0f MiB under the %d-move draw rule, besides its "
           "cache of finished tables\n", unit_bytes(v, big) / 1048576.0, v->draw_rule_moves);
}

static void print_json(const dk_variant *v, int pieces, int per_side, const material_row *rows, size_t n,
                       const dk_workgraph *g)
{
    char name[DK_MATERIAL_NAME_MAX];
    dk_json w;
    dk_json_start(&w, stdout);
    dk_json_object(&w, NULL);
    dk_json_string(&w, "variant", v->name);
    dk_json_i64(&w, "pieces", pieces);
    dk_json_i64(&w, "per_side", per_side);
    dk_json_newline(&w, 1);
    dk_json_array(&w, "materials");
    for (size_t i = 0; i < n; i++) {
        dk_material_name(rows[i].m, name, sizeof name);
        dk_json_newline(&w, 2);
        dk_json_object(&w, NULL);
        dk_json_string(&w, "name", name);
        dk_json_i64(&w, "pieces", dk_material_pieces(rows[i].m));
        dk_json_u64(&w, "positions", rows[i].positions);
        dk_json_u64(&w, "subslices", rows[i].subslices);
        dk_json_i64(&w, "levels", rows[i].levels);
        dk_json_end(&w);
    }
    dk_json_end(&w);
    dk_json_newline(&w, 1);
    dk_json_array(&w, "totals");
    for (int p = 2; p <= pieces; p++) {
        uint64_t count, sum = piece_total(rows, n, p, &count);
        dk_json_newline(&w, 2);
        dk_json_object(&w, NULL);
        dk_json_i64(&w, "pieces", p);
        dk_json_u64(&w, "materials", count);
        dk_json_u64(&w, "positions", sum);
        dk_json_end(&w);
    }
    dk_json_end(&w);
    unit_summary s = summarise(g);
    const dk_unit *big = &g->units[s.largest];
    dk_material_name(g->pairs[big->pair].m, name, sizeof name);
    dk_json_newline(&w, 1);
    dk_json_object(&w, "units");
    dk_json_u64(&w, "count", g->nunits);
    dk_json_u64(&w, "pairs", g->npairs);
    dk_json_u64(&w, "layers", g->nlayers);
    dk_json_u64(&w, "max_positions", g->max_positions);
    dk_json_u64(&w, "largest", big->positions);
    dk_json_string(&w, "largest_material", name);
    dk_json_i64(&w, "largest_level", big->level);
    dk_json_u64(&w, "oversize", s.oversize);
    dk_json_u64(&w, "upper_bound", s.bounded);
    dk_json_u64(&w, "memory_bytes", unit_bytes(v, big));
    dk_json_end(&w);
    dk_json_end(&w);
    fputc('\n', stdout);
}

static int cmd_info(int argc, char **argv)
{
    char q[DK_QUOTE_MAX];
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    bool json = false;
    long pieces = 0;
    int per_side = 0;
    const char *per_side_text = NULL, *pieces_text = NULL;
    uint64_t unit = 0;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        const char *val;
        if (cli_variant_option(argc, argv, &i, &v, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (cli_option_value(argc, argv, &i, "--pieces", &pieces_text, &status)) {
            if (status)
                return status;
        } else if (cli_option_value(argc, argv, &i, "--per-side", &per_side_text, &status)) {
            if (status)
                return status;
        } else if (cli_option_value(argc, argv, &i, "--unit-positions", &val, &status)) {
            if (status || cli_parse_unit_positions("info", val, &unit) != 0)
                return 2;
        } else if (cli_is_option(argv[i])) {
            return cli_unknown_option(&cli_info, argv[i]);
        } else {
            return cli_usage_error(&cli_info, "unexpected argument '%s'", cli_quote(argv[i], q, sizeof q));
        }
    }
    if (!pieces_text)
        return cli_usage_error(&cli_info, "missing --pieces");
    if (!cli_parse_int(pieces_text, 2, dk_material_max_pieces(v), &pieces))
        return cli_error("info: --pieces needs a whole number from 2 to %d (%s), got '%s'", dk_material_max_pieces(v),
                         v->name, cli_quote(pieces_text, q, sizeof q));
    if (per_side_text && cli_parse_per_side("info", v, per_side_text, &per_side) != 0)
        return 2;

    size_t n = dk_material_list(v, (int)pieces, (int)per_side, NULL, 0);
    material_row *rows = calloc(n ? n : 1, sizeof *rows);
    dk_material *ms = calloc(n ? n : 1, sizeof *ms);
    if (!rows || !ms) {
        free(rows);
        free(ms);
        return cli_fail("info: out of memory");
    }
    dk_material_list(v, (int)pieces, (int)per_side, ms, n);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        dk_index ix;
        if (dk_index_init(&ix, v, ms[i]) != 0 || __builtin_add_overflow(total, 2 * ix.size, &total)) {
            free(rows);
            free(ms);
            return cli_error("info: the positions of %s up to %ld pieces do not fit 64 bits", v->name, pieces);
        }
        rows[i] = (material_row){ms[i], ix.size, ix.men_count, count_levels(v, ms[i])};
    }
    if (!unit)
        unit = dk_setup_default_unit(total / 2);
    else if (cli_check_unit_count("info", total / 2, unit) != 0) {
        free(rows);
        free(ms);
        return 2;
    }
    dk_workgraph *g = n ? dk_workgraph_build(v, ms, n, unit) : NULL;
    if (!g) {
        free(rows);
        free(ms);
        return cli_error("info: no materials with these limits (or out of memory)");
    }
    (json ? print_json : print_text)(v, (int)pieces, (int)per_side, rows, n, g);
    dk_workgraph_free(g);
    free(rows);
    free(ms);
    return 0;
}
