/* damka: endgame tablebases for Brazilian and International draughts. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "../query/damka.h"
#include "../rules/errors.h"
#include "cli.h"

static const cli_command *const commands[] = {
    &cli_perft, &cli_moves, &cli_info, &cli_gen, &cli_plan, &cli_verify, &cli_stats, &cli_compare, &cli_query, &cli_serve,
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

static void usage(FILE *f)
{
    fputs("usage: damka COMMAND [OPTIONS]   (damka COMMAND --help: what the command does and its options)\n"
          "       damka --version           the version of damka and of libdamka (one version)\n"
          "variants: brazilian (default, 8x8, GameType 26), international (10x10, GameType 20),\n"
          "          russian (8x8, GameType 25)\n"
          "commands:\n",
          f);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        cli_print_usage(commands[i], "  damka ", f);
        fprintf(f, "        %s\n", commands[i]->brief);
    }
}

/* One version for damka and libdamka. */
static int print_version(void)
{
    printf("damka %s\n", damka_version());
    return 0;
}

static bool is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

static const cli_command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i]->name) == 0)
            return commands[i];
    return NULL;
}

/* Each table libdamka has open holds a descriptor (three a material: 1,200 for a whole 8-piece
 * set, two variants in one server): the soft limit, often 1,024, goes up to the hard one. */
static void raise_open_files(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r); /* a refusal leaves the limit as it was: no harm */
    }
}

int main(int argc, char **argv)
{
    char q[DK_QUOTE_MAX];
    raise_open_files();
    if (argc < 2)
        return cli_error("missing command (try 'damka --help')");
    if (is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        if (argc > 2 && strcmp(argv[1], "help") == 0) { /* damka help COMMAND */
            const cli_command *c = find(argv[2]);
            if (!c)
                return cli_error("unknown command '%s' (try 'damka --help')", cli_quote(argv[2], q, sizeof q));
            cli_print_help(c, stdout);
            return 0;
        }
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        if (argc > 2)
            return cli_error("--version takes no arguments");
        return print_version();
    }
    const cli_command *c = find(argv[1]);
    if (!c)
        return cli_error("unknown command '%s' (try 'damka --help')", cli_quote(argv[1], q, sizeof q));
    cli_set_command(c);
    /* --help or -h anywhere among the command's arguments: its help, nothing run (gen does
     * not even start MPI); `damka COMMAND --version` as `damka --version` */
    for (int i = 2; i < argc; i++)
        if (is_help(argv[i])) {
            cli_print_help(c, stdout);
            return 0;
        }
    if (argc == 3 && strcmp(argv[2], "--version") == 0)
        return print_version();
    return c->run(argc - 1, argv + 1);
}
