/* Verification: an independent forward pass that checks every value against the values of all
 * successors. A DTW value passes when it is exactly the best the side to move can get through
 * its moves (the fastest win, else a draw, else the slowest loss), or LOSS 0 without a move. A
 * rule value (query/drawrule.h) passes when it is exactly the best by dk_rule_rank through the
 * moves (a conversion reads the child at counter 0, a quiet king move at counter 1) and its
 * game-theoretic kind is the DTW value's. By induction on the distance, tables that pass
 * everywhere are the game-theoretic table and the rule-aware table. */
#ifndef DK_VERIFY_H
#define DK_VERIFY_H

#include "../../index/perfect.h"
#include "../../query/best.h"
#include "../../query/drawrule.h"
#include "../../query/value.h"

/* Gives the values of p (White to move, material m): out[0] its DTW value and, when the
 * tables follow a draw rule, out[1] its rule value; from a table, or an array being checked.
 * Returns 0, or -1 with one line in err. */
typedef int (*dk_value_fn)(void *ctx, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                           size_t errlen);

/* Gives the stored values of position p, index i of the material being checked, whose side to
 * move has no capture: out[0] its DTW value and, with a draw rule, out[1] its rule value.
 * Returns 0, or -1 with one line in err. */
typedef int (*dk_stored_fn)(void *ctx, uint64_t i, const dk_pos *p, dk_value out[2], char *err, size_t errlen);

/* Gives the values of the successor of p by the quiet king move from `from` to `to`: the
 * position of index i of the material `turned` (p's material turned, dk_verify_reads). The
 * reader may make the successor (dk_apply, dk_pos_flip) if it needs it. Returns 0, or -1 with one
 * line in err. */
typedef int (*dk_quiet_value_fn)(void *ctx, uint64_t i, const dk_pos *p, int from, int to, dk_value out[2],
                                 char *err, size_t errlen);

/* How verification reads values: the positions checked through stored, their successors by
 * quiet king moves through quiet (ranked by dk_quiet_rank in `turned`, the index of the checked
 * material turned), the others (man moves) through get. */
typedef struct dk_verify_reads {
    dk_stored_fn stored;
    dk_quiet_value_fn quiet;
    dk_value_fn get;
    const dk_index *turned;
    void *ctx;
} dk_verify_reads;

/* Checks the positions of subslices men_lo..men_hi-1 of the material of ix, reading values
 * through r; limit is the draw rule in plies (0: DTW only). A position whose side to move must
 * capture is passed over: the files hold no value for it (query/FORMAT.md), and a reader
 * resolves it through its captures, whose positions are checked in their own tables. Returns 0
 * if all pass; 1 with the first failing index in *bad; -1 with one line in err if a value cannot
 * be read. Thread-safe if r's functions are. */
int dk_verify_subslices(const dk_index *ix, uint64_t men_lo, uint64_t men_hi, unsigned limit,
                        const dk_verify_reads *r, uint64_t *bad, char *err, size_t errlen);

/* The values p should have given its successors' values (what verification compares with):
 * out[0] DTW, out[1] the rule value (only when limit > 0). Returns 0, or -1 with one line in
 * err. */
int dk_expected_values(const dk_variant *v, const dk_pos *p, unsigned limit, dk_value_fn get,
                       void *ctx, dk_value out[2], char *err, size_t errlen);

/* The best value through the moves seen so far (query/best.h, at counter 0): what
 * dk_expected_values computes, move by move, for a caller that adds the successors itself (the
 * solver's verification reads the quiet king moves from the values it checks, and a split unit
 * asks other ranks for some). */
typedef struct dk_expected {
    dk_best best;
    bool must_capture; /* the side to move must capture (set by the caller) */
} dk_expected;

/* No move yet: the values of a position without a move. */
void dk_expected_start(dk_expected *x);

/* Adds a successor of values e, reached by a conversion (a capture or a man move) or by a
 * quiet king move, under a draw rule of `limit` plies (0: DTW only). Pure; inline, as it is
 * called for every move verification follows. */
static inline void dk_expected_add(dk_expected *x, const dk_value e[2], bool conversion, unsigned limit)
{
    dk_best_add(&x->best, e, conversion, 0, limit);
}

/* What x holds in two values (the second used only with a draw rule), and back: the solver
 * collects a position's conversions while it classifies it, so that verification reads every
 * exit once, not twice. Pure. */
void dk_expected_pack(const dk_expected *x, dk_value packed[2]);
void dk_expected_unpack(dk_expected *x, const dk_value packed[2], unsigned limit);

/* Whether stored values equal the expected ones, including the rule value's game-theoretic
 * kind against the DTW value. Pure. */
bool dk_values_pass(const dk_value stored[2], const dk_value expect[2], unsigned limit);

#endif
