/* Retrograde analysis of one work unit: the values (WIN/LOSS with DTW, or DRAW) of every
 * position in it, both sides to move, from the finished values of what it depends on; and,
 * when the run follows a draw rule, the rule value of every position (query/drawrule.h). */
#ifndef DK_SOLVE_H
#define DK_SOLVE_H

#include "finished.h"
#include "plan.h"

typedef struct dk_solver dk_solver;

/* A solver reading finished tables through `finished` and finished units from dir/work, with a
 * draw rule of `limit` plies (0: DTW only). One per thread. Returns NULL when out of memory. */
dk_solver *dk_solver_new(const dk_workgraph *g, dk_finished *finished, const char *dir,
                         unsigned limit);

void dk_solver_free(dk_solver *s);

/* Solves the unit of plan into out (plan->npositions positions in the plan's order, each its
 * DTW value followed, with a draw rule, by its rule value). Exits
 * (captures, promotions, man moves) take their values from finished tables and units; king
 * moves inside a group are resolved backwards from the positions whose values are known, in
 * increasing distance, so the first value a position receives is exact; rule values the same
 * way in increasing distance to conversion, up to the limit. Returns 0, or -1 with one line in
 * err (an input missing or damaged). */
int dk_solve_unit(dk_solver *s, const dk_plan *plan, dk_value *out, char *err, size_t errlen);

/* Verifies a solved unit by the forward pass of verify.h: every position's value must be the
 * best its moves reach, read from the unit itself, the finished units above and the finished
 * tables. Call right after dk_solve_unit on the same solver. Returns 0; 1 with the failing
 * position (group, side, kings_index); -1 with one line in err if a value cannot be read. */
int dk_verify_unit(dk_solver *s, const dk_plan *plan, const dk_value *values, uint64_t *bad_group,
                   int *bad_side, uint64_t *bad_kings, char *err, size_t errlen);

/* The values of p (White to move, of material m) after a move, as a finished table or unit
 * says: out[0] DTW, out[1] the rule value (with a draw rule). What solving and verification
 * read for every successor. Returns 0, or -1 with one line in err. */
int dk_solver_value(dk_solver *s, dk_material m, const dk_pos *p, dk_value out[2], char *err,
                    size_t errlen);

#endif
