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

static void build(dk_variant *v, dk_variant_id id, const char *name, int gametype, int size,
                  int algebraic, int draw_rule_moves)
{
    static const int dr[4] = {-1, -1, 1, 1}, dc[4] = {-1, 1, -1, 1};
    memset(v, 0, sizeof *v);
    v->id = id;
    v->name = name;
    v->gametype = gametype;
    v->size = size;
    v->nsq = size * size / 2;
    v->algebraic = algebraic;
    v->draw_rule_moves = draw_rule_moves;
    int half = size / 2;
    int start_rows = (size - 2) / 2;
    v->men_per_side = start_rows * half;
    for (int s = 0; s < v->nsq; s++) {
        int r = s / half, i = s % half;
        int c = (r % 2 == 0) ? 2 * i + 1 : 2 * i;
        v->row[s] = (int8_t)r;
        v->col[s] = (int8_t)c;
        v->all |= dk_bit(s);
        if (r == 0)
            v->promo[DK_WHITE] |= dk_bit(s);
        if (r == size - 1)
            v->promo[DK_BLACK] |= dk_bit(s);
        if (r < start_rows)
            v->start[DK_BLACK] |= dk_bit(s);
        if (r >= size - start_rows)
            v->start[DK_WHITE] |= dk_bit(s);
    }
    for (int s = 0; s < v->nsq; s++) {
        for (int d = 0; d < 4; d++) {
            int r = v->row[s], c = v->col[s];
            v->nb[s][d] = (int8_t)square_at(size, r + dr[d], c + dc[d]);
            for (int t; (t = square_at(size, r += dr[d], c += dc[d])) >= 0;)
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
    build(&variants[DK_BRAZILIAN], DK_BRAZILIAN, "brazilian", 26, 8, 1, 15);
    build(&variants[DK_INTERNATIONAL], DK_INTERNATIONAL, "international", 20, 10, 0, 25);
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
