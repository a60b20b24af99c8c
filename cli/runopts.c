#include "runopts.h"

#include <stdlib.h>
#include <string.h>

#include "../gen/plan/budget.h"
#include "../gen/run/setup.h"
#include "../query/drawrule.h"
#include "../query/tablebase.h"
#include "../rules/errors.h"
#include "cli.h"

/* Parses "2m1k-0m1k,1m1k-1m0k" into at most cap materials; returns how many, or -1 after one
 * line on stderr. */
static int parse_materials(const char *cmd, const dk_variant *v, const char *list, dk_material *out, int cap)
{
    char q[DK_QUOTE_MAX];
    int n = 0;
    size_t len = strlen(list);
    /* strtok would pass over an empty entry: "a,,b", ",a" and "a," are refused, not read as "a,b" */
    if (len && (list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,"))) {
        cli_error("%s: --materials '%s' has an empty entry (a comma-separated list of materials)", cmd,
                  cli_quote(list, q, sizeof q));
        return -1;
    }
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -1;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == cap || dk_material_parse(tok, &out[n]) != 0 || !dk_material_valid(v, out[n]) ||
            dk_material_pieces(out[n]) > dk_material_max_pieces(v)) {
            cli_error("%s: '%s' is not a %s material of at most %d pieces (write it as 2m1k-0m1k: "
                      "white men, white kings, black men, black kings)",
                      cmd, cli_quote(tok, q, sizeof q), v->name, dk_material_max_pieces(v));
            free(copy);
            return -1;
        }
        n++;
    }
    free(copy);
    if (n == 0)
        cli_error("%s: --materials needs at least one material", cmd);
    return n ? n : -1;
}

bool cli_run_option(int argc, char **argv, int *i, cli_run_args *a, dk_gen_options *o, int *status)
{
    return cli_variant_option(argc, argv, i, &o->v, status) ||
           cli_option_value(argc, argv, i, "--pieces", &a->pieces, status) ||
           cli_option_value(argc, argv, i, "--per-side", &a->per_side, status) ||
           cli_option_value(argc, argv, i, "--materials", &a->materials, status) ||
           cli_option_value(argc, argv, i, "--draw-rule", &a->rule, status) ||
           cli_option_value(argc, argv, i, "--memory-per-rank", &a->memory, status) ||
           cli_option_value(argc, argv, i, "--unit-positions", &a->unit, status) ||
           cli_option_value(argc, argv, i, "--split-positions", &a->split, status) ||
           cli_option_value(argc, argv, i, "--finish-positions", &a->finish, status);
}

int cli_parse_unit_positions(const char *cmd, const char *s, uint64_t *out)
{
    char q[DK_QUOTE_MAX];
    long n;
    if (!cli_parse_int(s, 1, (long)DK_SETUP_UNIT_MAX, &n))
        return cli_error("%s: --unit-positions, --split-positions and --finish-positions take a whole number of positions from 1 "
                         "to 2^40, got '%s'", cmd, cli_quote(s, q, sizeof q));
    *out = (uint64_t)n;
    return 0;
}

int cli_check_unit_count(const char *cmd, uint64_t positions, uint64_t unit)
{
    if (positions / unit <= DK_SETUP_UNITS_MAX)
        return 0;
    return cli_error("%s: --unit-positions %llu cuts these %llu positions into more than %llu work units; give at "
                     "least %llu", cmd, (unsigned long long)unit, (unsigned long long)positions,
                     (unsigned long long)DK_SETUP_UNITS_MAX, (unsigned long long)(positions / DK_SETUP_UNITS_MAX + 1));
}

int cli_parse_per_side(const char *cmd, const dk_variant *v, const char *s, int *out)
{
    char q[DK_QUOTE_MAX];
    long n;
    if (!cli_parse_int(s, 1, v->men_per_side, &n))
        return cli_error("%s: --per-side must be a whole number from 1 to %d (%s), got '%s'", cmd, v->men_per_side,
                         v->name, cli_quote(s, q, sizeof q));
    *out = (int)n;
    return 0;
}

int cli_run_finish(const char *cmd, const cli_run_args *a, dk_gen_options *o, dk_material *mats, int cap)
{
    char q[DK_QUOTE_MAX];
    long n;
    if (!a->pieces == !a->materials)
        return cli_error("%s: give either --pieces N or --materials LIST", cmd);
    if (a->pieces) {
        if (!cli_parse_int(a->pieces, 2, dk_material_max_pieces(o->v), &n))
            return cli_error("%s: --pieces must be a whole number from 2 to %d (%s), got '%s'", cmd,
                             dk_material_max_pieces(o->v), o->v->name, cli_quote(a->pieces, q, sizeof q));
        o->pieces = (int)n;
    }
    if (a->per_side && !a->pieces)
        return cli_error("%s: --per-side needs --pieces", cmd);
    if (a->per_side && cli_parse_per_side(cmd, o->v, a->per_side, &o->per_side) != 0)
        return 2;
    if (a->materials) {
        int k = parse_materials(cmd, o->v, a->materials, mats, cap);
        if (k < 0)
            return 2;
        o->only = mats;
        o->nonly = (size_t)k;
    }
    o->rule_limit = 2 * (unsigned)o->v->draw_rule_moves;
    if (a->rule) {
        if (!cli_parse_int(a->rule, 0, DK_RULE_MAX_LIMIT / 2, &n))
            return cli_error("%s: --draw-rule must be a whole number of moves a player from 0 (no "
                             "rule-aware tables) to %d, got '%s'", cmd, DK_RULE_MAX_LIMIT / 2, cli_quote(a->rule, q, sizeof q));
        o->rule_limit = 2 * (unsigned)n;
    }
    /* 0 is no budget the user can mean: unsaid, the budget is the node's share (o->memory_per_rank 0) */
    if (a->memory && (dk_budget_parse_size(a->memory, &o->memory_per_rank) != 0 || o->memory_per_rank == 0))
        return cli_error("%s: --memory-per-rank must be a size above 0 such as 2G, 512M or 3000000000, got '%s'", cmd,
                         cli_quote(a->memory, q, sizeof q));
    if (a->split && cli_parse_unit_positions(cmd, a->split, &o->split_positions) != 0)
        return 2;
    if (a->finish && cli_parse_unit_positions(cmd, a->finish, &o->finish_positions) != 0)
        return 2;
    if (a->unit && cli_parse_unit_positions(cmd, a->unit, &o->unit_positions) != 0)
        return 2;
    return o->unit_positions ? cli_check_unit_count(cmd, dk_setup_target_positions(o), o->unit_positions) : 0;
}
