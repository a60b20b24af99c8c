/* Shared pieces of the damka subcommands: their help, errors, the --variant option, FEN
 * arguments. */
#ifndef DK_CLI_H
#define DK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "../rules/position.h"

/* A subcommand and its help, in one place: `damka --help` lists every command's usage and
 * brief, `damka NAME --help` prints usage, about and options, and a usage error repeats the
 * usage on one line. The usage and the options name every option the command's parser accepts
 * and no other (tests/cli.sh checks both ways, from this text). */
typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;   /* what follows "damka NAME", lines separated by '\n' */
    const char *brief;   /* one line for `damka --help` */
    const char *about;   /* what it does, one or more paragraphs */
    const char *options; /* one line an option ("  --json             one JSON object"), '\n' after each */
} cli_command;

extern const cli_command cli_perft, cli_moves, cli_info, cli_gen, cli_plan, cli_verify, cli_stats, cli_compare, cli_query,
    cli_serve;

/* The --variant line of a command's options. */
#define VARIANT_HELP                                                                               \
    "  --variant V            brazilian (default; 8x8, PDN GameType 26), international (10x10,\n" \
    "                         GameType 20) or russian (8x8, GameType 25); also 26, 20, 25\n"

/* Prints the usage of c after `prefix` ("usage: damka ", "  damka "), continuation lines
 * aligned under the first argument. */
void cli_print_usage(const cli_command *c, const char *prefix, FILE *f);

/* Prints `damka NAME --help`: usage, about, options (with -h, --help). */
void cli_print_help(const cli_command *c, FILE *f);

/* "damka: NAME: <message> (usage: damka NAME ...)" as one line on stderr; returns 2. */
int cli_usage_error(const cli_command *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "damka: NAME: unknown option 'ARG' (damka NAME --help lists them)"; returns 2. */
int cli_unknown_option(const cli_command *c, const char *arg);

/* The exit statuses of every command (docs/cli.md): 0 done (an answer, tables made, every check
 * passed), 1 the command ran and failed or has no answer (not in the tables, a damaged table, a
 * failed check, an I/O error, out of memory), 2 bad usage or input, refused before any work
 * (an unknown option, a malformed or out-of-range value, a FEN that does not parse, a memory
 * budget below what the run needs, a named file or directory that is missing or of the wrong
 * kind). */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_BAD_INPUT = 2 };

/* Makes c the command whose name the shared option parsers' errors start with ("damka: NAME:
 * --tables needs a value"). main calls it before running c. */
void cli_set_command(const cli_command *c);

/* An argument quoted for a message, into buf (DK_QUOTE_MAX bytes, rules/errors.h): control
 * characters escaped, cut after 60 characters with "...". Returns buf. */
const char *cli_quote(const char *s, char *buf, size_t len);

/* Prints "damka: <message>" as one line on stderr; returns CLI_BAD_INPUT. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "damka: <message>" as one line on stderr; returns CLI_FAILED. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* If argv[*i] is "--variant V" or "--variant=V", sets *v (exit status in *status on an unknown
 * variant, after "damka: NAME: unknown variant ..." on stderr) and advances *i; returns whether
 * it consumed the option. */
bool cli_variant_option(int argc, char **argv, int *i, const dk_variant **v, int *status);

/* If argv[*i] is option `name` with a value ("--out DIR" or "--out=DIR"), sets *value and
 * advances *i; a missing value sets *status to 2 after printing one line ("damka: NAME: --out
 * needs a value"). Returns whether it consumed the option. */
bool cli_option_value(int argc, char **argv, int *i, const char *name, const char **value,
                      int *status);

/* Parses a FEN argument for variant v (dk_fen_read: a position, or a side to move without pieces,
 * which has lost); on bad input prints one line ("damka: NAME: bad FEN '...' for V: why", the FEN
 * quoted by cli_quote) and returns false. */
bool cli_parse_fen(const dk_variant *v, const char *fen, dk_pos *p);

/* Whether dir is a directory this process can list; if not, prints one line ("damka: NAME:
 * cannot read directory DIR: why") and returns false. For the commands that read a directory of
 * tables (stats, verify), so that a missing one is said alike. */
bool cli_readable_dir(const char *name, const char *dir);

/* Parses a whole non-negative decimal number within [lo, hi]; returns false otherwise. */
bool cli_parse_int(const char *s, long lo, long hi, long *out);

/* Whether a string looks like an option ("-x", "--xyz"). */
static inline bool cli_is_option(const char *s) { return s[0] == '-' && s[1] != 0; }

#endif
