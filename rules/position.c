#include "position.h"

dk_pos_error dk_pos_check(const dk_variant *v, const dk_pos *p)
{
    if (p->side != DK_WHITE && p->side != DK_BLACK)
        return DK_POS_BAD_SIDE;
    if (p->pieces[DK_WHITE] & p->pieces[DK_BLACK])
        return DK_POS_OVERLAP;
    if ((dk_occupied(p) | p->kings) & ~v->all)
        return DK_POS_OFF_BOARD;
    if (p->kings & ~dk_occupied(p))
        return DK_POS_OFF_BOARD;
    for (int c = 0; c < 2; c++) {
        if (dk_men(p, c) & ~v->man_ok[c])
            return DK_POS_MAN_ON_PROMO;
        if (dk_popcount(p->pieces[c]) > v->men_per_side)
            return DK_POS_TOO_MANY;
    }
    return DK_POS_OK;
}

const char *dk_pos_error_text(dk_pos_error e)
{
    switch (e) {
    case DK_POS_OK: return "legal position";
    case DK_POS_OVERLAP: return "two pieces on one square";
    case DK_POS_OFF_BOARD: return "a piece on a square the board does not have";
    case DK_POS_MAN_ON_PROMO: return "a man on its own promotion row";
    case DK_POS_TOO_MANY: return "more pieces on a side than the variant allows";
    case DK_POS_BAD_SIDE: return "side to move is neither white nor black";
    }
    return "unknown position error";
}

dk_pos dk_pos_start(const dk_variant *v)
{
    dk_pos p = {{v->start[DK_WHITE], v->start[DK_BLACK]}, 0, DK_WHITE};
    return p;
}

dk_pos dk_apply(const dk_pos *p, const dk_move *m)
{
    dk_pos q = *p;
    dk_bb from = dk_bit(m->from), to = dk_bit(m->to);
    int us = p->side, them = us ^ 1;
    bool king = (p->kings & from) != 0;
    q.pieces[us] = (q.pieces[us] & ~from) | to;
    q.pieces[them] &= ~m->captures;
    q.kings &= ~(m->captures | from);
    if (king || m->promotes)
        q.kings |= to;
    q.side = them;
    return q;
}

dk_pos dk_unapply(const dk_pos *p, const dk_move *m)
{
    dk_pos q = *p;
    dk_bb from = dk_bit(m->from), to = dk_bit(m->to);
    int mover = p->side ^ 1;
    bool king = (p->kings & to) && !m->promotes;
    q.pieces[mover] = (q.pieces[mover] & ~to) | from;
    q.kings &= ~to;
    if (king)
        q.kings |= from;
    q.side = mover;
    return q;
}

/* Turning the board by 180 degrees maps square s to nsq-1-s: a bit reversal. */
static dk_bb rotate_bb(const dk_variant *v, dk_bb b)
{
    b = __builtin_bswap64(b);
    b = ((b >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((b & 0x0F0F0F0F0F0F0F0Full) << 4);
    b = ((b >> 2) & 0x3333333333333333ull) | ((b & 0x3333333333333333ull) << 2);
    b = ((b >> 1) & 0x5555555555555555ull) | ((b & 0x5555555555555555ull) << 1);
    return b >> (64 - v->nsq);
}

dk_pos dk_pos_flip(const dk_variant *v, const dk_pos *p)
{
    dk_pos q;
    q.pieces[DK_WHITE] = rotate_bb(v, p->pieces[DK_BLACK]);
    q.pieces[DK_BLACK] = rotate_bb(v, p->pieces[DK_WHITE]);
    q.kings = rotate_bb(v, p->kings);
    q.side = p->side ^ 1;
    return q;
}
