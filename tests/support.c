#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../index/material.h"
#include "../rules/notation.h"

void test_fail_at(const dk_variant *v, const dk_pos *p, const char *what)
{
    char fen[DK_FEN_MAX];
    dk_fen_format(v, p, v->algebraic, fen, sizeof fen);
    fail_msg("%s: %s", fen, what);
}

dk_value test_value(dk_tablebase *tb, const dk_variant *v, const dk_pos *p, dk_metric metric)
{
    dk_value x = 0;
    if (dk_tb_probe(tb, p, metric, &x) != DK_OK)
        test_fail_at(v, p, dk_tb_last_error());
    return x;
}

uint64_t test_rand(test_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t test_rand_below(test_rng *r, uint64_t n) { return test_rand(r) % n; }

dk_pos test_random_pos(const dk_variant *v, test_rng *r, int pieces, int king_pct)
{
    dk_pos p = {{0, 0}, 0, (int)(test_rand(r) & 1)};
    for (int placed = 0; placed < pieces;) {
        int c = (int)(test_rand(r) & 1);
        if (dk_popcount(p.pieces[c]) >= v->men_per_side)
            c ^= 1;
        bool king = (int)test_rand_below(r, 100) < king_pct;
        int s = (int)test_rand_below(r, (uint64_t)v->nsq);
        if ((dk_occupied(&p) & dk_bit(s)) || (!king && !(v->man_ok[c] & dk_bit(s))))
            continue;
        p.pieces[c] |= dk_bit(s);
        if (king)
            p.kings |= dk_bit(s);
        placed++;
    }
    return p;
}

dk_pos test_random_material_pos(const dk_variant *v, test_rng *r, dk_material m, int side)
{
    dk_pos p = {{0, 0}, 0, side};
    const int counts[4] = {m.wm, m.wk, m.bm, m.bk};
    for (int g = 0; g < 4; g++) {
        int colour = g / 2;
        bool king = g % 2;
        for (int k = 0; k < counts[g];) {
            dk_bb b = dk_bit((int)test_rand_below(r, (uint64_t)v->nsq));
            if ((dk_occupied(&p) & b) || (!king && !(v->man_ok[colour] & b)))
                continue;
            p.pieces[colour] |= b;
            if (king)
                p.kings |= b;
            k++;
        }
    }
    return p;
}

size_t test_materials(const dk_variant *v, int pieces, dk_material **out)
{
    size_t n = dk_material_list(v, pieces, 0, NULL, 0);
    *out = malloc(n * sizeof **out);
    if (*out)
        dk_material_list(v, pieces, 0, *out, n);
    return n;
}

double test_scale(void)
{
    const char *s = getenv("DK_TEST_SCALE");
    double f = s ? atof(s) : 1.0;
    return f > 0 ? f : 1.0;
}

long test_env_count(const char *name, long dflt)
{
    const char *s = getenv(name);
    return s && *s ? atol(s) : dflt;
}

dk_workgraph *test_graph(dk_variant_id id, int pieces, uint64_t unit_positions)
{
    const dk_variant *v = dk_variant_get(id);
    dk_material *ms;
    size_t n = test_materials(v, pieces, &ms);
    dk_workgraph *g = ms ? dk_workgraph_build(v, ms, n, unit_positions) : NULL;
    free(ms);
    return g;
}

int test_open_tables(const dk_variant *v, dk_tablebase **tb)
{
    const char *dir = getenv("DK_TABLES");
    *tb = NULL;
    if (!dir || !*dir)
        return 0;
    *tb = dk_tb_open(dir, v, NULL);
    return *tb ? 0 : -1;
}
