#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_fd = STDERR_FILENO;

void dk_check_set_fd(int fd) { check_fd = fd; }

/* Appends s to the line at *end, within limit. */
static void append(char **end, const char *limit, const char *s)
{
    size_t n = strlen(s), room = (size_t)(limit - *end);
    n = n < room ? n : room;
    memcpy(*end, s, n);
    *end += n;
}

_Noreturn void dk_check_failed(const char *cond, const char *file, int line)
{
    char num[16], *d = num + sizeof num;
    *--d = 0;
    unsigned v = line > 0 ? (unsigned)line : 0;
    do
        *--d = (char)('0' + v % 10);
    while ((v /= 10) && d > num);
    char buf[512], *end = buf;
    const char *limit = buf + sizeof buf - 1;
    append(&end, limit, "damka: internal error: ");
    append(&end, limit, file);
    append(&end, limit, ":");
    append(&end, limit, d);
    append(&end, limit, ": a broken invariant: ");
    append(&end, limit, cond);
    *end++ = '\n';
    if (write(check_fd, buf, (size_t)(end - buf)) < 0) {
        /* nowhere left to say it: the abort still ends the process */
    }
    abort();
}
