/* A small JSON writer: every JSON the commands print and the manifest holds goes through it,
 * so strings are escaped and separators placed in one place. The writer puts ", " between the
 * items of a container (or "," alone: dk_json_tight) and ": " after a key; a line break with an
 * indent comes only where the caller asks for one (dk_json_newline), so that each output keeps
 * the layout people read. Strings are escaped: quotes and backslashes with a backslash, control
 * characters as \u00xx, valid UTF-8 passed through, a byte that is not valid UTF-8 written as
 * \ufffd (the replacement character): the output is valid JSON whatever the input bytes.
 *
 * Every function that writes takes `key`: the member's name inside an object, NULL inside an
 * array or for the document itself. A writer serves one document and one thread at a time;
 * distinct writers are independent (thread-safe). Misuse (a key missing or given where it
 * does not belong, a container closed that is not open, nesting deeper than DK_JSON_DEPTH, a
 * second document) is remembered and reported by dk_json_finish. */
#ifndef DK_JSON_H
#define DK_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { DK_JSON_DEPTH = 16 };

typedef struct dk_json_level {
    bool object, any, tight; /* an object (else an array); an item written; "," alone */
} dk_json_level;

typedef struct dk_json {
    FILE *f;
    int depth;   /* containers open */
    int newline; /* the indent of a line break due before the next item or close; -1: none */
    bool misused;
    dk_json_level level[DK_JSON_DEPTH + 1]; /* level 0: the document */
} dk_json;

/* Starts a document written to f. */
void dk_json_start(dk_json *w, FILE *f);

/* Returns 0 if the document is complete (one value, every container closed), was used as this
 * header says and f has no error; else -1. Writes nothing (no final newline). */
int dk_json_finish(const dk_json *w);

/* Opens an object or an array, the next item of the current container; dk_json_end closes the
 * innermost one open. */
void dk_json_object(dk_json *w, const char *key);
void dk_json_array(dk_json *w, const char *key);
void dk_json_end(dk_json *w);

/* The next item, or the next close if no item comes first, starts a new line indented by
 * `indent` spaces (after the comma that separates it). */
void dk_json_newline(dk_json *w, int indent);

/* The items of the innermost open container are separated by "," alone ([1,2,3]). */
void dk_json_tight(dk_json *w);

/* Values. dk_json_double prints x with `digits` significant digits (printf's %.*g),
 * dk_json_fixed with `decimals` after the point (%.*f); a NaN or infinity, which JSON cannot
 * hold, as null. */
void dk_json_string(dk_json *w, const char *key, const char *s);
void dk_json_u64(dk_json *w, const char *key, uint64_t x);
void dk_json_i64(dk_json *w, const char *key, int64_t x);
void dk_json_double(dk_json *w, const char *key, double x, int digits);
void dk_json_fixed(dk_json *w, const char *key, double x, int decimals);
void dk_json_bool(dk_json *w, const char *key, bool b);
void dk_json_null(dk_json *w, const char *key);

#endif
