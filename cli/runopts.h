/* The options that say which run `damka gen` makes and `damka plan` forecasts: the variant,
 * the tables (--pieces, --per-side, --materials), the draw rule, a rank's memory and the unit
 * bound. One parser for both commands, so that plan sees the run gen would make. */
#ifndef DK_RUNOPTS_H
#define DK_RUNOPTS_H

#include <stdbool.h>

#include "../gen/run/options.h"

/* The run options in a command's help (cli_command.options), after --variant. */
#define RUN_OPTIONS_HELP                                                                           \
    "  --pieces N             every material of 2 to N pieces (N up to 10 on 8x8, 9 on 10x10)\n"   \
    "  --per-side K           with --pieces: at most K pieces a side (1 to 12 on 8x8, 20 on 10x10)\n"                             \
    "  --materials LIST       these materials and what they need instead (2m1k-0m1k,1m1k-1m1k:\n"  \
    "                         white men, white kings, black men, black kings; White to move)\n"    \
    "  --draw-rule MOVES      the draw rule's limit in moves a player (default 15 on 8x8, 25 on\n" \
    "                         10x10; 0: no rule-aware .dtc tables)\n"                               \
    "  --memory-per-rank SIZE what a rank may hold (8G, 512M, bytes; default the node's memory\n"   \
    "                         divided by the ranks on it)\n"                                        \
    "  --unit-positions P     at most P positions a work unit (default 4194304, lowered to fit the\n" \
    "                         memory; for runs of 9 pieces and more doubled while the positions\n" \
    "                         are above 131072 units, as far as half the memory holds)\n"         \
    "  --split-positions P    a single subslice above P positions and the unit bound is solved by\n" \
    "                         every rank together (default: what half a rank's memory holds)\n" \
    "  --finish-positions P   a pair of more than P table entries is finished in parts of at most\n" \
    "                         P positions, by any ranks (default: what a unit's memory holds)\n"

/* The values given, unchecked (NULL: not given). */
typedef struct cli_run_args {
    const char *pieces, *per_side, *materials, *rule, *memory, *unit, *split, *finish;
} cli_run_args;

/* If argv[*i] is one of the run options (--variant, --pieces, --per-side, --materials,
 * --draw-rule, --memory-per-rank, --unit-positions, --split-positions, --finish-positions), records it in
 * *a or o->v and advances *i; returns whether it consumed the option. A missing value or an
 * unknown variant sets *status to 2 after one line on stderr. */
bool cli_run_option(int argc, char **argv, int *i, cli_run_args *a, dk_gen_options *o, int *status);

/* Checks what cli_run_option recorded and fills o (o->v already set): exactly one of --pieces
 * and --materials, whose materials go to mats (room for cap); the draw rule (default: the
 * variant's); the memory per rank and unit bound (0 when not given). `cmd` names the command in
 * messages. Returns 0, or 2 after one line on stderr. */
int cli_run_finish(const char *cmd, const cli_run_args *a, dk_gen_options *o, dk_material *mats, int cap);

/* Checks a unit bound given for a run of `positions` positions: at most DK_SETUP_UNITS_MAX units
 * of it (gen/run/setup.h), so that the work graph stays within memory. Returns 0, or 2 after one line
 * on stderr saying the least bound. */
int cli_check_unit_count(const char *cmd, uint64_t positions, uint64_t unit);

/* Parses the value of --per-side for command `cmd` and variant v: a whole number from 1 to the
 * variant's men a side (12 on 8x8, 20 on 10x10). Returns 0, or 2 after one line on stderr. */
int cli_parse_per_side(const char *cmd, const dk_variant *v, const char *s, int *out);

/* Parses the value of --unit-positions for command `cmd`: a whole number from 1 to 2^40.
 * Returns 0, or 2 after one line on stderr. */
int cli_parse_unit_positions(const char *cmd, const char *s, uint64_t *out);

#endif
