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

