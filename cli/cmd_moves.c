/* damka moves: the legal moves of a position, as text or JSON. */
#include <stdio.h>
#include <string.h>

#include "../gen/store/json.h"
#include "../rules/movegen.h"
#include "../rules/notation.h"
#include "cli.h"

static int cmd_moves(int argc, char **argv);

const cli_command cli_moves = {
    "moves", cmd_moves, "[--variant V] [--json] FEN", "list the legal moves of a position",
    "Prints the legal moves of FEN, one a line, in the variant's notation: algebraic on 8x8\n"
    "(c3-d4, c3xe5), numeric on 10x10 (32-28, 28x19). Without a legal move it prints one line\n"
    "saying so (the side to move has lost; --json: an empty array).\n",
    VARIANT_HELP
    "  --json                 one JSON array of objects with from, to, captures (numeric squares,\n"
    "                         sorted), promotes and notation\n",
};

static void print_json(const dk_variant *v, const dk_movelist *list)
{
    dk_json w;
    dk_json_start(&w, stdout);
    dk_json_array(&w, NULL);
    for (int i = 0; i < list->n; i++) {
        const dk_move *m = &list->m[i];
        char text[DK_MOVE_TEXT_MAX];
        dk_move_format(v, list, i, v->algebraic, text, sizeof text);
        dk_json_newline(&w, 1);
        dk_json_object(&w, NULL);
        dk_json_u64(&w, "from", m->from + 1u);
        dk_json_u64(&w, "to", m->to + 1u);
        dk_json_array(&w, "captures");
        for (dk_bb c = m->captures; c; c &= c - 1)
            dk_json_u64(&w, NULL, dk_lsb(c) + 1u);
        dk_json_end(&w);
        dk_json_bool(&w, "promotes", m->promotes);
        dk_json_string(&w, "notation", text);
        dk_json_end(&w);
    }
    if (list->n)
        dk_json_newline(&w, 0);
    dk_json_end(&w);
    fputc('\n', stdout);
}

static int cmd_moves(int argc, char **argv)
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
            return cli_unknown_option(&cli_moves, argv[i]);
        } else if (!fen) {
            fen = argv[i];
        } else {
            return cli_usage_error(&cli_moves, "too many arguments");
        }
    }
    if (!fen)
        return cli_usage_error(&cli_moves, "missing FEN");
    dk_pos p;
    if (!cli_parse_fen(v, fen, &p))
        return 2;
    dk_movelist list;
    dk_gen_moves(v, &p, &list);
    if (json) {
        print_json(v, &list);
        return 0;
    }
    if (list.n == 0)
        printf("no legal move: %s, to move, has lost\n", p.side == DK_WHITE ? "White" : "Black");
    for (int i = 0; i < list.n; i++) {
        char text[DK_MOVE_TEXT_MAX];
        dk_move_format(v, &list, i, v->algebraic, text, sizeof text);
        puts(text);
    }
    return 0;
}
