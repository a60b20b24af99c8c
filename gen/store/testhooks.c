#include "testhooks.h"

#ifdef DK_TEST_HOOKS

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../query/drawrule.h"
#include "unitfile.h"

/* Whether variable `var` names unit u: its number, "*" or (a split unit) "split". */
static bool names_unit(const char *var, uint32_t u, bool split)
{
    const char *e = getenv(var);
    return e && *e && (strcmp(e, "*") == 0 || (split && strcmp(e, "split") == 0) || strtoul(e, NULL, 10) == u);
}

void dk_hook_corrupt_values(uint32_t u, bool split, dk_value *values, uint64_t n, unsigned stride)
{
    if (n == 0)
        return;
    dk_value *v = &values[n / 2 * stride];
    if (names_unit("DAMKA_TEST_CORRUPT_UNIT", u, split))
        *v = *v == DK_DRAW ? dk_value_of_dtw(1) : (dk_value)(*v + 2);
    if (names_unit("DAMKA_TEST_CORRUPT_CAPTURE", u, split))
        *v ^= DK_UNIT_CAPTURE;
    if (stride > 1 && names_unit("DAMKA_TEST_CORRUPT_RULE", u, split))
        v[1] = dk_rule_is_decided(v[1]) ? (dk_value)(v[1] + 2) : dk_rule_win(1);
}

bool dk_hook_corrupt_exit(uint32_t u, bool split, bool this_rank, int *kind)
{
    if (!this_rank || !names_unit("DAMKA_TEST_CORRUPT_EXIT", u, split))
        return false;
    static const char *const kinds[] = {"", "stored", "capture", "above"};
    const char *want = getenv("DAMKA_TEST_CORRUPT_EXIT_KIND");
    *kind = 0;
    while (want && *kind < 4 && strcmp(want, kinds[*kind]) != 0)
        (*kind)++;
    if (*kind == 4) { /* a test that names no kind must not pass by altering another */
        fprintf(stderr, "DAMKA_TEST_CORRUPT_EXIT_KIND=%s: not stored, capture or above\n", want);
        exit(2);
    }
    return true;
}

bool dk_hook_table_bytes(uint64_t *bytes)
{
    const char *e = getenv("DAMKA_TEST_TABLE_BYTES");
    if (e)
        *bytes = strtoull(e, NULL, 10);
    return e != NULL;
}

bool dk_hook_open_units(uint32_t *n)
{
    const char *e = getenv("DAMKA_TEST_OPEN_UNITS");
    if (e) {
        unsigned long v = strtoul(e, NULL, 10);
        *n = v < 1 ? 1 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    }
    return e != NULL;
}

void dk_hook_split_pause(void)
{
    const char *mark = getenv("DAMKA_TEST_SPLIT_PAUSE");
    if (!mark || !*mark)
        return;
    /* written whole, then renamed: the ranks of a split write it at once */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.%ld", mark, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        if (fclose(f) == 0)
            rename(tmp, mark);
    }
    sleep(2);
}

dk_hook_fail dk_hook_fail_init(void)
{
    const char *e = getenv("DAMKA_TEST_FAIL_INIT");
    return !e ? DK_HOOK_FAIL_NONE : strcmp(e, "alloc") == 0 ? DK_HOOK_FAIL_ALLOC : DK_HOOK_FAIL_WORKER;
}

uint32_t dk_hook_group_ranks(void)
{
    const char *e = getenv("DAMKA_TEST_GROUP_RANKS");
    return e && *e ? (uint32_t)strtoul(e, NULL, 10) : 0;
}

void dk_hook_part_written(void)
{
    static _Atomic unsigned written; /* rank 0 writes parts on its worker thread */
    const char *e = getenv("DAMKA_TEST_KILL_AFTER_PARTS");
    if (e && *e && ++written >= strtoul(e, NULL, 10))
        raise(SIGKILL);
}

bool dk_hook_mpi_fail(void) { return getenv("DAMKA_TEST_MPI_FAIL") != NULL; }

bool dk_hook_broken_invariant(void) { return getenv("DAMKA_TEST_BROKEN_INVARIANT") != NULL; }

bool dk_hook_lock_wait(double *seconds)
{
    const char *e = getenv("DAMKA_TEST_LOCK_WAIT");
    if (e && *e)
        *seconds = atof(e);
    return e && *e;
}

bool dk_hook_progress_seconds(double *every)
{
    const char *e = getenv("DAMKA_TEST_PROGRESS_SECONDS");
    if (e && *e)
        *every = atof(e);
    return e && *e;
}

#else /* a release build: no hook */

void dk_hook_corrupt_values(uint32_t u, bool split, dk_value *values, uint64_t n, unsigned stride)
{
    (void)u, (void)split, (void)values, (void)n, (void)stride;
}

bool dk_hook_corrupt_exit(uint32_t u, bool split, bool this_rank, int *kind)
{
    (void)u, (void)split, (void)this_rank, (void)kind;
    return false;
}

bool dk_hook_table_bytes(uint64_t *bytes) { return (void)bytes, false; }

bool dk_hook_open_units(uint32_t *n) { return (void)n, false; }

void dk_hook_split_pause(void) {}

dk_hook_fail dk_hook_fail_init(void) { return DK_HOOK_FAIL_NONE; }

uint32_t dk_hook_group_ranks(void) { return 0; }

void dk_hook_part_written(void) {}

bool dk_hook_mpi_fail(void) { return false; }

bool dk_hook_broken_invariant(void) { return false; }

bool dk_hook_lock_wait(double *seconds) { return (void)seconds, false; }

bool dk_hook_progress_seconds(double *every) { return (void)every, false; }

#endif
