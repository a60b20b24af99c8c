/* The perfect index of a material (White to move): a bijection between its positions and
 * 0..size-1 with no holes.
 *
 * index = men_index * kings_count + kings_index, so the positions sharing one placement of men
 * (a subslice) are one contiguous range and kings vary inside it.
 *
 * Men: a white man may stand on White's back row (the last row) where no black man can, and a
 * black man on row 0 where no white man can, so the men are split into classes by a, the
 * number of white men on the last row. Inside class a: the white men on the last row, the
 * white men on the middle rows and the black men on rows 0..size-2 not holding a white man,
 * each group by the combinatorial number system, as mixed-radix digits (last-row white most
 * significant). Black men are not split by row: their squares are one contiguous run of
 * square numbers, which only the white men of the middle rows interrupt.
 * Kings: white kings on the squares not holding a man, then black kings on those left, each
 * by the combinatorial number system over the free squares compressed to 0..free-1.
 *
 * A dk_index is built once per material (dk_index_init) and is read-only afterwards, so any
 * number of threads may rank and unrank with one. Ranking and unranking use table look-ups,
 * multiplications and popcounts: no allocation and no hardware division. */
#ifndef DK_PERFECT_H
#define DK_PERFECT_H

#include <stdint.h>
#include "binomial.h"
#include "material.h"

/* Classes are a = 0..min(wm, squares per row), at most 6 on a 10x10 board. */
enum { DK_INDEX_MAX_CLASSES = 6 };

typedef struct dk_index {
    const dk_variant *v;
    dk_material m;
    int row_squares;                 /* squares per row: 4 or 5 */
    int last_shift;                  /* first square of the last row */
    dk_bb last_row, middle;          /* white-men-only row; rows both colours' men may use */
    int nclass;
    uint64_t class_off[DK_INDEX_MAX_CLASSES + 1]; /* first men_index of class a; [nclass]: men_count */
    uint64_t c_wmid[DK_INDEX_MAX_CLASSES];        /* C(middle squares, wm - a) */
    uint64_t c_black[DK_INDEX_MAX_CLASSES];       /* C(black-man squares left, bm) */
    dk_divider div_wmid[DK_INDEX_MAX_CLASSES], div_black[DK_INDEX_MAX_CLASSES];
    uint64_t men_count;    /* subslices */
    uint64_t kings_count;  /* positions per subslice */
    uint64_t c_bk;         /* black kings digit radix: C(free - wk, bk) */
    dk_divider div_kings, div_bk;
    uint64_t size;         /* men_count * kings_count */
} dk_index;

/* The rank of the set b in the colex order of sets of its size, its squares numbered with
 * those of `skip` left out: the sum of C(number, i) over its elements, i from 1. Inline: the
 * generator ranks kings for every move it follows. Pure. */
static inline uint64_t dk_comb_rank(dk_bb b, dk_bb skip)
{
    uint64_t r = 0;
    for (int i = 1; b; b &= b - 1, i++) {
        int s = dk_lsb(b);
        int c = s - dk_popcount(skip & (dk_bit(s) - 1));
        r += dk_binom_table[c][i];
    }
    return r;
}

/* The ranks (dk_comb_rank over the squares outside skip) of the sets set | {x}, for the squares
 * x outside set and skip, by how many of set lie below x: x's term and those of the elements
 * above it shift by one place. Prepared once for a set, a rank then costs two popcounts and two
 * look-ups instead of a term an element: the generator ranks every move of a king this way. */
typedef struct dk_comb_plus {
    dk_bb set, skip;
    uint64_t part[DK_MATERIAL_MAX_PIECES + 1]; /* the terms of set's elements, by how many lie below x */
} dk_comb_plus;

/* The numbers of set's squares, lowest first, with those of skip left out; returns how many. */
static inline int dk_comb_numbers(dk_bb set, dk_bb skip, int c[DK_MATERIAL_MAX_PIECES])
{
    int k = 0;
    for (dk_bb b = set; b; b &= b - 1)
        c[k++] = dk_lsb(b) - dk_popcount(skip & (dk_bit(dk_lsb(b)) - 1));
    return k;
}

