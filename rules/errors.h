/* One-line error messages into caller buffers, the way every layer reports failure, and the
 * named statuses the generator and the command line return with them. */
#ifndef DK_ERRORS_H
#define DK_ERRORS_H

#include <stddef.h>

/* What a function that can fail returns. Every status but DK_OK and DK_PEER_FAILED comes with
 * one line in the caller's buffer (or, for libdamka's probe calls, in its per-thread line). */
typedef enum dk_status {
    DK_OK = 0,
    DK_FAILED = -1,      /* failed here: the line says why */
    DK_PEER_FAILED = -2, /* another rank sharing the work failed; it reports that itself */
    DK_REFUSED = -3,     /* bad input, refused before any work: the line says which */
    DK_WRONG_VALUE = 1,  /* no failure of the call: a check it ran found a wrong value */
} dk_status;

/* Formats one line into err (if err and errlen) and returns DK_FAILED. Thread-safe. */
int dk_errorf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Formats one line into err (if err and errlen) and returns status (a dk_status, or a named
 * result of the caller's own). Thread-safe. */
int dk_statusf(int status, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* How much of an input a message quotes: DK_QUOTE_CHARS characters at most, then "...". */
enum { DK_QUOTE_CHARS = 60, DK_QUOTE_MAX = 4 * DK_QUOTE_CHARS + 4 };

/* Quotes the len bytes at s (NULs included) for a message, into buf (DK_QUOTE_MAX bytes are
 * always enough): printable ASCII as it is, a backslash doubled, a tab, line feed or carriage
 * return as \t, \n, \r, any other byte (a control character, a NUL, a byte above 0x7e) as
 * \xNN, so that a quote never carries a control character to a terminal or a tab into a
 * column; cut after DK_QUOTE_CHARS characters with "...". Returns buf. Thread-safe. */
const char *dk_quote(const char *s, size_t len, char *buf, size_t buflen);

#endif
