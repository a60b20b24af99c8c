#include "variant.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static dk_variant variants[DK_NVARIANTS];
static pthread_once_t variants_once = PTHREAD_ONCE_INIT;

static int square_at(int size, int r, int c)
{
    if (r < 0 || c < 0 || r >= size || c >= size || ((r + c) & 1) == 0)
        return -1;
    return r * (size / 2) + c / 2;
}

/* What sets a variant apart from the others; build() derives the geometry from it. */
typedef struct rules {
    dk_variant_id id;
    const char *name;
    int gametype, size;
    bool algebraic;
    int draw_rule_moves;
    bool majority, crown_in_capture;
} rules;

static void build(dk_variant *v, const rules *r)
{
    static const int dr[4] = {-1, -1, 1, 1}, dc[4] = {-1, 1, -1, 1};
    memset(v, 0, sizeof *v);
    int size = r->size;
    v->id = r->id;
    v->name = r->name;
    v->gametype = r->gametype;
    v->size = size;
    v->nsq = size * size / 2;
    v->algebraic = r->algebraic;
    v->draw_rule_moves = r->draw_rule_moves;
    v->majority = r->majority;
    v->crown_in_capture = r->crown_in_capture;
    int half = size / 2;
    int start_rows = (size - 2) / 2;
    v->men_per_side = start_rows * half;
    for (int s = 0; s < v->nsq; s++) {
        int y = s / half, i = s % half;
        int x = (y % 2 == 0) ? 2 * i + 1 : 2 * i;
        v->row[s] = (int8_t)y;
        v->col[s] = (int8_t)x;
        v->all |= dk_bit(s);
        if (y == 0)
            v->promo[DK_WHITE] |= dk_bit(s);
        if (y == size - 1)
            v->promo[DK_BLACK] |= dk_bit(s);
        if (y < start_rows)
            v->start[DK_BLACK] |= dk_bit(s);
        if (y >= size - start_rows)
            v->start[DK_WHITE] |= dk_bit(s);
    }
    for (int s = 0; s < v->nsq; s++) {
        for (int d = 0; d < 4; d++) {
            int y = v->row[s], x = v->col[s];
            v->nb[s][d] = (int8_t)square_at(size, y + dr[d], x + dc[d]);
            for (int t; (t = square_at(size, y += dr[d], x += dc[d])) >= 0;)
                v->ray[s][d] |= dk_bit(t);
        }
    }
    for (int s = 0; s < v->nsq; s++)
        for (int c = 0; c < 2; c++)
            for (int k = 0; k < 2; k++)
                if (v->nb[s][dk_forward_dir(c, k)] >= 0)
                    v->step[c][s] |= dk_bit(v->nb[s][dk_forward_dir(c, k)]);
    v->man_ok[DK_WHITE] = v->all & ~v->promo[DK_WHITE];
    v->man_ok[DK_BLACK] = v->all & ~v->promo[DK_BLACK];
}

static void build_all(void)
{
    static const rules all[DK_NVARIANTS] = {
        {DK_BRAZILIAN, "brazilian", 26, 8, true, 15, true, false},
        {DK_INTERNATIONAL, "international", 20, 10, false, 25, true, false},
        /* Russian draughts: Brazilian's board, no majority rule, crowning mid-capture */
        {DK_RUSSIAN, "russian", 25, 8, true, 15, false, true},
    };
    for (int id = 0; id < DK_NVARIANTS; id++)
        build(&variants[id], &all[id]);
}

const dk_variant *dk_variant_get(dk_variant_id id)
{
    if ((unsigned)id >= DK_NVARIANTS)
        return NULL;
    pthread_once(&variants_once, build_all);
    return &variants[id];
}

const dk_variant *dk_variant_find(const char *name)
{
    if (!name)
        return NULL;
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const dk_variant *v = dk_variant_get((dk_variant_id)id);
        char num[8];
        snprintf(num, sizeof num, "%d", v->gametype);
        if (strcasecmp(name, v->name) == 0 || strcmp(name, num) == 0)
            return v;
    }
    return NULL;
}
