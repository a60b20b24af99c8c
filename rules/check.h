/* Invariants of damka's own state, checked where they are cheap. A broken invariant is a bug, never
 * bad input (bad input gets one line and a status: errors.h): DK_ASSERT says which condition broke
 * where, on the stderr the process started with, and aborts.
 *
 * DK_ASSERT is always compiled: the checks it guards run once a task, a unit or a call, not once
 * a position. DK_ASSERT_HOT guards the checks of the inner loops (once a position, a rank or an
 * unrank) and is compiled only with DK_CHECKS, which the sanitizer and fuzzing builds define
 * (`make test-sanitize`, `make fuzz`): the release build's loops pay nothing. */
#ifndef DK_CHECK_H
#define DK_CHECK_H

/* Writes "damka: internal error: FILE:LINE: a broken invariant: COND" to the check's file
 * descriptor, in one write, and aborts. Thread-safe. */
_Noreturn void dk_check_failed(const char *cond, const char *file, int line);

/* Where failed checks are said: fd, the stderr a process started with when its own stderr is
 * sent elsewhere (a rank other than 0 of `damka gen`: cli/launcher.c). The default is
 * STDERR_FILENO. Not thread-safe: call before any thread starts. */
void dk_check_set_fd(int fd);

#define DK_ASSERT(cond) ((cond) ? (void)0 : dk_check_failed(#cond, __FILE__, __LINE__))

#ifdef DK_CHECKS
#define DK_ASSERT_HOT(cond) DK_ASSERT(cond)
#else
#define DK_ASSERT_HOT(cond) ((void)0)
#endif

#endif
