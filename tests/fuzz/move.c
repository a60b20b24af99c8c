/* Move notation (dk_move_parse) against the legal moves of a position. The input is a FEN, a
 * newline and a move's text; the FEN is tried in both variants. Every move's printed forms
 * must parse back to it, and a text the parser accepts must name the move it returns: its
 * from and to squares, 'x' exactly for a capture, and the captured squares if it lists any.
 * Along the way, the move list itself: never full (a full list may have dropped moves),
 * counted alike by dk_count_moves, and every move leads to a legal position. */
#include <string.h>

#include "../../rules/movegen.h"
#include "../../rules/notation.h"
#include "support.h"

/* Whether text reads as move m, numeric or algebraic squares alike. */
static bool names(const dk_variant *v, const dk_move *m, const char *text)
{
    const char *t = text;
    if (dk_square_parse(v, &t) != m->from || *t++ != (m->captures ? 'x' : '-') ||
        dk_square_parse(v, &t) != m->to)
        return false;
    if (!*t)
        return true;
    if (*t++ != '(' || !m->captures)
        return false;
    dk_bb listed = 0;
    for (;;) {
        int s = dk_square_parse(v, &t);
        if (s < 0)
            return false;
        listed |= dk_bit(s);
        if (*t == ')')
            return t[1] == 0 && listed == m->captures;
        if (*t++ != ',')
            return false;
    }
}

static void check_list(const dk_variant *v, const dk_pos *p, const dk_movelist *list)
{
    FUZZ_CHECK(list->n < DK_MAX_MOVES, "%s: the move list is full", v->name);
    FUZZ_CHECK(dk_count_moves(v, p) == list->n, "%s: dk_count_moves %d, dk_gen_moves %d", v->name,
               dk_count_moves(v, p), list->n);
    for (int i = 0; i < list->n; i++) {
        const dk_move *m = &list->m[i];
        dk_pos after = dk_apply(p, m);
        FUZZ_CHECK(dk_pos_check(v, &after) == DK_POS_OK, "%s: move %d leads to an illegal position",
                   v->name, i);
        for (int alg = 0; alg <= (v->size <= 8); alg++) {
            char text[DK_MOVE_TEXT_MAX];
            int n = dk_move_format(v, list, i, alg, text, sizeof text);
            FUZZ_CHECK(n > 0 && n < DK_MOVE_TEXT_MAX, "%s: move text of %d bytes", v->name, n);
            FUZZ_CHECK(names(v, m, text), "%s: '%s' does not read as move %d", v->name, text, i);
            int back = dk_move_parse(v, list, text);
            FUZZ_CHECK(back == i, "%s: '%s' (move %d) parses as %d", v->name, text, i, back);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *input = fuzz_string(data, size), *nl = strchr(input, '\n');
    char fen[1024];
    size_t flen = nl ? (size_t)(nl - input) : strlen(input);
    if (flen >= sizeof fen)
        return 0;
    memcpy(fen, input, flen);
    fen[flen] = 0;
    const char *text = nl ? nl + 1 : "";
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const dk_variant *v = dk_variant_get((dk_variant_id)id);
        dk_pos p;
        static dk_movelist list; /* 12 KiB: kept off the stack */
        if (dk_fen_parse(v, fen, &p, NULL, 0) != 0)
            continue;
        dk_gen_moves(v, &p, &list);
        check_list(v, &p, &list);
        int r = dk_move_parse(v, &list, text);
        FUZZ_CHECK(r >= -2 && r < list.n, "%s: dk_move_parse returned %d of %d moves", v->name, r,
                   list.n);
        FUZZ_CHECK(r < 0 || names(v, &list.m[r], text), "%s: '%s' accepted as move %d", v->name,
                   text, r);
    }
    return 0;
}