/* Prepares p for set (at most DK_MATERIAL_MAX_PIECES - 1 squares) and skip. Pure. */
static inline void dk_comb_plus_init(dk_comb_plus *p, dk_bb set, dk_bb skip)
{
    int c[DK_MATERIAL_MAX_PIECES], k = dk_comb_numbers(set, skip, c);
    p->set = set;
    p->skip = skip;
    p->part[0] = 0;
    for (int j = 1; j <= k; j++) /* every element above x: place j + 1 */
        p->part[0] += dk_binom_table[c[j - 1]][j + 1];
    for (int j = 1; j <= k; j++) /* the j-th below x keeps its place */
        p->part[j] = p->part[j - 1] - dk_binom_table[c[j - 1]][j + 1] + dk_binom_table[c[j - 1]][j];
}

/* dk_comb_rank(set | {x}, skip) for a square x outside set and skip. Pure; thread-safe. */
static inline uint64_t dk_comb_plus_rank(const dk_comb_plus *p, int x)
{
    dk_bb below = dk_bit(x) - 1;
    int j = dk_popcount(p->set & below);
    return p->part[j] + dk_binom_table[x - dk_popcount(p->skip & below)][j + 1];
}

/* The ranks (dk_comb_rank) of set over the squares outside skip and one more square x outside
 * set and skip: the elements above x are numbered one lower. By how many of set lie below x. */
typedef struct dk_comb_less {
    dk_bb set;
    uint64_t part[DK_MATERIAL_MAX_PIECES + 1];
} dk_comb_less;

/* Prepares l for set (at most DK_MATERIAL_MAX_PIECES - 1 squares) and skip. Pure. */
static inline void dk_comb_less_init(dk_comb_less *l, dk_bb set, dk_bb skip)
{
    int c[DK_MATERIAL_MAX_PIECES], k = dk_comb_numbers(set, skip, c);
    uint64_t lowered[DK_MATERIAL_MAX_PIECES]; /* each element's term numbered one lower */
    l->set = set;
    l->part[0] = 0;
    for (int j = 1; j <= k; j++) { /* an element numbered 0 cannot lie above x: never used */
        lowered[j - 1] = c[j - 1] ? dk_binom_table[c[j - 1] - 1][j] : 0;
        l->part[0] += lowered[j - 1];
    }
    for (int j = 1; j <= k; j++)
        l->part[j] = l->part[j - 1] - lowered[j - 1] + dk_binom_table[c[j - 1]][j];
}

/* dk_comb_rank(set, skip | {x}) for a square x outside set and skip. Pure; thread-safe. */
static inline uint64_t dk_comb_less_rank(const dk_comb_less *l, int x)
{
    return l->part[dk_popcount(l->set & (dk_bit(x) - 1))];
}

/* Builds the index of material m for variant v (White to move). Returns 0, or -1 if m is not a
 * valid material of v (dk_material_valid) or its size does not fit below 2^62. Thread-safe. */
int dk_index_init(dk_index *ix, const dk_variant *v, dk_material m);

/* The men_index (0..men_count-1) of the placement of white men wmen and black men bmen, which
 * must match the material and stand on squares men may use. Pure; thread-safe. */
uint64_t dk_index_men_rank(const dk_index *ix, dk_bb wmen, dk_bb bmen);

/* The placement of men with men_index (< men_count) into *wmen, *bmen. Pure; thread-safe. */
void dk_index_men_unrank(const dk_index *ix, uint64_t men_index, dk_bb *wmen, dk_bb *bmen);

/* The kings_index (0..kings_count-1) of white kings wk and black kings bk with the men on the
 * squares `men`. Pure; thread-safe. */
static inline uint64_t dk_index_kings_rank(const dk_index *ix, dk_bb men, dk_bb wk, dk_bb bk)
{
    return dk_comb_rank(wk, men) * ix->c_bk + dk_comb_rank(bk, men | wk);
}

/* Ranks the successors of one position p (White to move) by quiet king moves, turned so that
 * White is to move: their men, and their white kings (p's black kings), are the same for
 * every move, so their white kings' rank is taken once and each move ranks only p's white kings
 * turned, one of them moved. Verification reads a position's successors this way, while the
 * solver's backward passes find predecessors with dk_unmove_rank: two ways of relating positions
 * (moves from the mover's squares, un-moves from the other side's), each checked against
 * dk_apply or dk_unapply, dk_pos_flip and the full rank by the tests, so that verification does
 * not follow the solver's steps. */
