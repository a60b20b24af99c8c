/* Verification: an independent forward pass that checks every value against the values of all
 * successors. A value passes when it is exactly the best the side to move can get through its
 * moves (the fastest win, else a draw, else the slowest loss), or LOSS 0 without a move. By
 * induction on the distance, a table that passes everywhere is the game-theoretic table. */
#ifndef DK_VERIFY_H
#define DK_VERIFY_H

#include "../index/perfect.h"
#include "../query/value.h"

/* Gives the value of p (White to move, material m): a table, or an array being checked. */
typedef int (*dk_value_fn)(void *ctx, dk_material m, const dk_pos *p, dk_value *out, char *err,
                           size_t errlen);

/* Checks the positions of subslices men_lo..men_hi-1 of the material of ix, reading their
 * values and their successors' through get. Sets bit i of must_capture (if not NULL) for each
 * position i where the side to move must capture. Returns 0 if all pass; 1 with the first
 * failing index in *bad; -1 with one line in err if a value cannot be read. Thread-safe if get
 * is (and threads use disjoint bytes of must_capture). */
int dk_verify_subslices(const dk_index *ix, uint64_t men_lo, uint64_t men_hi, dk_value_fn get,
                        void *ctx, uint8_t *must_capture, uint64_t *bad, char *err, size_t errlen);

/* The value p should have given its successors' values (what verification compares with);
 * *capture tells whether p's moves are captures. */
int dk_expected_value(const dk_variant *v, const dk_pos *p, dk_value_fn get, void *ctx,
                      dk_value *out, bool *capture, char *err, size_t errlen);

#endif
