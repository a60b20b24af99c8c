/* damka serve: the tables of a directory over HTTP/1.1 (libmicrohttpd, a thread pool), every
 * variant it holds. The main thread waits for signals: SIGTERM or SIGINT stop the server after
 * the requests in progress; SIGHUP, or a changed manifest.json (looked at every 2 s), opens the
 * directory again and swaps the new tables in under a lock, while which requests get 503. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "serve_mhd.h"

static int cmd_serve(int argc, char **argv);

const cli_command cli_serve = {
    "serve", cmd_serve,
    "[--tables DIR] [--listen ADDR:PORT] [--threads N] [--per-client N] [--connections N] [--deadline S]",
    "serve the tables over HTTP: a JSON API and a web page",
    "Serves every variant DIR holds over HTTP/1.1: GET /{variant}?fen=FEN[&counter=PLIES] (a\n"
    "position and its moves, best first, as JSON), GET /{variant}/mainline?fen=FEN, POST\n"
    "/{variant}/batch (one FEN a line, or a JSON array of strings), GET /health, GET /stats, and\n"
    "a web page at / (docs/api.md). Runs until SIGTERM or SIGINT; SIGHUP, or a new manifest.json\n"
    "in DIR, opens the tables again. Prints the address it listens on, on stderr.\n",
    "  --tables DIR           the tables (default $DAMKA_TABLES, else ./tables)\n"
    "  --listen ADDR:PORT     the address to listen on (default 127.0.0.1:8080; [::1]:8080 for\n"
    "                         IPv6; port 0: any free port, printed at start)\n"
    "  --threads N            threads answering requests, 1 to 256 (default: the processors)\n"
    "  --per-client N         connections open at once from one address, 0 for no limit (behind\n"
    "                         a proxy) (default 32)\n"
    "  --connections N        connections open at once in all, 1 to 10000 (default 1000)\n"
    "  --deadline S           seconds a request's headers and body may take to arrive, 1 to 3600;\n"
    "                         a connection idle as long is closed too (default 10)\n",
};

typedef struct server {
    const char *dir;
    serve_tables *tables; /* the set in use, replaced under `lock` */
    pthread_rwlock_t lock;
    serve_counters counters;
    serve_guard guard;
} server;

/* A request's body as it arrives (POST): kept up to SERVE_BODY_MAX bytes, then only counted. */
typedef struct upload {
    char *data;
    size_t len;
    bool too_large, answered; /* answered: a reply is queued, whatever comes next is ignored */
} upload;

/* Queues r on conn: the request is whole, its deadline stops. */
static enum MHD_Result send_reply(struct MHD_Connection *conn, server *srv, serve_reply *r, const char *stamp)
{
    serve_guard_answering(&srv->guard, conn);
    return serve_send(conn, &srv->counters, r, stamp);
}

/* libmicrohttpd's request handler: called first with the headers, then with each piece of the
 * body, then once more to answer. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                 const char *version, const char *data, size_t *data_len, void **con_cls)
{
    (void)version;
    server *srv = cls;
    upload *u = *con_cls;
    serve_reply r;
    if (!u) {
        if (!(u = calloc(1, sizeof *u)))
            return MHD_NO;
        *con_cls = u;
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (!cl || strtoull(cl, NULL, 10) <= SERVE_BODY_MAX)
            return MHD_YES;
        u->too_large = u->answered = true; /* answered at once: the body is not read */
        serve_error(&r, 413, "the body holds %.20s bytes, at most %d", cl, SERVE_BODY_MAX);
        return send_reply(conn, srv, &r, "");
    }
    if (u->answered) {
        *data_len = 0;
        return MHD_YES;
    }
    if (*data_len) {
        if (!u->too_large && u->len + *data_len > SERVE_BODY_MAX) {
            u->too_large = true;
            free(u->data);
            u->data = NULL;
        } else if (!u->too_large) {
            char *grown = realloc(u->data, u->len + *data_len);
            if (!grown)
                return MHD_NO;
            memcpy(grown + u->len, data, *data_len);
            u->data = grown;
            u->len += *data_len;
        }
        *data_len = 0;
        return MHD_YES;
    }
    u->answered = true;
    if (u->too_large) {
        serve_error(&r, 413, "the body holds more than %d bytes", SERVE_BODY_MAX);
        return send_reply(conn, srv, &r, "");
    }
    if (pthread_rwlock_tryrdlock(&srv->lock) != 0) {
        serve_error(&r, 503, "the tables are being replaced: try again in a moment");
        return send_reply(conn, srv, &r, "");
    }
    serve_request rq = {method, url, NULL, MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "counter"),
                        u->data, u->len, 0};
    /* with its length: a %00 decodes to a NUL, which the parser must see to refuse */
    if (MHD_lookup_connection_value_n(conn, MHD_GET_ARGUMENT_KIND, "fen", 3, &rq.fen, &rq.fen_len) != MHD_YES)
        rq.fen = NULL;
    serve_route(srv->tables, &srv->counters, &rq, &r);
    char stamp[sizeof srv->tables->stamp];
    memcpy(stamp, srv->tables->stamp, sizeof stamp);
    pthread_rwlock_unlock(&srv->lock);
    return send_reply(conn, srv, &r, stamp);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    server *srv = cls;
    serve_guard_answered(&srv->guard, conn);
    upload *u = *con_cls;
    if (u) {
        free(u->data);
        free(u);
        *con_cls = NULL;
    }
}

