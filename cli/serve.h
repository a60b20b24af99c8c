/* damka serve: the tablebase over HTTP (docs/api.md). serve.c runs the HTTP server
 * (libmicrohttpd) and the command; serve_route.c turns a request into a reply without any
 * HTTP library, so that tests and a fuzz harness can call it directly; serve_answer.c writes
 * the answers about positions. */
#ifndef DK_SERVE_H
#define DK_SERVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "answer.h"

/* Bounds on what a request may ask for. */
enum {
    SERVE_BODY_MAX = 64 * 1024, /* bytes of a POST body: more is 413 */
    SERVE_BATCH_MAX = 256,      /* positions of a batch: more is 413 */
    SERVE_FEN_MAX = 255,        /* bytes of a FEN: more is 400 */
    SERVE_MAINLINE_MAX = 2000,  /* plies of a main line (it always ends long before) */
};

/* One set of tables: every variant the directory holds (src[id].tb NULL where it holds none),
 * and a stamp that changes when the set does (the ETags carry it). */
typedef struct serve_tables {
    answer_src src[DK_NVARIANTS];
    char stamp[40];
    /* the table files the set is made of, sorted: those manifest.json lists, or without one
     * those in the directory when the set was opened. One of them gone is a fault of the
     * server (503 for its positions, /health degraded), not a position outside the tables. */
    char **files;
    size_t nfiles;
} serve_tables;

/* Counters of the running server, updated by every thread. */
typedef struct serve_counters {
    atomic_ullong requests, by_class[6]; /* by_class[k]: statuses k00..k99 */
    atomic_ullong positions;             /* positions answered from the tables */
    atomic_ullong reloads;               /* table sets picked up after the first */
    double started;                      /* CLOCK_MONOTONIC seconds at start */
    unsigned threads;
} serve_counters;

typedef struct serve_request {
    const char *method, *path; /* "GET", "/brazilian/mainline" (no query string) */
    const char *fen, *counter; /* the query's arguments, decoded; NULL when absent */
    const char *body;          /* a POST's body (not NUL-terminated), body_len bytes */
    size_t body_len;
    size_t fen_len;            /* fen's decoded bytes, a %00 decoded to a NUL among them (0: strlen) */
} serve_request;

typedef struct serve_reply {
    unsigned status;
    char *body; /* malloc'd (free it), len bytes */
    size_t len;
    const char *type;  /* Content-Type */
    bool cacheable;    /* the same request gets the same body while the tables stay */
    const char *allow; /* 405 and a preflight: the methods the path takes */
    bool preflight;    /* a 204 answering a CORS preflight (OPTIONS) */
} serve_reply;

/* Opens every variant dir holds, with a block cache of 256 MiB each, and stamps the set; NULL
 * with one line in err when dir cannot be read, holds no tables or memory runs out. */
serve_tables *serve_tables_open(const char *dir, char *err, size_t len);

/* Whether file (a name or a path: its last component counts) is one of the set's. Thread-safe. */
bool serve_tables_has(const serve_tables *t, const char *file);

/* Closes a set (NULL allowed); no request may be using it. */
void serve_tables_close(serve_tables *t);

/* What identifies the set on disk, into buf: manifest.json's size and time of change ("-"
 * without one). */
void serve_stamp(const char *dir, char *buf, size_t len);

/* The reply to rq from tables t. Counts the positions it answers in c. Thread-safe. */
void serve_route(const serve_tables *t, serve_counters *c, const serve_request *rq, serve_reply *out);

/* A reply whose body is JSON written through w on a memory stream: serve_json_open starts it
 * (false when out of memory, *out then a 503), serve_json_close ends it with a newline and sets
 * the status, the type and cacheable (200 only; a 500 when the writer was misused). */
typedef struct serve_json {
    FILE *f;
    dk_json w;
} serve_json;
bool serve_json_open(serve_json *b, serve_reply *out);
void serve_json_close(serve_json *b, serve_reply *out, unsigned status);

/* Sets *out to the JSON error {"error": message} with `status`. */
void serve_error(serve_reply *out, unsigned status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The answers about positions of t's variant s (serve_answer.c), each the body of a 200 reply
 * or an error: one position (GET /{variant}), its main line (GET /{variant}/mainline), a batch
 * (POST /{variant}/batch, body one FEN a line or a JSON array of strings). fen (fen_len bytes,
 * NULs refused) is not yet parsed; counter is the query's text or NULL. Thread-safe. */
void serve_position(const serve_tables *t, const answer_src *s, serve_counters *c, const char *fen, size_t fen_len,
                    const char *counter, serve_reply *out);
void serve_mainline(const serve_tables *t, const answer_src *s, serve_counters *c, const char *fen, size_t fen_len,
                    const char *counter, serve_reply *out);
void serve_batch(const serve_tables *t, const answer_src *s, serve_counters *c, const char *body, size_t len,
                 const char *counter, serve_reply *out);

/* Move m of p in lidraughts' `uci` form into buf: the two-digit PDN numbers of the squares its
 * piece stands on, from the first to the last, every landing square of a capture between them.
 * Returns 0, or -1 when buf is too small (2 * (m->ncaptures + 1) + 1 bytes always fit) or m
 * is no capture of p. Pure; thread-safe. */
int serve_uci(const dk_variant *v, const dk_pos *p, const dk_move *m, char *buf, size_t len);

/* Whether an Accept-Encoding header (NULL: none) takes gzip: a "gzip" or "*" coding whose q is
 * not 0. Pure; thread-safe. */
bool serve_accepts_gzip(const char *accept_encoding);

/* Whether an If-None-Match header names etag (weak or strong), or is "*". Pure; thread-safe. */
bool serve_etag_matches(const char *if_none_match, const char *etag);

/* The web page served at / (serve_page.html, built into the executable). */
extern const char serve_page_html[];

#endif
