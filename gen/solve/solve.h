/* Retrograde analysis of one work unit: the values (WIN/LOSS with DTW, or DRAW) of every
 * position in it, both sides to move, from the finished values of what it depends on; and,
 * when the run follows a draw rule, the rule value of every position (query/drawrule.h). */
#ifndef DK_SOLVE_H
#define DK_SOLVE_H

#include "../check/exitcheck.h"
#include "finished.h"
#include "../sched/groups.h"

typedef struct dk_solver dk_solver;

/* Units of the level above a solver keeps open at once (man moves read them); their
 * decompressed blocks share one pool (gen/store/blockpool.h) with verification's. */
enum { DK_SOLVER_ABOVE_OPEN = 16 };

/* How the ranks sharing a split unit talk, implemented over MPI by gen/run/transport.c so that this
 * layer needs none. Both calls are collective: every rank of the split makes them in the same
 * order. */
typedef struct dk_split_comm {
    int rank, nranks;
    void *ctx;
    /* Sends counts[r] bytes to each rank r, taken from send in rank order, and receives what
     * every rank sent to this one, in rank order, into *recv (grown with realloc; *cap its
     * size), setting recv_counts[r] to the bytes from rank r; and replaces flags[0..nflags)
     * (nflags <= 8) with their minimum over the ranks, so that a round's data and every rank's
     * state travel in one step. Returns 0, or -1 when out of memory (then on every rank). */
    int (*exchange)(void *ctx, const void *send, const size_t *counts, void **recv, size_t *cap,
                    size_t *recv_counts, int64_t *flags, int nflags);
    /* Replaces v[0..n) with their minimum over the ranks. */
    void (*min)(void *ctx, int64_t *v, int n);
    /* Where the split stands on this rank, for a progress line (NULL: nobody asks): `stage`
     * "classifying" or "verifying" with `done` of this rank's `total` positions, or "solving"
     * (DTW) or "solving under the rule" at distance `done` after `rounds` exchanges. Called
     * often: it decides itself when to print. */
    void (*progress)(void *ctx, const char *stage, uint64_t done, uint64_t total, uint64_t rounds);
} dk_split_comm;

/* A solver reading finished tables through `finished` and finished units from dir/work, with a
 * draw rule of `limit` plies (0: DTW only), keeping the units' blocks decompressed in `blocks`
 * (the caller's pool, dk_budget's exit cache, which check's unit files share), and reading every
 * exit again through `check` (exitcheck.h): a value the two read differently stops the unit. It
 * builds the groups of the units above with `gcache`, the caller's (shared with the caller's own
 * groups of the same pairs, and with check, all of which it outlives). One per thread. Returns
 * NULL when out of memory. */
dk_solver *dk_solver_new(const dk_workgraph *g, dk_finished *finished, dk_exit_check *check,
                         dk_groups_cache *gcache, const char *dir, unsigned limit, dk_block_pool *blocks);

/* The kinds of exit the check reads each along a path of its own (exitcheck.c). */
typedef enum {
    DK_EXIT_ANY = 0,
    DK_EXIT_STORED,  /* to a finished table, a position that need not capture */
    DK_EXIT_CAPTURE, /* to a finished table, a position that must capture */
    DK_EXIT_ABOVE,   /* a man move, to a unit of the level above */
} dk_exit_kind;

/* A test hook: the solver alters the first exit of `kind` it reads once it has classified
 * `after` more positions (of any unit, split ones too; UINT64_MAX: none), as if its path had
 * read it wrong. The check's reading of that exit then stops the unit. A no-op but in the test
 * build (damka-test: gen/solve/solve.c compiled with DK_TEST_HOOKS). */
void dk_solver_test_corrupt_exit(dk_solver *s, uint64_t after, dk_exit_kind kind);

void dk_solver_free(dk_solver *s);

/* Closes the units above (their blocks go back to the pool) and frees what the units grew
 * (scratch, queues, a split's buffers), so that what the thread does next (finishing a pair)
 * has the memory the budget counts for it. Between two units none of it is needed: they reuse
 * it. */
void dk_solver_idle(dk_solver *s);

/* Solves the unit of ug into out (ug->npositions positions in ug's order, each its
 * DTW value followed, with a draw rule, by its rule value). Exits
 * (captures, promotions, man moves) take their values from finished tables and units, each
 * confirmed by the check's own reading (a disagreement: -1, naming the material, the position
 * as FEN and the exit); king
 * moves inside a group are resolved backwards from the positions whose values are known, in
 * increasing distance, so the first value a position receives is exact; rule values the same
 * way in increasing distance to conversion, up to the limit. Returns 0, or -1 with one line in
 * err (an input missing or damaged). */
int dk_solve_unit(dk_solver *s, const dk_groups *ug, dk_value *out, char *err, size_t errlen);

/* Verifies a solved unit by the forward pass of verify.h: every position's value must be the
 * best its moves reach, read from the unit itself, the finished units above and the finished
 * tables. Call right after dk_solve_unit on the same solver. Returns DK_OK; DK_WRONG_VALUE
 * with the failing position (group, member, kings_index); DK_FAILED with one line in err if a
 * value cannot be read. */
int dk_verify_unit(dk_solver *s, const dk_groups *ug, const dk_value *values, uint64_t *bad_group,
                   int *bad_member, uint64_t *bad_kings, char *err, size_t errlen);

/* Solves a split unit (ug->nparts parts, or any unit the work graph marks oversize) together
 * with the other ranks of comm, which call it with the same ug: this rank holds the parts q
 * with q % nranks == rank, their values in out one part after the other (dk_split_positions of
 * them). King moves between parts held by different ranks are resolved by exchanging
 * predecessor updates in batches, round by round in increasing distance, so the values are
 * exactly those one rank would find. Returns DK_OK on every rank, or on every rank a failure:
 * DK_FAILED with one line in err where a value could not be read or memory ran out,
 * DK_PEER_FAILED on the others. */
int dk_solve_split(dk_solver *s, const dk_groups *ug, const dk_split_comm *comm, dk_value *out,
                   char *err, size_t errlen);

/* Verifies the split unit just solved by the forward pass of verify.h, each rank its own
 * positions, asking the holders of the successors it reads for their values. Call right after
 * dk_solve_split on the same solver. Returns DK_OK; DK_WRONG_VALUE when a position fails on
 * some rank (on this one: *bad_here, with the position in *bad_member, *bad_kings of the unit's
 * single group); DK_FAILED with one line in err where a value could not be read,
 * DK_PEER_FAILED on the other ranks then. */
int dk_verify_split(dk_solver *s, const dk_groups *ug, const dk_split_comm *comm,
                    const dk_value *values, bool *bad_here, int *bad_member, uint64_t *bad_kings,
                    char *err, size_t errlen);

/* How many positions of ug's split unit rank `rank` of `nranks` holds. Pure. */
uint64_t dk_split_positions(const dk_groups *ug, int rank, int nranks);

#endif
