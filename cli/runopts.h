/* The options that say which run `damka gen` makes and `damka plan` forecasts: the variant,
 * the tables (--pieces, --per-side, --materials), the draw rule, a rank's memory and the unit
 * bound. One parser for both commands, so that plan sees the run gen would make. */
#ifndef DK_RUNOPTS_H
#define DK_RUNOPTS_H

#include <stdbool.h>

#include "../gen/generate.h"

/* The values given, unchecked (NULL: not given). */
typedef struct cli_run_args {
    const char *pieces, *per_side, *materials, *rule, *memory, *unit;
} cli_run_args;

/* If argv[*i] is one of the run options (--variant, --pieces, --per-side, --materials,
 * --draw-rule, --memory-per-rank, --unit-positions; --unit-size is its old name), records it in
 * *a or o->v and advances *i; returns whether it consumed the option. A missing value or an
 * unknown variant sets *status to 2 after one line on stderr. */
bool cli_run_option(int argc, char **argv, int *i, cli_run_args *a, dk_gen_options *o, int *status);

/* Checks what cli_run_option recorded and fills o (o->v already set): exactly one of --pieces
 * and --materials, whose materials go to mats (room for cap); the draw rule (default: the
 * variant's); the memory per rank and unit bound (0 when not given). `cmd` names the command in
 * messages. Returns 0, or 2 after one line on stderr. */
int cli_run_finish(const char *cmd, const cli_run_args *a, dk_gen_options *o, dk_material *mats, int cap);

/* Parses the value of --unit-positions for command `cmd`: a whole number from 1 to 2^40.
 * Returns 0, or 2 after one line on stderr. */
int cli_parse_unit_positions(const char *cmd, const char *s, uint64_t *out);

#endif
