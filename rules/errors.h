/* One-line error messages into caller buffers, the way every layer reports failure. */
#ifndef DK_ERRORS_H
#define DK_ERRORS_H

#include <stddef.h>

/* Formats one line into err (if err and errlen) and returns -1. Thread-safe. */
int dk_errorf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
