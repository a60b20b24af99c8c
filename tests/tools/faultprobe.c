/* tests/faults.sh's helper: libdamka opening and probing, to be run under the fault-injection
 * library (tests/faults/faultinject.c) and compared with a run without faults.
 *
 * Usage: faultprobe DIR PIECES COUNT [CACHE_MB]. Opens DIR (Brazilian) through damka_open with a
 * small cache (default 1 MiB, so that blocks are dropped and read again), then probes COUNT
 * positions drawn by a fixed generator (2 to PIECES pieces, either side to move) with
 * damka_probe_wdl, damka_probe_dtw, damka_probe_rule (counter 0) and damka_rank_moves, and
 * prints one line per probe, "FEN KIND ANSWER": the value, or the status in brackets when the
 * probe failed. The positions do not depend on the answers, so the lines of a run under faults
 * pair with those of a run without: faults.sh checks that every answer given is the right one.
 * Prints "open [STATUS]" and stops if damka_open fails. Exit status 0 unless the arguments are
 * bad. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../query/damka.h"

static uint64_t state = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* A legal Brazilian position of 2 to `pieces` pieces, each side with at least one. */
static damka_position random_position(const damka_tb *tb, int pieces)
{
    for (;;) {
        damka_position p = {0, 0, 0, (int)(next() & 1)};
        int n = 2 + (int)(next() % (uint64_t)(pieces - 1));
        for (int i = 0; i < n; i++) {
            uint64_t sq = (uint64_t)1 << (next() % 32);
            if ((p.white | p.black) & sq)
                continue;
            if (i == 0 || (i > 1 && next() & 1))
                p.white |= sq;
            else
                p.black |= sq;
            if (next() % 3 == 0)
                p.kings |= sq;
        }
        char fen[128];
        if (p.white && p.black && damka_position_to_fen(tb, &p, fen, sizeof fen) == DAMKA_OK)
            return p;
    }
}

/* "FEN KIND VALUE": the value, or the status in brackets. */
static void print_value(const char *fen, const char *kind, damka_status st, damka_value v)
{
    printf("%s %s", fen, kind);
    if (st != DAMKA_OK)
        printf(" [%s]\n", damka_status_text(st));
    else if (v.wdl == DAMKA_DRAW)
        printf(" draw\n");
    else
        printf(" %s %d\n", v.wdl == DAMKA_WIN ? "win" : "loss", v.dtw);
}

int main(int argc, char **argv)
{
    int pieces = argc >= 4 ? atoi(argv[2]) : 0;
    if ((argc != 4 && argc != 5) || pieces < 2 || pieces > 8) {
        fprintf(stderr, "usage: faultprobe DIR PIECES COUNT [CACHE_MB]\n");
        return 2;
    }
    long count = atol(argv[3]);
    size_t cache_mb = argc == 5 ? (size_t)atol(argv[4]) : 1;
    damka_status st;
    damka_tb *tb = damka_open(argv[1], "brazilian", cache_mb, &st);
    if (!tb) {
        printf("open [%s]\n", damka_status_text(st));
        return 0;
    }
    printf("open max_pieces %d\n", damka_max_pieces(tb));
    static damka_move_value moves[DAMKA_MAX_MOVES];
    for (long i = 0; i < count; i++) {
        damka_position p = random_position(tb, pieces);
        char fen[128];
        damka_position_to_fen(tb, &p, fen, sizeof fen);
        damka_value v;
        st = damka_probe_wdl(tb, &p, &v);
        print_value(fen, "wdl", st, v);
        st = damka_probe_dtw(tb, &p, &v);
        print_value(fen, "dtw", st, v);
        damka_rule_value r;
        st = damka_probe_rule(tb, &p, 0, &r);
        if (st != DAMKA_OK)
            printf("%s rule [%s]\n", fen, damka_status_text(st));
        else
            printf("%s rule %d %d %d\n", fen, (int)r.category, r.dtc, r.limit);
        int n = 0;
        st = damka_rank_moves(tb, &p, moves, DAMKA_MAX_MOVES, &n);
        printf("%s moves", fen);
        if (st != DAMKA_OK)
            printf(" [%s]", damka_status_text(st));
        for (int k = 0; st == DAMKA_OK && k < n; k++) {
            damka_value m = moves[k].value;
            printf(" %s:%s", moves[k].notation, m.wdl == DAMKA_DRAW ? "draw" : m.wdl == DAMKA_WIN ? "win" : "loss");
            if (m.wdl != DAMKA_DRAW)
                printf("%d", m.dtw);
        }
        printf("\n");
    }
    damka_close(tb);
    return 0;
}
