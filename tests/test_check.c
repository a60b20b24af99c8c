/* rules/check.h: a broken invariant is said, once, where dk_check_set_fd points, and the process
 * aborts; DK_ASSERT_HOT checks only in a build with DK_CHECKS (the sanitizer build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../rules/check.h"

/* Runs fn in a child whose failed checks go to a pipe; returns what the child wrote, and sets
 * *aborted when it died of SIGABRT (else it must have exited 0). */
static void in_child(void (*fn)(void), char *said, size_t len, bool *aborted)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dk_check_set_fd(fds[1]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < len && (n = read(fds[0], said + got, len - 1 - got)) > 0)
        got += (size_t)n;
    said[got] = 0;
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    *aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
    if (!*aborted)
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int two = 2;

enum { BROKEN_LINE = __LINE__ + 1 };
static void broken(void) { DK_ASSERT(two + two == 5); }
static void whole(void) { DK_ASSERT(two + two == 4); }
static void broken_hot(void) { DK_ASSERT_HOT(two > 3); }

static void test_broken_invariant_said_and_aborts(void **state)
{
    (void)state;
    char said[512];
    bool aborted;
    in_child(broken, said, sizeof said, &aborted);
    assert_true(aborted);
    char want[256];
    snprintf(want, sizeof want, "damka: internal error: %s:%d: a broken invariant: two + two == 5\n",
             __FILE__, BROKEN_LINE);
    assert_string_equal(said, want);
}

static void test_whole_invariant_silent(void **state)
{
    (void)state;
    char said[512];
    bool aborted;
    in_child(whole, said, sizeof said, &aborted);
    assert_false(aborted);
    assert_string_equal(said, "");
}

static void test_hot_checks_only_with_dk_checks(void **state)
{
    (void)state;
    char said[512];
    bool aborted;
    in_child(broken_hot, said, sizeof said, &aborted);
#ifdef DK_CHECKS
    assert_true(aborted);
    assert_non_null(strstr(said, ": a broken invariant: two > 3\n"));
#else
    assert_false(aborted);
    assert_string_equal(said, "");
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broken_invariant_said_and_aborts),
        cmocka_unit_test(test_whole_invariant_silent),
        cmocka_unit_test(test_hot_checks_only_with_dk_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