typedef struct dk_quiet_ranker {
    const dk_variant *v;
    uint64_t base; /* the successors' white kings ranked, times the black kings' radix */
    dk_bb skip;    /* the successors' men and white kings */
    dk_bb kings;   /* p's white kings */
} dk_quiet_ranker;

/* Starts on p; ix is the index of the successors' material (p's material turned). Pure;
 * thread-safe. */
static inline dk_quiet_ranker dk_quiet_ranker_of(const dk_index *ix, const dk_pos *p)
{
    const dk_variant *v = ix->v;
    dk_bb theirs = dk_rotate_bb(v, p->pieces[DK_BLACK] & p->kings);
    dk_bb men = dk_rotate_bb(v, (p->pieces[DK_WHITE] | p->pieces[DK_BLACK]) & ~p->kings);
    return (dk_quiet_ranker){v, dk_comb_rank(theirs, men) * ix->c_bk, men | theirs,
                             p->pieces[DK_WHITE] & p->kings};
}

/* The successors where p's white king on one square moves: the other white kings of p turned
 * (the successors' black kings but the one that moves) prepared once for all its moves. */
typedef struct dk_quiet_king {
    dk_comb_plus kings;
    uint64_t base;
    int last; /* the board's last square: turning a square is last - s */
} dk_quiet_king;

/* Prepares the moves of p's white king on `from`. Pure; thread-safe. */
static inline dk_quiet_king dk_quiet_king_of(const dk_quiet_ranker *q, int from)
{
    dk_quiet_king k; /* set field by field: parts beyond the set's size stay unwritten */
    k.base = q->base;
    k.last = q->v->nsq - 1;
    dk_comb_plus_init(&k.kings, dk_rotate_bb(q->v, q->kings & ~dk_bit(from)), q->skip);
    return k;
}

/* The kings_index of the successor where the king of k moves to the empty square `to`. Pure;
 * thread-safe. */
static inline uint64_t dk_quiet_rank(const dk_quiet_king *k, int to)
{
    return k->base + dk_comb_plus_rank(&k->kings, k->last - to);
}

/* Ranks the predecessors of q (White to move) by quiet moves of its black kings, turned so that
 * White is to move: the positions the solver's backward passes update. Their men and black
 * kings (q's men and white kings turned) are the same for every un-move, so each un-move turns
 * only q's black kings, one of them moved back. */
typedef struct dk_unmove_ranker {
    const dk_index *ix;
    dk_bb men;   /* the predecessors' men */
    dk_bb bk;    /* their black kings */
    dk_bb kings; /* q's black kings */
} dk_unmove_ranker;

/* Starts on q; ix is the index of the predecessors' material (q's material turned). Pure;
 * thread-safe. */
static inline dk_unmove_ranker dk_unmove_ranker_of(const dk_index *ix, const dk_pos *q)
{
    const dk_variant *v = ix->v;
    return (dk_unmove_ranker){ix, dk_rotate_bb(v, (q->pieces[DK_WHITE] | q->pieces[DK_BLACK]) & ~q->kings),
                              dk_rotate_bb(v, q->pieces[DK_WHITE] & q->kings), q->pieces[DK_BLACK] & q->kings};
}

/* The predecessors where q's black king on one square came from elsewhere: q's other black
 * kings turned (the predecessors' white kings but the one that moved) prepared once for all its
 * un-moves, with the predecessors' black kings, whose rank only depends on where the moved king
 * stood among them. */
typedef struct dk_unmove_king {
    dk_comb_plus wk;
    dk_comb_less bk;
    const dk_index *ix;
    int last;    /* the board's last square: turning a square is last - s */
    bool direct; /* at most one other king: ranked term by term, cheaper than preparing */
} dk_unmove_king;

/* Prepares the un-moves of q's black king on `to`. Pure; thread-safe. */
static inline dk_unmove_king dk_unmove_king_of(const dk_unmove_ranker *u, int to)
{
    dk_unmove_king k; /* set field by field: parts beyond the sets' sizes stay unwritten */
    k.ix = u->ix;
    k.last = u->ix->v->nsq - 1;
    dk_bb others = dk_rotate_bb(u->ix->v, u->kings & ~dk_bit(to));
    k.direct = dk_popcount(others | u->bk) <= 1;
    if (k.direct) {
        k.wk.set = others;
        k.wk.skip = u->men;
        k.bk.set = u->bk;
    } else {
        dk_comb_plus_init(&k.wk, others, u->men);
        dk_comb_less_init(&k.bk, u->bk, u->men | others);
    }
    return k;
}

