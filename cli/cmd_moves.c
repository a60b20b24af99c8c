/* damka moves: the legal moves of a position, as text or JSON. */
#include <stdio.h>
#include <string.h>

#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "cli.h"

static void print_json(const dk_variant *v, const dk_movelist *list)
{
    putchar('[');
    for (int i = 0; i < list->n; i++) {
        const dk_move *m = &list->m[i];
        char text[DK_MOVE_TEXT_MAX];
        dk_move_format(v, list, i, v->algebraic, text, sizeof text);
        printf("%s\n {\"from\": %d, \"to\": %d, \"captures\": [", i ? "," : "", m->from + 1, m->to + 1);
        const char *sep = "";
        for (dk_bb c = m->captures; c; c &= c - 1, sep = ", ")
            printf("%s%d", sep, dk_lsb(c) + 1);
        printf("], \"promotes\": %s, \"notation\": \"%s\"}", m->promotes ? "true" : "false", text);
    }
    puts(list->n ? "\n]" : "]");
}

int cmd_moves(int argc, char **argv)
{
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    bool json = false;
    const char *fen = NULL;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_variant_option(argc, argv, &i, &v, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (cli_is_option(argv[i])) {
            return cli_error("moves: unknown option '%s'", argv[i]);
        } else if (!fen) {
            fen = argv[i];
        } else {
            return cli_error("moves: too many arguments (usage: moves [--variant V] [--json] FEN)");
        }
    }
    if (!fen)
        return cli_error("moves: missing FEN (usage: moves [--variant V] [--json] FEN)");
    dk_pos p;
    if (!cli_parse_fen(v, fen, &p))
        return 2;
    dk_movelist list;
    dk_gen_moves(v, &p, &list);
    if (json) {
        print_json(v, &list);
        return 0;
    }
    for (int i = 0; i < list.n; i++) {
        char text[DK_MOVE_TEXT_MAX];
        dk_move_format(v, &list, i, v->algebraic, text, sizeof text);
        puts(text);
    }
    return 0;
}
