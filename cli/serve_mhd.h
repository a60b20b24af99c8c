/* The parts of damka serve that speak libmicrohttpd's language, apart from the command
 * (serve.c): sending a reply with its headers (serve_reply.c) and the deadline of a request
 * (serve_guard.c). */
#ifndef DK_SERVE_MHD_H
#define DK_SERVE_MHD_H

#include <microhttpd.h>
#include <pthread.h>

#include "serve.h"

/* Queues reply r on conn and frees its body; counts it in c. CORS and cache headers; a
 * cacheable 200 carries an ETag (the set's stamp and a hash of the body) and becomes a 304
 * without a body when If-None-Match names it or is "*"; a body of 1 KiB or more goes
 * gzip-compressed when Accept-Encoding takes gzip. Thread-safe. */
enum MHD_Result serve_send(struct MHD_Connection *conn, serve_counters *c, serve_reply *r, const char *stamp);

/* A deadline for each request: the connections open, each with the time its current request
 * began (the connection's start, or the end of the request before); a request whose headers
 * and body have not all arrived `seconds` after it began has its connection shut down, so that
 * a client sending a header line every few seconds cannot hold a connection (libmicrohttpd's
 * own timeout is an idle one, which such a client resets). */
typedef struct serve_conn serve_conn;
typedef struct serve_guard {
    pthread_mutex_t lock;
    serve_conn *head;    /* every connection open, under lock */
    double seconds;      /* the deadline */
    unsigned long long cut; /* connections shut at their deadline, under lock */
} serve_guard;

/* Starts a guard with a deadline of `seconds`; serve_guard_end ends it (no connection open). */
void serve_guard_start(serve_guard *g, double seconds);
void serve_guard_end(serve_guard *g);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback, cls the guard: adds the connection
 * when it starts and removes it when it closes (before its socket is closed). Thread-safe. */
void serve_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                        enum MHD_ConnectionNotificationCode code);

/* The request on conn is whole (its reply is queued: the deadline stops), or has been answered
 * (the next one's deadline starts now). Thread-safe. */
void serve_guard_answering(serve_guard *g, struct MHD_Connection *conn);
void serve_guard_answered(serve_guard *g, struct MHD_Connection *conn);

/* Shuts down the connections whose request is past its deadline at time `now` (CLOCK_MONOTONIC
 * seconds); returns how many. Thread-safe. */
unsigned serve_guard_sweep(serve_guard *g, double now);

/* CLOCK_MONOTONIC in seconds. */
double serve_now(void);

#endif