/* Parses "ADDR:PORT" ("127.0.0.1:8080", "[::1]:8080") into *a; false when it is not one. */
static bool parse_listen(const char *text, struct sockaddr_storage *a, bool *v6)
{
    char host[64];
    const char *colon = strrchr(text, ':');
    long port;
    if (!colon || (size_t)(colon - text) >= sizeof host || !cli_parse_int(colon + 1, 0, 65535, &port))
        return false;
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = 0;
    memset(a, 0, sizeof *a);
    size_t n = strlen(host);
    if ((*v6 = n >= 2 && host[0] == '[' && host[n - 1] == ']')) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)a;
        host[n - 1] = 0;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        return inet_pton(AF_INET6, host + 1, &s6->sin6_addr) == 1;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)a;
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, host, &s4->sin_addr) == 1;
}

/* Opens the directory again and swaps the new set in (requests meanwhile get 503); keeps the
 * old set when the new one cannot be opened. */
static void reload(server *srv, const char *why)
{
    char err[4200];
    serve_tables *t = serve_tables_open(srv->dir, err, sizeof err);
    if (!t) {
        cli_fail("serve: %s; the tables in use stay", err);
        return;
    }
    pthread_rwlock_wrlock(&srv->lock);
    serve_tables *old = srv->tables;
    srv->tables = t;
    pthread_rwlock_unlock(&srv->lock);
    serve_tables_close(old);
    atomic_fetch_add(&srv->counters.reloads, 1);
    fprintf(stderr, "damka serve: tables opened again (%s)\n", why);
}

/* Waits for SIGTERM or SIGINT, reloading on SIGHUP or a new manifest.json (looked at every 2
 * s), and shutting connections down at their request's deadline (every quarter second). */
static void wait_for_stop(server *srv, const sigset_t *set)
{
    struct timespec tick = {0, 250 * 1000 * 1000};
    double looked = serve_now();
    for (;;) {
        int sig = sigtimedwait(set, NULL, &tick);
        if (sig == SIGTERM || sig == SIGINT)
            return;
        double now = serve_now();
        serve_guard_sweep(&srv->guard, now);
        if (sig == SIGHUP) {
            reload(srv, "SIGHUP");
            continue;
        }
        if (now - looked < 2)
            continue;
        looked = now;
        char stamp[sizeof srv->tables->stamp];
        serve_stamp(srv->dir, stamp, sizeof stamp);
        if (strcmp(stamp, srv->tables->stamp) != 0) /* only this thread writes tables */
            reload(srv, "a new manifest.json");
    }
}

