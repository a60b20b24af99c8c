/* damka: endgame tablebases for Brazilian and International draughts. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} commands[] = {
    {"perft", cmd_perft, "perft [--variant V] [--divide] [FEN] DEPTH   count leaf positions"},
    {"info", cmd_info, "info [--variant V] --pieces N [--per-side K] [--unit-positions P] [--json]\n"
                       "                                               materials, sizes, work units"},
    {"moves", cmd_moves, "moves [--variant V] [--json] FEN             list the legal moves"},
    {"gen", cmd_gen, "gen [--variant V] (--pieces N [--per-side K] | --materials LIST) --out DIR\n"
                     "          [--draw-rule MOVES] [--memory-per-rank SIZE] [--unit-positions P]\n"
                     "          [--quiet] [--keep-work] [--dictionary]\n"
                     "                                               generate tables (mpirun -np K for K ranks);\n"
                     "                                               the draw rule: 15 moves (8x8), 25 (10x10), 0 none"},
    {"plan", cmd_plan, "plan [--variant V] (--pieces N [--per-side K] | --materials LIST) --ranks R\n"
                       "          [--draw-rule MOVES] [--memory-per-rank SIZE] [--unit-positions P]\n"
                       "          [--rate POSITIONS_PER_S] [--json]\n"
                       "                                               forecast gen on R ranks: wall time, critical\n"
                       "                                               path, memory, disk (plan --help: definitions)"},
    {"verify", cmd_verify, "verify [--variant V] [--threads T] DIR      check every table"},
    {"stats", cmd_stats, "stats [--variant V] [--json] DIR             table statistics"},
    {"query", cmd_query, "query [--variant V] [--tables DIR] [--counter PLIES] [--json] (FEN | --batch [FILE])\n"
                         "                                               value of a position and of every move,\n"
                         "                                               also under the draw rule at a counter"},
};

static void usage(FILE *f)
{
    fputs("usage: damka COMMAND [OPTIONS]\n"
          "variants: brazilian (default, 8x8, GameType 26), international (10x10, GameType 20)\n"
          "commands:\n",
          f);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  damka %s\n", commands[i].usage);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_error("missing command (try 'damka --help')");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
        return usage(stdout), 0;
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    return cli_error("unknown command '%s' (try 'damka --help')", argv[1]);
}
