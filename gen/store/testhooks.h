/* Test hooks: environment variables with which the shell tests (tests/gen.sh, cluster.sh,
 * reliability.sh, drawrule.sh) make the generator fail or slow down on purpose. They exist
 * only in a build compiled with -DDK_TEST_HOOKS: the test targets' damka-test (Makefile), of
 * which this file's object is the one difference. Without the flag every hook is a no-op or
 * answers false, and the variables' names are not in the binary (make test checks it:
 * scripts/check-hooks). Each function is thread-safe (it reads the environment only). */
#ifndef DK_TESTHOOKS_H
#define DK_TESTHOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../query/value.h"

/* DAMKA_TEST_CORRUPT_UNIT=u, DAMKA_TEST_CORRUPT_RULE=u, DAMKA_TEST_CORRUPT_CAPTURE=u ("*":
 * every unit; "split": every split unit): unit u alters one of its n positions' values, the
 * middle one's, before they are checked (verify.h): its DTW value, its rule value (stride 2)
 * or its capture flag (unitfile.h). `split` says whether u is a split unit (values holds this
 * rank's positions). */
void dk_hook_corrupt_values(uint32_t u, bool split, dk_value *values, uint64_t n, unsigned stride);

/* DAMKA_TEST_CORRUPT_EXIT=u (the same forms): whether the solver of unit u is to alter one exit
 * it reads after the first quarter of the positions it classifies, as if its path had read it
 * wrong (dk_solver_test_corrupt_exit, solve.h); on a split unit, only on the rank for which
 * this_rank is true. *kind is the kind of exit to alter, a dk_exit_kind: 0 (any), or with
 * DAMKA_TEST_CORRUPT_EXIT_KIND=stored, capture or above, 1, 2 or 3. */
bool dk_hook_corrupt_exit(uint32_t u, bool split, bool this_rank, int *kind);

/* DAMKA_TEST_TABLE_BYTES=n: both readers of finished tables of a worker get n bytes (1: a
 * block is dropped as soon as another is read). Returns true with *bytes set, else false. */
bool dk_hook_table_bytes(uint64_t *bytes);

/* DAMKA_TEST_OPEN_UNITS=n: a finishing's reader of a pair's unit files keeps at most n of them
 * open (pairreader.c; at least 1), so that the twin's scattered reads close and open units all
 * the time. Returns true with *n set, else false. */
bool dk_hook_open_units(uint32_t *n);

/* DAMKA_TEST_SPLIT_PAUSE=FILE: as a split unit starts, writes this process's id into FILE and
 * waits 2 s (for tests that kill a rank in the middle of one). */
void dk_hook_split_pause(void);

/* DAMKA_TEST_GROUP_RANKS=n: every split unit is solved by a group of n ranks (as many as the
 * run has when fewer), not sized by the budget (scheduler.h). Returns n, else 0. */
uint32_t dk_hook_group_ranks(void);

/* DAMKA_TEST_KILL_AFTER_PARTS=n: the process kills itself (SIGKILL) once it has written n
 * parts of finishings (scans or packings, parttasks.h). */
void dk_hook_part_written(void);

/* DAMKA_TEST_FAIL_INIT: whether this rank's worker is to fail to start: "alloc", rank 0's
 * memory for its worker thread is not had (any other rank: its worker fails to start); any
 * other value, the worker's start fails. */
typedef enum { DK_HOOK_FAIL_NONE, DK_HOOK_FAIL_WORKER, DK_HOOK_FAIL_ALLOC } dk_hook_fail;
dk_hook_fail dk_hook_fail_init(void);

/* DAMKA_TEST_MPI_FAIL (set): whether a rank other than 0 is to make an MPI call that fails (a
 * send to a rank that does not exist) before its first report. */
bool dk_hook_mpi_fail(void);

/* DAMKA_TEST_BROKEN_INVARIANT (set): whether a rank other than 0 is to fail a DK_ASSERT
 * (rules/check.h) before its first report, as a bug would: what it says must reach the user. */
bool dk_hook_broken_invariant(void);

/* DAMKA_TEST_LOCK_WAIT=s: how long a run waits for its directory's lock (dirlock.h). Returns
 * true with *seconds set, else false. */
bool dk_hook_lock_wait(double *seconds);

/* DAMKA_TEST_PROGRESS_SECONDS=s: the interval of the progress lines off a terminal. Returns
 * true with *every set, else false. */
bool dk_hook_progress_seconds(double *every);

#endif
