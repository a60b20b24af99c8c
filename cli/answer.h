/* A position's answer from the tables: its value, its value under the draw rule at a counter,
 * and every legal move's, best first; and that answer as the JSON object `damka query --json`
 * prints and `damka serve` sends (which adds members of its own through answer_extra). */
#ifndef DK_ANSWER_H
#define DK_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#include "../gen/store/json.h"
#include "../query/drawrule.h"
#include "../query/tabledir.h"
#include "../query/tablebase.h"

/* Where answers come from: the tables of one variant, their directory (named in messages) and
 * what it holds, the rule's limit in plies (0: the directory has no DTC tables). */
typedef struct answer_src {
    dk_tablebase *tb;
    const char *dir;
    dk_tb_dir held;
    const dk_variant *v;
    unsigned limit;
} answer_src;

/* One answer: the position, the counter it is met with, its value (DTW) and rule value at the
 * counter, its legal moves best first with their values for the mover (rules[] only when
 * answer_moves_under_rule). About 14 KiB: callers with small stacks allocate it. */
typedef struct answer {
    dk_pos p;
    unsigned counter;
    dk_value value, rule;
    dk_movelist list;
    dk_value values[DK_MAX_MOVES], rules[DK_MAX_MOVES];
} answer;

/* Whether moves get values under the rule: the directory has DTC tables and the rule has not
 * drawn the game yet (at counter = limit it has: the rule ranking's range ends below). Pure. */
static inline bool answer_moves_under_rule(unsigned limit, unsigned counter)
{
    return limit && counter < limit;
}

/* Probes p met with `counter` (at most s->limit): fills *a. Returns DK_OK or why there is no
 * answer. Thread-safe (as the tables are). */
dk_status answer_probe(const answer_src *s, const dk_pos *p, unsigned counter, answer *a);

/* Why the tables have no answer for p (status st), into err: a position with more pieces than
 * any table of the directory says how many it has and how many they hold, a missing table file
 * is named. Reads the calling thread's dk_tb_last_error. */
void answer_why_not(const answer_src *s, const dk_pos *p, dk_status st, char *err, size_t len);

/* "win", "loss", "draw": a DTW value's result. Pure. */
const char *answer_result_name(dk_value v);

/* Members a caller adds to the object answer_json writes: `position` after the position's
 * own members (before "moves"), `move` at the end of move i's object. Either may be NULL. */
typedef struct answer_extra {
    void (*position)(dk_json *w, const answer *a, void *ctx);
    void (*move)(dk_json *w, const answer *a, int i, void *ctx);
    void *ctx;
} answer_extra;

/* Writes a as one JSON object: fen (canon), result, dtw, rule (limit, counter, category, dtc;
 * null without DTC tables), moves (notation, from, to, captures, result, dtw, rule), then
 * x's members where it says (x may be NULL). Thread-safe for distinct writers. */
void answer_json(dk_json *w, const answer_src *s, const answer *a, const char *canon, const answer_extra *x);

#endif
