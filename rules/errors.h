/* One-line error messages into caller buffers, the way every layer reports failure, and the
 * named statuses the generator and the command line return with them. */
#ifndef DK_ERRORS_H
#define DK_ERRORS_H

#include <stddef.h>

/* What a function that can fail returns: one kind for every layer, with the few kinds callers act
 * on. Negative: the call failed, and every kind but DK_PEER_FAILED comes with one line in the
 * caller's buffer (or, for libdamka's probe calls, in its per-thread line). Positive: no failure
 * of the call, but an answer other than the one asked for. */
typedef enum dk_status {
    DK_OK = 0,
    DK_FAILED = -1,      /* failed here, in no way a caller tells apart: the line says why */
    DK_PEER_FAILED = -2, /* another rank sharing the work failed; it reports that itself */
    DK_REFUSED = -3,     /* bad input (an option, a position tables cannot hold), refused before
                          * any work: the line says which */
    DK_MISSING = -4,     /* a file (a table) that is not there */
    DK_DAMAGED = -5,     /* a file whose bytes are wrong: damaged, truncated, another format, or
                          * changed under the reader; it stays so until it is made again */
    DK_IO = -6,          /* reading or writing failed (the system said why): says nothing of
                          * the file, and may pass if tried again */
    DK_NO_MEMORY = -7,   /* out of memory: may pass if tried again */
    DK_WRONG_VALUE = 1,  /* a check the call ran found a wrong value */
    DK_MUST_CAPTURE = 2, /* a probe told not to resolve captures met a position that must capture */
    DK_NOT_CACHED = 3,   /* a probe told to use the cache only needs a block it does not hold */
} dk_status;

/* A short constant English text for a status ("ok", "damaged", ...); never NULL, also for values
 * outside the enum. Thread-safe. */
const char *dk_status_text(int status);

/* The kind of failure errno (as an open, read or write left it) says: DK_MISSING for ENOENT,
 * DK_NO_MEMORY for ENOMEM, else DK_IO. Thread-safe. */
dk_status dk_status_of_errno(int err);

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
