/* Shared pieces of the damka subcommands: errors, the --variant option, FEN arguments. */
#ifndef DK_CLI_H
#define DK_CLI_H

#include <stdbool.h>
#include "../rules/position.h"

/* Prints "damka: <message>" as one line on stderr; returns the exit status 2 (bad input). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* If argv[*i] is "--variant V" or "--variant=V", sets *v (exit status in *status on an unknown
 * variant) and advances *i; returns whether it consumed the option. */
bool cli_variant_option(int argc, char **argv, int *i, const dk_variant **v, int *status);

/* If argv[*i] is option `name` with a value ("--out DIR" or "--out=DIR"), sets *value and
 * advances *i; a missing value sets *status to 2 after printing one line. Returns whether it
 * consumed the option. */
bool cli_option_value(int argc, char **argv, int *i, const char *name, const char **value,
                      int *status);

/* Parses a FEN argument for variant v; on error prints one line and returns false. */
bool cli_parse_fen(const dk_variant *v, const char *fen, dk_pos *p);

/* Parses a whole non-negative decimal number within [lo, hi]; returns false otherwise. */
bool cli_parse_int(const char *s, long lo, long hi, long *out);

/* Whether a string looks like an option ("-x", "--xyz"). */
static inline bool cli_is_option(const char *s) { return s[0] == '-' && s[1] != 0; }

int cmd_perft(int argc, char **argv);
int cmd_moves(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_query(int argc, char **argv);

#endif