/* The kings_index of the predecessor where the king of k stood on `from`, a square empty in q.
 * Pure; thread-safe. */
static inline uint64_t dk_unmove_rank(const dk_unmove_king *k, int from)
{
    int f = k->last - from;
    if (k->direct)
        return dk_index_kings_rank(k->ix, k->wk.skip, k->wk.set | dk_bit(f), k->bk.set);
    return dk_comb_plus_rank(&k->wk, f) * k->ix->c_bk + dk_comb_less_rank(&k->bk, f);
}

/* The kings with kings_index (< kings_count) given the men on `men`. Pure; thread-safe. */
void dk_index_kings_unrank(const dk_index *ix, uint64_t kings_index, dk_bb men, dk_bb *wk, dk_bb *bk);

/* (men_index, kings_index) of p, a White-to-move position of the material. Pure; thread-safe. */
void dk_index_rank_split(const dk_index *ix, const dk_pos *p, uint64_t *men_index, uint64_t *kings_index);

/* The White-to-move position with men_index and kings_index. Pure; thread-safe. */
dk_pos dk_index_unrank_split(const dk_index *ix, uint64_t men_index, uint64_t kings_index);

/* The index (0..size-1) of p, a White-to-move position of the material. Pure; thread-safe. */
uint64_t dk_index_rank(const dk_index *ix, const dk_pos *p);

/* Ranks of placements of men remembered, direct-mapped by index and placement: the positions a
 * generator reads one after another (the exits of one subslice's positions) have the same few
 * placements of men again and again, and ranking the men is most of ranking a position. All zero
 * is empty. An entry names its dk_index by address: clear the memo (zero it) before an index
 * it may name is freed or changed. */
enum { DK_MEN_MEMO_BITS = 10 };
typedef struct dk_men_memo_entry {
    const dk_index *ix; /* NULL: empty */
    dk_bb wmen, bmen;
    uint64_t men;       /* dk_index_men_rank(ix, wmen, bmen) */
} dk_men_memo_entry;
typedef struct dk_men_memo {
    dk_men_memo_entry e[1 << DK_MEN_MEMO_BITS];
} dk_men_memo;

/* dk_index_rank(ix, p), the rank of p's men taken from memo or remembered there. Not
 * thread-safe on one memo. */
uint64_t dk_index_rank_memo(dk_men_memo *memo, const dk_index *ix, const dk_pos *p);

/* The White-to-move position with index (< size). Pure; thread-safe. */
dk_pos dk_index_unrank(const dk_index *ix, uint64_t index);

/* The White-to-move normal form of a legal position: p itself if White is to move, else
 * dk_pos_flip(p), a position of the twin material with the same value. Pure; thread-safe. */
dk_pos dk_normal_form(const dk_variant *v, const dk_pos *p);

/* The material and index of p's normal form. Builds the material's dk_index on the stack
 * (a few hundred nanoseconds): for the inner loop, keep dk_index structs and use
 * dk_normal_form with dk_index_rank. Returns 0, or -1 if the material has no table
 * (a side without pieces). Pure; thread-safe. */
int dk_normal_index(const dk_variant *v, const dk_pos *p, dk_material *m, uint64_t *index);

/* Walks the positions of one subslice in index order, kings_index 0..kings_count-1, each step
 * a few operations (the next combination in colex order is the next rank). */
typedef struct dk_subslice_iter {
    const dk_index *ix;
    dk_pos pos;              /* the current position, White to move */
    uint64_t kings_index;    /* its kings_index */
    dk_bb men;
    dk_bb free_w, free_b;    /* the squares each colour's kings may stand on */
} dk_subslice_iter;

/* Starts at kings_index 0 of subslice men_index (< men_count). Not thread-safe on one iterator. */
void dk_subslice_begin(dk_subslice_iter *it, const dk_index *ix, uint64_t men_index);

/* Starts at kings_index (< kings_count) of subslice men_index: where a part of a subslice shared
 * by several ranks begins. Costs an unrank. Not thread-safe on one iterator. */
void dk_subslice_seek(dk_subslice_iter *it, const dk_index *ix, uint64_t men_index, uint64_t kings_index);

/* Moves to the next kings_index; returns false (and leaves pos alone) after the last one. */
bool dk_subslice_next(dk_subslice_iter *it);

#endif
