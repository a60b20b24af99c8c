/* What an engine author writes to use libdamka: open the tables, read a FEN, probe it, list the
 * moves best first. Built against the installed library by tests/install.sh:
 *
 *     cc probe.c $(pkg-config --cflags --libs damka) -o probe
 *     ./probe TABLE_DIR [VARIANT] FEN
 *
 * Prints the WLD result (the .wld files), then the position and every move in the form of
 * `damka query` (the .dtw files, and the .dtc files when the tables follow a draw rule): "FEN
 * win in 5 plies (White to move) · 15-move rule: win, 3 plies to conversion", then "  c3-d4
 * loss in 4 plies · rule: loss, 2 plies to conversion", moves best first under the rule. */
#include <damka.h>
#include <stdio.h>
#include <stdlib.h>

/* "win in 3 plies", "loss in 1 ply", "draw", into buf. */
static const char *value_text(damka_value v, char *buf, size_t len)
{
    if (v.wdl == DAMKA_DRAW)
        snprintf(buf, len, "draw");
    else
        snprintf(buf, len, "%s in %d %s", v.wdl == DAMKA_WIN ? "win" : "loss", v.dtw, v.dtw == 1 ? "ply" : "plies");
    return buf;
}

static void print_value(damka_value v)
{
    char text[32];
    printf("%s", value_text(v, text, sizeof text));
}

/* The value under the draw rule as damka query words it (brief: for a move). */
static void print_rule(damka_rule_value r, int brief)
{
    char rule[64];
    int draw_kind = r.category == DAMKA_RULE_CURSED_WIN || r.category == DAMKA_RULE_BLESSED_LOSS;
    const char *kind = r.category == DAMKA_RULE_CURSED_WIN ? "cursed win" : "blessed loss";
    if (brief && draw_kind) {
        printf("rule: %s (draw)", kind);
        return;
    }
    if (brief)
        snprintf(rule, sizeof rule, "rule");
    else if (r.counter)
        snprintf(rule, sizeof rule, "%d-move rule (counter %d)", r.limit / 2, r.counter);
    else
        snprintf(rule, sizeof rule, "%d-move rule", r.limit / 2);
    if (draw_kind)
        printf("%s: a draw under the %s", kind, rule);
    else if (r.category == DAMKA_RULE_DRAW)
        printf("%s: draw", rule);
    else
        printf("%s: %s, %d %s to conversion", rule, r.category == DAMKA_RULE_WIN ? "win" : "loss",
               r.dtc, r.dtc == 1 ? "ply" : "plies");
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s TABLE_DIR [VARIANT] FEN\n", argv[0]);
        return 2;
    }
    const char *variant = argc == 4 ? argv[2] : "brazilian", *fen = argv[argc - 1];
    damka_status st;
    damka_tb *tb = damka_open(argv[1], variant, 16, &st);
    if (!tb) {
        fprintf(stderr, "probe: %s: %s\n", damka_status_text(st), damka_last_error());
        return 1;
    }
    damka_position pos;
    damka_value wdl, dtw;
    damka_rule_value rule;
    static damka_move_value moves[DAMKA_MAX_MOVES];
    static damka_rule_move rule_moves[DAMKA_MAX_MOVES];
    int n = 0, limit = damka_draw_rule(tb); /* 0: tables made without a draw rule */
    char canon[256];
    if ((st = damka_position_from_fen(tb, fen, &pos)) != DAMKA_OK ||
        (st = damka_probe_wdl(tb, &pos, &wdl)) != DAMKA_OK ||
        (st = damka_probe_dtw(tb, &pos, &dtw)) != DAMKA_OK ||
        (limit && (st = damka_probe_rule(tb, &pos, 0, &rule)) != DAMKA_OK) ||
        (st = limit ? damka_rank_moves_rule(tb, &pos, 0, rule_moves, DAMKA_MAX_MOVES, &n)
                    : damka_rank_moves(tb, &pos, moves, DAMKA_MAX_MOVES, &n)) != DAMKA_OK ||
        (st = damka_position_to_fen(tb, &pos, canon, sizeof canon)) != DAMKA_OK) {
        fprintf(stderr, "probe: %s: %s\n", damka_status_text(st), damka_last_error());
        damka_close(tb);
        return 1;
    }
    printf("wdl: %s (tables up to %d pieces)\n",
           wdl.wdl == DAMKA_WIN ? "win" : wdl.wdl == DAMKA_LOSS ? "loss" : "draw",
           damka_max_pieces(tb));
    printf("%s  ", canon);
    print_value(dtw);
    printf(" (%s to move)", pos.black_to_move ? "Black" : "White");
    if (limit) {
        printf(" \xc2\xb7 ");
        print_rule(rule, 0);
    }
    printf("\n");
    if (n == 0)
        printf("  no legal move: %s has lost\n", pos.black_to_move ? "Black" : "White");
    for (int i = 0; i < n; i++) {
        const damka_move_value *m = limit ? &rule_moves[i].move : &moves[i];
        printf("  %-16s ", m->notation);
        if (!limit) {
            print_value(m->value);
            printf("\n");
            continue;
        }
        char gt[32];
        printf("%-15s \xc2\xb7 ", value_text(m->value, gt, sizeof gt));
        print_rule(rule_moves[i].rule, 1);
        printf("\n");
    }
    damka_close(tb);
    return 0;
}
