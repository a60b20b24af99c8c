/* A small JSON reader: a document parsed into a tree, for the commands that read back what
 * damka wrote (a published manifest.json). Strict RFC 8259 JSON: one value, nesting at most
 * DK_JSONR_DEPTH deep; strings are kept with their escapes resolved (\uXXXX, surrogate pairs
 * included, as UTF-8); numbers as their text, which is all a comparison needs. */
#ifndef DK_JSONREAD_H
#define DK_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { DK_JSONR_DEPTH = 64 };

typedef enum dk_jsonr_kind {
    DK_JSONR_NULL,
    DK_JSONR_FALSE,
    DK_JSONR_TRUE,
    DK_JSONR_NUMBER,
    DK_JSONR_STRING,
    DK_JSONR_ARRAY,
    DK_JSONR_OBJECT,
} dk_jsonr_kind;

typedef struct dk_jsonr dk_jsonr;
struct dk_jsonr {
    dk_jsonr_kind kind;
    char *text;      /* a string's value (NUL-terminated; a \u0000 in it ends it early) or a
                      * number's text; NULL for the other kinds */
    char *key;       /* its name, when it is a member of an object; else NULL */
    dk_jsonr *items; /* an array's items or an object's members, in document order ... */
    size_t n;        /* ... and their count */
};

/* Parses len bytes of text. Returns the tree (free it with dk_jsonr_free), or NULL with one
 * line in err saying what is wrong and at which byte (or that memory ran out). Pure;
 * thread-safe. */
dk_jsonr *dk_jsonr_parse(const char *text, size_t len, char *err, size_t errlen);

void dk_jsonr_free(dk_jsonr *v);

/* The member `key` of object o (the first, if named twice), or NULL when o is not an object or
 * has none. */
const dk_jsonr *dk_jsonr_get(const dk_jsonr *o, const char *key);

/* The string of member `key` of o, or NULL when there is none or it is not a string. */
const char *dk_jsonr_string(const dk_jsonr *o, const char *key);

/* Whether v is a whole number from 0 to 2^64-1; if so, *x is it. */
bool dk_jsonr_u64(const dk_jsonr *v, uint64_t *x);

/* Whether a and b are the same value: the same kind, strings equal, numbers of equal text,
 * arrays equal item by item, objects with the same members in any order. If not and path is
 * given, it is filled with where they first differ ("rule.wins", "dtw_histogram.7",
 * "files.dtw.crc32c"; empty when the documents differ at the top). */
bool dk_jsonr_equal(const dk_jsonr *a, const dk_jsonr *b, char *path, size_t pathlen);

#endif
