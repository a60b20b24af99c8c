#include "position.h"

#include "errors.h"

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

dk_verdict dk_pos_verdict(const dk_variant *v, const dk_pos *p, char *err, size_t errlen)
{
    dk_pos_error e = dk_pos_check(v, p);
    if (e != DK_POS_OK) {
        dk_errorf(err, errlen, "impossible position: %s", dk_pos_error_text(e));
        return DK_VERDICT_IMPOSSIBLE;
    }
    if (!dk_occupied(p)) {
        dk_errorf(err, errlen, "impossible position: no piece on the board");
        return DK_VERDICT_IMPOSSIBLE;
    }
    if (!p->pieces[p->side ^ 1]) {
        dk_errorf(err, errlen, "impossible position: %s, not to move, has no piece (a move never "
                  "takes the mover's own pieces)", p->side == DK_WHITE ? "Black" : "White");
        return DK_VERDICT_IMPOSSIBLE;
    }
    return p->pieces[p->side] ? DK_VERDICT_PLAY : DK_VERDICT_GAME_OVER;
}

dk_pos dk_pos_start(const dk_variant *v)
{
    dk_pos p = {{v->start[DK_WHITE], v->start[DK_BLACK]}, 0, DK_WHITE};
    return p;
}

