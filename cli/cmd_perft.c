/* damka perft: leaf counts of the move tree, to check move generation. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "../rules/perft.h"
#include "../rules/errors.h"
#include "cli.h"

static int cmd_perft(int argc, char **argv);

const cli_command cli_perft = {
    "perft", cmd_perft, "[--variant V] [--divide] [FEN] DEPTH", "count the leaf positions of the move tree",
    "Counts the positions DEPTH plies (0 to 64) below FEN, the start position by default: the count\n"
    "alone on the last line of stdout, the time and speed on stderr. Checks move generation\n"
    "against the reference numbers of docs/rules.md.\n",
    VARIANT_HELP
    "  --divide               each legal move's count first (in the variant's notation), then\n"
    "                         the total\n",
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmd_perft(int argc, char **argv)
{
    char q[DK_QUOTE_MAX];
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    bool divide = false;
    const char *args[2];
    int nargs = 0, status = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_variant_option(argc, argv, &i, &v, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--divide") == 0) {
            divide = true;
        } else if (cli_is_option(argv[i])) {
            return cli_unknown_option(&cli_perft, argv[i]);
        } else if (nargs < 2) {
            args[nargs++] = argv[i];
        } else {
            return cli_usage_error(&cli_perft, "too many arguments");
        }
    }
    if (nargs == 0)
        return cli_usage_error(&cli_perft, "missing DEPTH");
    long depth;
    if (!cli_parse_int(args[nargs - 1], 0, 64, &depth))
        return cli_error("perft: DEPTH must be a whole number from 0 to 64, got '%s'", cli_quote(args[nargs - 1], q, sizeof q));
    dk_pos p = dk_pos_start(v);
    if (nargs == 2 && !cli_parse_fen(v, args[0], &p))
        return 2;

    double t0 = now();
    uint64_t total = 0;
    if (divide && depth > 0) {
        dk_movelist list;
        dk_gen_moves(v, &p, &list);
        for (int i = 0; i < list.n; i++) {
            dk_pos q = dk_apply(&p, &list.m[i]);
            uint64_t n = dk_perft(v, &q, (int)depth - 1);
            char text[DK_MOVE_TEXT_MAX];
            dk_move_format(v, &list, i, v->algebraic, text, sizeof text);
            printf("%s %llu\n", text, (unsigned long long)n);
            total += n;
        }
    } else {
        total = dk_perft(v, &p, (int)depth);
    }
    double dt = now() - t0;
    printf("%llu\n", (unsigned long long)total);
    fprintf(stderr, "perft %s depth %ld: %llu %s in %.3f s, %.1f M leaves/s\n", v->name, depth,
            (unsigned long long)total, total == 1 ? "leaf" : "leaves", dt, dt > 0 ? total / dt / 1e6 : 0.0);
    return 0;
}
