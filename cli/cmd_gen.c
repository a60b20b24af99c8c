/* damka gen: generate every table up to N pieces; one process or `mpirun -np K damka gen`. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gen/generate.h"
#include "../query/drawrule.h"
#include "../query/tablebase.h"
#include "cli.h"

static const char USAGE[] =
    "usage: gen [--variant V] (--pieces N [--per-side K] | --materials LIST) --out DIR "
    "[--draw-rule MOVES] [--quiet] [--keep-work] [--dictionary] [--unit-size POSITIONS]";

/* Parses "2m1k-0m1k,1m1k-1m0k" into at most cap materials; returns how many, or -1. */
static int parse_materials(const dk_variant *v, const char *list, dk_material *out, int cap)
{
    int n = 0;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -1;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == cap || dk_material_parse(tok, &out[n]) != 0 || !dk_material_valid(v, out[n]) ||
            dk_material_pieces(out[n]) > DK_TB_MAX_PIECES) {
            cli_error("gen: '%s' is not a %s material of at most %d pieces (write it as 2m1k-0m1k: "
                      "white men, white kings, black men, black kings)",
                      tok, v->name, DK_TB_MAX_PIECES);
            free(copy);
            return -1;
        }
        n++;
    }
    free(copy);
    if (n == 0)
        cli_error("gen: --materials needs at least one material");
    return n ? n : -1;
}

static int parse_args(int argc, char **argv, dk_gen_options *o, dk_material *mats, int cap)
{
    const char *pieces = NULL, *per_side = NULL, *materials = NULL, *unit = NULL, *rule = NULL;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_variant_option(argc, argv, &i, &o->v, &status) ||
            cli_option_value(argc, argv, &i, "--out", &o->dir, &status) ||
            cli_option_value(argc, argv, &i, "--pieces", &pieces, &status) ||
            cli_option_value(argc, argv, &i, "--per-side", &per_side, &status) ||
            cli_option_value(argc, argv, &i, "--materials", &materials, &status) ||
            cli_option_value(argc, argv, &i, "--unit-size", &unit, &status) ||
            cli_option_value(argc, argv, &i, "--draw-rule", &rule, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            o->quiet = true;
        } else if (strcmp(argv[i], "--keep-work") == 0) {
            o->keep_work = true;
        } else if (strcmp(argv[i], "--dictionary") == 0) {
            o->dictionary = true;
        } else {
            return cli_error("gen: unexpected argument '%s' (%s)", argv[i], USAGE);
        }
    }
    long n;
    if (!o->dir || !*o->dir)
        return cli_error("gen: --out DIR is required (%s)", USAGE);
    if (!pieces == !materials)
        return cli_error("gen: give either --pieces N or --materials LIST (%s)", USAGE);
    if (pieces) {
        if (!cli_parse_int(pieces, 2, DK_TB_MAX_PIECES, &n))
            return cli_error("gen: --pieces must be a whole number from 2 to %d, got '%s'",
                             DK_TB_MAX_PIECES, pieces);
        o->pieces = (int)n;
    }
    if (per_side) {
        if (!pieces || !cli_parse_int(per_side, 1, o->v->men_per_side, &n))
            return cli_error("gen: --per-side needs --pieces and a whole number from 1 to %d",
                             o->v->men_per_side);
        o->per_side = (int)n;
    }
    if (materials) {
        int k = parse_materials(o->v, materials, mats, cap);
        if (k < 0)
            return 2;
        o->only = mats;
        o->nonly = (size_t)k;
    }
    o->rule_limit = 2 * (unsigned)o->v->draw_rule_moves;
    if (rule) {
        if (!cli_parse_int(rule, 0, DK_RULE_MAX_LIMIT / 2, &n))
            return cli_error("gen: --draw-rule must be a whole number of moves a player from 0 (no "
                             "rule-aware tables) to %d, got '%s'", DK_RULE_MAX_LIMIT / 2, rule);
        o->rule_limit = 2 * (unsigned)n;
    }
    if (unit) {
        if (!cli_parse_int(unit, 1, 1L << 40, &n))
            return cli_error("gen: --unit-size must be a whole number of positions, got '%s'", unit);
        o->unit_positions = (uint64_t)n;
    }
    return 0;
}

int cmd_gen(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0 && !freopen("/dev/null", "w", stderr)) /* rank 0 speaks for the job */
        return 1;
    dk_gen_options o = {dk_variant_get(DK_BRAZILIAN), 0, 0, NULL, 0, NULL, (uint64_t)1 << 22,
                        false, false, false, 0};
    dk_material mats[256];
    int status = parse_args(argc, argv, &o, mats, 256);
    if (status == 0 && provided < MPI_THREAD_FUNNELED)
        status = cli_error("gen: this MPI library does not support threads (MPI_THREAD_FUNNELED)");
    if (status == 0)
        status = dk_generate(&o);
    MPI_Finalize();
    return status;
}
