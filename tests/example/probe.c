/* What an engine author writes to use libdamka: open the tables, read a FEN, probe it, list the
 * moves best first. Built against the installed library by tests/install.sh:
 *
 *     cc probe.c $(pkg-config --cflags --libs damka) -o probe
 *     ./probe TABLE_DIR [VARIANT] FEN
 *
 * Prints the WLD result (the .wld files), then the position and every move in the form of
 * `damka query` (the .dtw files): "FEN  win 5 (White to move)", then "  c3-d4   loss 4". */
#include <damka.h>
#include <stdio.h>
#include <stdlib.h>

static void print_value(damka_value v)
{
    if (v.wdl == DAMKA_DRAW)
        printf("draw");
    else
        printf("%s %d", v.wdl == DAMKA_WIN ? "win" : "loss", v.dtw);
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
    static damka_move_value moves[DAMKA_MAX_MOVES];
    int n = 0;
    char canon[256];
    if ((st = damka_position_from_fen(tb, fen, &pos)) != DAMKA_OK ||
        (st = damka_probe_wdl(tb, &pos, &wdl)) != DAMKA_OK ||
        (st = damka_probe_dtw(tb, &pos, &dtw)) != DAMKA_OK ||
        (st = damka_rank_moves(tb, &pos, moves, DAMKA_MAX_MOVES, &n)) != DAMKA_OK ||
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
    printf(" (%s to move)\n", pos.black_to_move ? "Black" : "White");
    for (int i = 0; i < n; i++) {
        printf("  %-16s ", moves[i].notation);
        print_value(moves[i].value);
        printf("\n");
    }
    damka_close(tb);
    return 0;
}
