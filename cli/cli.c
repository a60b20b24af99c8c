#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/errors.h"
#include "../rules/notation.h"

/* The command running (main sets it), which names itself in the errors of the shared option
 * parsers; NULL before one is chosen. The process parses its options on one thread. */
static const cli_command *running;

void cli_set_command(const cli_command *c) { running = c; }

/* "damka: NAME: <message>" (just "damka: <message>" before a command is chosen); returns 2. */
static int command_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int command_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "damka: %s%s", running ? running->name : "", running ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_BAD_INPUT;
}

const char *cli_quote(const char *s, char *buf, size_t len) { return dk_quote(s, strlen(s), buf, len); }

static void print_error(const char *fmt, va_list ap)
{
    fputs("damka: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_error(fmt, ap);
    va_end(ap);
    return CLI_BAD_INPUT;
}

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_error(fmt, ap);
    va_end(ap);
    return CLI_FAILED;
}

void cli_print_usage(const cli_command *c, const char *prefix, FILE *f)
{
    int indent = (int)(strlen(prefix) + strlen(c->name) + 1);
    fprintf(f, "%s%s ", prefix, c->name);
    for (const char *s = c->usage; *s; s++) {
        fputc(*s, f);
        if (*s == '\n')
            fprintf(f, "%*s", indent, "");
    }
    fputc('\n', f);
}

void cli_print_help(const cli_command *c, FILE *f)
{
    cli_print_usage(c, "usage: damka ", f);
    fprintf(f, "\n%s\noptions:\n%s  -h, --help             this text\n", c->about, c->options);
}

int cli_usage_error(const cli_command *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "damka: %s: ", c->name);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (usage: damka %s ", c->name);
    for (const char *s = c->usage; *s; s++)
        fputc(*s == '\n' ? ' ' : *s, stderr);
    fputs(")\n", stderr);
    return CLI_BAD_INPUT;
}

int cli_unknown_option(const cli_command *c, const char *arg)
{
    char q[DK_QUOTE_MAX];
    return cli_error("%s: unknown option '%s' (damka %s --help lists them)", c->name, cli_quote(arg, q, sizeof q),
                     c->name);
}

bool cli_option_value(int argc, char **argv, int *i, const char *name, const char **value,
                      int *status)
{
    size_t n = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, n) != 0 || (arg[n] != 0 && arg[n] != '='))
        return false;
    if (arg[n] == '=') {
        *value = arg + n + 1;
    } else if (*i + 1 < argc) {
        *value = argv[++*i];
    } else {
        *status = command_error("%s needs a value", name);
        *value = NULL;
    }
    return true;
}

bool cli_variant_option(int argc, char **argv, int *i, const dk_variant **v, int *status)
{
    const char *name;
    if (!cli_option_value(argc, argv, i, "--variant", &name, status))
        return false;
    if (!name)
        return true;
    char q[DK_QUOTE_MAX];
    *v = dk_variant_find(name);
    if (!*v)
        *status = command_error("unknown variant '%s' (brazilian, international, russian, 26, 20 or 25)",
                                cli_quote(name, q, sizeof q));
    return true;
}

bool cli_parse_fen(const dk_variant *v, const char *fen, dk_pos *p)
{
    char err[DK_ERR_MAX], q[DK_QUOTE_MAX];
    if (!dk_verdict_refused(dk_fen_read(v, fen, strlen(fen), p, err, sizeof err)))
        return true;
    command_error("bad FEN '%s' for %s: %s", cli_quote(fen, q, sizeof q), v->name, err);
    return false;
}

bool cli_parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (errno || end == s || *end || n < lo || n > hi || s[0] == '-' || s[0] == '+' || s[0] == ' ')
        return false;
    *out = n;
    return true;
}

bool cli_readable_dir(const char *name, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        char q[DK_QUOTE_MAX];
        cli_error("%s: cannot read directory %s: %s", name, cli_quote(dir, q, sizeof q), strerror(errno));
        return false;
    }
    closedir(d);
    return true;
}