static int cmd_serve(int argc, char **argv)
{
    const char *dir = getenv("DAMKA_TABLES"), *listen = "127.0.0.1:8080", *threads_text = NULL, *per_text = NULL,
               *conn_text = NULL, *deadline_text = NULL;
    int status = 0;
    if (!dir)
        dir = "tables";
    for (int i = 1; i < argc; i++) {
        if (cli_option_value(argc, argv, &i, "--tables", &dir, &status) ||
            cli_option_value(argc, argv, &i, "--listen", &listen, &status) ||
            cli_option_value(argc, argv, &i, "--threads", &threads_text, &status) ||
            cli_option_value(argc, argv, &i, "--per-client", &per_text, &status) ||
            cli_option_value(argc, argv, &i, "--connections", &conn_text, &status) ||
            cli_option_value(argc, argv, &i, "--deadline", &deadline_text, &status)) {
            if (status)
                return status;
        } else if (cli_is_option(argv[i])) {
            return cli_unknown_option(&cli_serve, argv[i]);
        } else {
            return cli_usage_error(&cli_serve, "unexpected argument '%s'", argv[i]);
        }
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), threads = cpus > 0 ? (cpus < 256 ? cpus : 256) : 1;
    if (threads_text && !cli_parse_int(threads_text, 1, 256, &threads))
        return cli_error("serve: --threads must be a whole number from 1 to 256, got '%s'", threads_text);
    long per_client = 32, connections = 1000, deadline = 10;
    if (per_text && !cli_parse_int(per_text, 0, 10000, &per_client))
        return cli_error("serve: --per-client must be a whole number from 0 to 10000, got '%s'", per_text);
    if (conn_text && !cli_parse_int(conn_text, 1, 10000, &connections))
        return cli_error("serve: --connections must be a whole number from 1 to 10000, got '%s'", conn_text);
    if (deadline_text && !cli_parse_int(deadline_text, 1, 3600, &deadline))
        return cli_error("serve: --deadline must be a whole number of seconds from 1 to 3600, got '%s'",
                         deadline_text);
    struct sockaddr_storage addr;
    bool v6;
    if (!parse_listen(listen, &addr, &v6))
        return cli_error("serve: --listen must be ADDR:PORT (127.0.0.1:8080, [::1]:8080), got '%s'", listen);
    if (!*dir)
        return cli_error("serve: the table directory is an empty name (--tables DIR or $DAMKA_TABLES)");
    char err[4200];
    server srv = {.dir = dir};
    if (!(srv.tables = serve_tables_open(dir, err, sizeof err)))
        return cli_error("serve: %s", err);
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&srv.lock, &attr);
    srv.counters.threads = (unsigned)threads;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    srv.counters.started = (double)ts.tv_sec + ts.tv_nsec / 1e9;

    /* the signals are waited for by this thread only: blocked before the pool's threads start */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* libmicrohttpd's bounds: connections in all and from one address, an idle timeout, 32 KiB
     * of headers a connection; the guard adds the deadline of a request */
    serve_guard_start(&srv.guard, (double)deadline);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | (v6 ? MHD_USE_IPv6 : 0);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, &srv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, &srv, MHD_OPTION_NOTIFY_CONNECTION, serve_guard_notify,
        &srv.guard, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(threads > 1 ? threads : 0),
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)deadline, MHD_OPTION_CONNECTION_LIMIT, (unsigned)connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)per_client, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)32 * 1024, MHD_OPTION_LISTEN_BACKLOG_SIZE, 256u, MHD_OPTION_END);
    if (!d) {
        serve_guard_end(&srv.guard);
        serve_tables_close(srv.tables);
        return cli_fail("serve: cannot listen on %s (in use, or not an address of this machine)", listen);
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    char host[64];
    snprintf(host, sizeof host, "%.*s", (int)(strrchr(listen, ':') - listen), listen);
    fprintf(stderr, "damka serve: listening on http://%s:%u/ (%s, %ld threads)\n", host,
            info ? info->port : 0u, dir, threads);
    wait_for_stop(&srv, &set);
    MHD_stop_daemon(d);
    fprintf(stderr, "damka serve: stopped after %llu requests (%llu connections cut at their deadline)\n",
            (unsigned long long)atomic_load(&srv.counters.requests), srv.guard.cut);
    serve_guard_end(&srv.guard);
    serve_tables_close(srv.tables);
    pthread_rwlock_destroy(&srv.lock);
    return 0;
}
