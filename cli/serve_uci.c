/* A move in lidraughts' `uci` form: the squares the piece stands on, in order, as two-digit PDN
 * numbers ("3228" a quiet move, "322819" a capture of two pieces). A move of damka holds its
 * captured pieces but not its path, so the path of a capture is searched for: any order and any
 * landing squares that take exactly those pieces and end on the move's square. */
#include <stdio.h>

#include "serve.h"

/* Whether the piece of colour c on sq (a king or a man, occ every piece on the board but the
 * capturing one, `left` the pieces still to take) can take them all and stop on `to`; path[depth..]
 * gets the landing squares. Captured pieces stay on the board until the capture ends (they block,
 * and none is taken twice); the nearest landing square is tried first. A man that lands on its
 * promotion row goes on as a king where the variant crowns it there (Russian). */
static bool capture_path(const dk_variant *v, int c, bool king, dk_bb occ, int sq, dk_bb left, int to,
                         uint8_t *path, int depth)
{
    if (!left)
        return sq == to;
    for (int d = 0; d < 4; d++) {
        int victim = v->nb[sq][d], blocker;
        if (king)
            dk_slide(v, sq, d, occ, &victim);
        if (victim < 0 || !(left & dk_bit(victim)))
            continue;
        dk_bb landings = dk_slide(v, victim, d, occ, &blocker);
        if (!king)
            landings &= v->nb[victim][d] >= 0 ? dk_bit(v->nb[victim][d]) : 0;
        while (landings) {
            int l = dk_nearest(landings, d);
            landings &= ~dk_bit(l);
            path[depth] = (uint8_t)l;
            bool crowned = !king && v->crown_in_capture && (v->promo[c] & dk_bit(l));
            if (capture_path(v, c, king || crowned, occ, l, left & ~dk_bit(victim), to, path, depth + 1))
                return true;
        }
    }
    return false;
}

int serve_uci(const dk_variant *v, const dk_pos *p, const dk_move *m, char *buf, size_t len)
{
    uint8_t path[DK_MAX_SQ];
    int n = 1;
    path[0] = m->to;
    if (m->ncaptures > 1) {
        dk_bb occ = (p->pieces[0] | p->pieces[1]) & ~dk_bit(m->from);
        if (!capture_path(v, p->side, (p->kings & dk_bit(m->from)) != 0, occ, m->from, m->captures, m->to, path, 0))
            return -1;
        n = m->ncaptures;
    }
    size_t at = (size_t)snprintf(buf, len, "%02d", m->from + 1);
    for (int i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%02d", path[i] + 1);
    return at < len ? 0 : -1;
}
