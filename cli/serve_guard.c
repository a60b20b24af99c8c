/* The deadline of a request's headers and body (serve_mhd.h): a list of the open connections
 * under a lock, swept by the main thread. The sweep shuts a connection's socket down, never
 * closes it: libmicrohttpd then sees the end of its input and closes the connection itself. The
 * socket is still libmicrohttpd's while the connection is on the list (it is removed on
 * MHD_CONNECTION_NOTIFY_CLOSED, before the socket is closed), so the sweep never touches a
 * number the system has given to another file. */
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "serve_mhd.h"

struct serve_conn {
    serve_conn *prev, *next;
    int fd;
    bool busy;    /* its request is whole: no deadline until it is answered */
    double since; /* when its current request began */
};

double serve_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void serve_guard_start(serve_guard *g, double seconds)
{
    pthread_mutex_init(&g->lock, NULL);
    g->head = NULL;
    g->seconds = seconds;
    g->cut = 0;
}

void serve_guard_end(serve_guard *g)
{
    while (g->head) { /* none after MHD_stop_daemon; freed all the same */
        serve_conn *c = g->head;
        g->head = c->next;
        free(c);
    }
    pthread_mutex_destroy(&g->lock);
}

void serve_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                        enum MHD_ConnectionNotificationCode code)
{
    serve_guard *g = cls;
    serve_conn *c = *socket_context;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!info || !(c = calloc(1, sizeof *c)))
            return; /* unguarded: the idle timeout still holds */
        c->fd = info->connect_fd;
        c->since = serve_now();
        pthread_mutex_lock(&g->lock);
        c->next = g->head;
        if (g->head)
            g->head->prev = c;
        g->head = c;
        pthread_mutex_unlock(&g->lock);
        *socket_context = c;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && c) {
        pthread_mutex_lock(&g->lock);
        if (c->prev)
            c->prev->next = c->next;
        else
            g->head = c->next;
        if (c->next)
            c->next->prev = c->prev;
        pthread_mutex_unlock(&g->lock);
        free(c);
        *socket_context = NULL;
    }
}

/* The guard's record of conn, or NULL. */
static serve_conn *conn_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

void serve_guard_answering(serve_guard *g, struct MHD_Connection *conn)
{
    serve_conn *c = conn_of(conn);
    if (!c)
        return;
    pthread_mutex_lock(&g->lock);
    c->busy = true;
    pthread_mutex_unlock(&g->lock);
}

void serve_guard_answered(serve_guard *g, struct MHD_Connection *conn)
{
    serve_conn *c = conn_of(conn);
    if (!c)
        return;
    pthread_mutex_lock(&g->lock);
    c->busy = false;
    c->since = serve_now();
    pthread_mutex_unlock(&g->lock);
}

unsigned serve_guard_sweep(serve_guard *g, double now)
{
    unsigned n = 0;
    pthread_mutex_lock(&g->lock);
    for (serve_conn *c = g->head; c; c = c->next)
        if (!c->busy && now - c->since > g->seconds) {
            shutdown(c->fd, SHUT_RDWR);
            c->busy = true; /* once: libmicrohttpd closes it soon */
            n++;
        }
    g->cut += n;
    pthread_mutex_unlock(&g->lock);
    return n;
}
