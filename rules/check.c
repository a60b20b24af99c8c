#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int check_fd = STDERR_FILENO;

void dk_check_set_fd(int fd) { check_fd = fd; }

_Noreturn void dk_check_failed(const char *cond, const char *file, int line)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "damka: internal error: %s:%d: a broken invariant: %s\n", file, line, cond);
    if (n > (int)sizeof buf - 1) { /* cut: the line still ends */
        n = (int)sizeof buf - 1;
        buf[n - 1] = '\n';
    }
    if (n > 0 && write(check_fd, buf, (size_t)n) < 0) {
        /* nowhere left to say it: the abort still ends the process */
    }
    abort();
}
