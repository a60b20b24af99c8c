#include "material.h"

#include <stdio.h>
#include <string.h>

/* A number that sorts materials in the generation order: pieces, then men, then white
 * pieces, then white men (these four determine the material). Pure. */
static uint32_t material_key(dk_material m)
{
    /* Each field is below 64 on every board, so 6 bits apiece keep the order exact. */
    uint32_t pieces = (uint32_t)dk_material_pieces(m), men = (uint32_t)dk_material_men(m);
    return pieces << 18 | men << 12 | (uint32_t)(m.wm + m.wk) << 6 | m.wm;
}

int dk_material_cmp(dk_material a, dk_material b)
{
    uint32_t ka = material_key(a), kb = material_key(b);
    return ka < kb ? -1 : ka > kb;
}

bool dk_material_valid(const dk_variant *v, dk_material m)
{
    int w = m.wm + m.wk, b = m.bm + m.bk;
    return w >= 1 && b >= 1 && w <= v->men_per_side && b <= v->men_per_side;
}

int dk_material_max_pieces(const dk_variant *v) { return v->size <= 8 ? 10 : 9; }

size_t dk_material_list(const dk_variant *v, int max_pieces, int max_per_side, dk_material *out,
                        size_t cap)
{
    int side_max = v->men_per_side;
    if (max_per_side > 0 && max_per_side < side_max)
        side_max = max_per_side;
    size_t n = 0;
    /* Looping over the key's fields in order yields the generation order directly. */
    for (int p = 2; p <= max_pieces; p++)
        for (int men = 0; men <= p; men++)
            for (int w = 1; w < p; w++)
                for (int wm = 0; wm <= w && wm <= men; wm++) {
                    int b = p - w, bm = men - wm;
                    if (bm > b || w > side_max || b > side_max)
                        continue;
                    dk_material m = {(uint8_t)wm, (uint8_t)(w - wm), (uint8_t)bm, (uint8_t)(b - bm)};
                    if (!dk_material_valid(v, m))
                        continue;
                    if (n < cap)
                        out[n] = m;
                    n++;
                }
    return n;
}

int dk_material_name(dk_material m, char *buf, size_t len)
{
    return snprintf(buf, len, "%dm%dk-%dm%dk", m.wm, m.wk, m.bm, m.bk);
}

int dk_material_parse(const char *text, dk_material *out)
{
    int f[4], used = 0;
    if (!text || sscanf(text, "%2dm%2dk-%2dm%2dk%n", &f[0], &f[1], &f[2], &f[3], &used) != 4 ||
        text[used] != 0)
        return -1;
    for (int i = 0; i < 4; i++)
        if (f[i] < 0 || f[i] > 50)
            return -1;
    /* Reject what sscanf tolerates but the name never contains: signs and spaces. */
    for (const char *c = text; *c; c++)
        if (!strchr("0123456789mk-", *c) || (*c == '-' && (c == text || c[-1] != 'k')))
            return -1;
    *out = (dk_material){(uint8_t)f[0], (uint8_t)f[1], (uint8_t)f[2], (uint8_t)f[3]};
    return 0;
}

