#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/notation.h"

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
    return cli_error("%s: unknown option '%s' (damka %s --help lists them)", c->name, arg, c->name);
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
        *status = cli_error("%s needs a value", name);
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
    *v = dk_variant_find(name);
    if (!*v)
        *status = cli_error("unknown variant '%s' (brazilian, international, russian, 26, 20 or 25)", name);
    return true;
}

bool cli_parse_fen(const dk_variant *v, const char *fen, dk_pos *p)
{
    char err[DK_ERR_MAX];
    if (dk_fen_parse(v, fen, p, err, sizeof err) == 0)
        return true;
    cli_error("bad FEN '%s' for %s: %s", fen, v->name, err);
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
