/* damka serve without HTTP: the table sets it opens, which answer a request gets, /health,
 * /stats and errors (serve.c carries them over HTTP; tests/fuzz/serve_route.c calls them
 * directly). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "serve.h"

enum { CACHE_MB = 256 };

void serve_tables_close(serve_tables *t)
{
    if (!t)
        return;
    for (int id = 0; id < DK_NVARIANTS; id++)
        dk_tb_close(t->src[id].tb);
    for (size_t i = 0; i < t->nfiles; i++)
        free(t->files[i]);
    free(t->files);
    free(t);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds a copy of name's first n bytes to t's files; false when out of memory. */
static bool add_file(serve_tables *t, size_t *cap, const char *name, size_t n)
{
    if (t->nfiles == *cap) {
        char **grown = realloc(t->files, (*cap = *cap ? 2 * *cap : 256) * sizeof *grown);
        if (!grown)
            return false;
        t->files = grown;
    }
    return (t->files[t->nfiles] = strndup(name, n)) && ++t->nfiles;
}

/* Whether the n bytes at name are the name of a table file: <variant>-<material>.wld, .dtw or
 * .dtc. */
static bool table_file(const char *name, size_t n)
{
    return n > 4 && memchr(name, '-', n) && !memchr(name, '/', n) &&
           (!memcmp(name + n - 4, ".wld", 4) || !memcmp(name + n - 4, ".dtw", 4) || !memcmp(name + n - 4, ".dtc", 4));
}

/* The set's table files into t->files, sorted: every "file" manifest.json lists (the
 * generator writes it: one name a string, no escapes), or without one the table files in dir
 * now. False when out of memory. */
static bool list_files(serve_tables *t, const char *dir)
{
    char path[4200];
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    bool ok = true;
    if (f && getdelim(&text, &len, 0, f) > 0) {
        static const char key[] = "\"file\": \"";
        for (const char *at = text; ok && (at = strstr(at, key)); at += strlen(key)) {
            const char *name = at + strlen(key), *end = strchr(name, '"');
            if (end && table_file(name, (size_t)(end - name)))
                ok = add_file(t, &cap, name, (size_t)(end - name));
        }
    } else {
        DIR *d = opendir(dir);
        for (struct dirent *e; ok && d && (e = readdir(d));)
            if (table_file(e->d_name, strlen(e->d_name)))
                ok = add_file(t, &cap, e->d_name, strlen(e->d_name));
        if (d)
            closedir(d);
    }
    free(text);
    if (f)
        fclose(f);
    if (t->nfiles)
        qsort(t->files, t->nfiles, sizeof *t->files, by_name);
    return ok;
}

bool serve_tables_has(const serve_tables *t, const char *file)
{
    const char *slash = strrchr(file, '/'), *name = slash ? slash + 1 : file;
    return t->nfiles && bsearch(&name, t->files, t->nfiles, sizeof *t->files, by_name) != NULL;
}

serve_tables *serve_tables_open(const char *dir, char *err, size_t len)
{
    dk_tb_dir held;
    if (dk_tb_dir_scan(dir, &held) != 0) {
        char why[128]; /* strerror_r (GNU): reloads run beside the request threads */
        snprintf(err, len, "cannot read the table directory %s: %s", dir, strerror_r(errno, why, sizeof why));
        return NULL;
    }
    if (!held.variants) {
        snprintf(err, len, "%s holds no tables (damka gen --pieces N --out %s makes them)", dir, dir);
        return NULL;
    }
    serve_tables *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    dk_tb_options opt = {(size_t)CACHE_MB << 20};
    for (int id = 0; id < DK_NVARIANTS; id++) {
        answer_src *s = &t->src[id];
        if (!(held.variants >> id & 1))
            continue;
        *s = (answer_src){NULL, dir, held, dk_variant_get((dk_variant_id)id), 0};
        if (!(s->tb = dk_tb_open(dir, s->v, &opt))) {
            serve_tables_close(t);
            snprintf(err, len, "out of memory");
            return NULL;
        }
        s->limit = dk_tb_rule_limit(s->tb);
    }
    serve_stamp(dir, t->stamp, sizeof t->stamp);
    if (!list_files(t, dir)) {
        serve_tables_close(t);
        snprintf(err, len, "out of memory");
        return NULL;
    }
    return t;
}

void serve_stamp(const char *dir, char *buf, size_t len)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (stat(path, &st) != 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%llx.%lx.%llx", (unsigned long long)st.st_mtim.tv_sec, (unsigned long)st.st_mtim.tv_nsec,
                 (unsigned long long)st.st_size);
}

void serve_error(serve_reply *out, unsigned status, const char *fmt, ...)
{
    char msg[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    *out = (serve_reply){.status = status, .type = "application/json"};
    FILE *f = open_memstream(&out->body, &out->len);
    if (!f) { /* a body that needs no memory of its own */
        out->status = 503;
        out->body = NULL;
        out->len = 0;
        return;
    }
    dk_json w;
    dk_json_start(&w, f);
    dk_json_object(&w, NULL);
    dk_json_string(&w, "error", msg);
    dk_json_end(&w);
    fputc('\n', f);
    fclose(f);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The variant a path's first segment names: its name, or "standard" (lidraughts' name of
 * International draughts); NULL for any other. */
static const dk_variant *variant_named(const char *name, size_t len)
{
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const dk_variant *v = dk_variant_get((dk_variant_id)id);
        if (strlen(v->name) == len && memcmp(name, v->name, len) == 0)
            return v;
    }
    if (len == 8 && memcmp(name, "standard", 8) == 0)
        return dk_variant_get(DK_INTERNATIONAL);
    return NULL;
}

bool serve_json_open(serve_json *b, serve_reply *out)
{
    *out = (serve_reply){0};
    if (!(b->f = open_memstream(&out->body, &out->len))) {
        serve_error(out, 503, "out of memory");
        return false;
    }
    dk_json_start(&b->w, b->f);
    return true;
}

void serve_json_close(serve_json *b, serve_reply *out, unsigned status)
{
    fputc('\n', b->f);
    bool ok = dk_json_finish(&b->w) == 0;
    if (fclose(b->f) != 0 || !ok) {
        free(out->body);
        serve_error(out, 500, "the answer could not be written");
        return;
    }
    out->status = status;
    out->type = "application/json";
    out->cacheable = status == 200;
}

enum { HEALTH_NAMES = 20 }; /* missing files /health names */

/* The names of the set's table files that are gone, into names (at most HEALTH_NAMES); returns
 * how many are gone. */
static int missing_files(const serve_tables *t, const char *dir, char names[][64])
{
    int n = 0;
    for (size_t i = 0; i < t->nfiles; i++) {
        char path[4200];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, t->files[i]);
        if (stat(path, &st) == 0 || errno != ENOENT)
            continue;
        if (n < HEALTH_NAMES)
            snprintf(names[n], sizeof names[n], "%s", t->files[i]);
        n++;
    }
    return n;
}

/* {"status": "ok" or "degraded", "variants": [...], "missing": [file names], "missing_count": n}:
 * degraded when a table file of the set is gone (its positions get 503). */
static void health(const serve_tables *t, serve_reply *out)
{
    char names[HEALTH_NAMES][64];
    const char *dir = NULL;
    for (int id = 0; id < DK_NVARIANTS && !dir; id++)
        dir = t->src[id].tb ? t->src[id].dir : NULL;
    int missing = dir ? missing_files(t, dir, names) : 0;
    serve_json b;
    if (!serve_json_open(&b, out))
        return;
    dk_json *w = &b.w;
    dk_json_object(w, NULL);
    dk_json_string(w, "status", missing ? "degraded" : "ok");
    dk_json_array(w, "variants");
    for (int id = 0; id < DK_NVARIANTS; id++)
        if (t->src[id].tb)
            dk_json_string(w, NULL, t->src[id].v->name);
    dk_json_end(w);
    dk_json_array(w, "missing");
    for (int i = 0; i < missing && i < HEALTH_NAMES; i++)
        dk_json_string(w, NULL, names[i]);
    dk_json_end(w);
    dk_json_u64(w, "missing_count", (uint64_t)missing);
    dk_json_end(w);
    serve_json_close(&b, out, 200);
    out->cacheable = false;
}

/* The tables held, requests served by class of status, positions answered, each variant's block
 * cache and its hit rate. */
static void stats(const serve_tables *t, serve_counters *c, serve_reply *out)
{
    serve_json b;
    if (!serve_json_open(&b, out))
        return;
    dk_json *w = &b.w;
    dk_json_object(w, NULL);
    dk_json_fixed(w, "uptime_s", now() - c->started, 1);
    dk_json_u64(w, "threads", c->threads);
    dk_json_u64(w, "requests", atomic_load(&c->requests));
    dk_json_object(w, "statuses");
    for (int k = 1; k < 6; k++) {
        char key[4] = {(char)('0' + k), 'x', 'x', 0};
        dk_json_u64(w, key, atomic_load(&c->by_class[k]));
    }
    dk_json_end(w);
    dk_json_u64(w, "positions", atomic_load(&c->positions));
    dk_json_u64(w, "reloads", atomic_load(&c->reloads));
    dk_json_array(w, "tables");
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const answer_src *s = &t->src[id];
        if (!s->tb)
            continue;
        uint64_t lookups, misses;
        dk_tb_cache_counters(s->tb, &lookups, &misses);
        dk_json_object(w, NULL);
        dk_json_string(w, "variant", s->v->name);
        dk_json_u64(w, "pieces", (uint64_t)dk_tb_max_pieces(s->tb));
        dk_json_u64(w, "rule_limit", s->limit);
        dk_json_u64(w, "cache_lookups", lookups);
        dk_json_u64(w, "cache_misses", misses);
        dk_json_fixed(w, "cache_hit_rate", lookups ? 1.0 - (double)misses / (double)lookups : 0.0, 4);
        dk_json_end(w);
    }
    dk_json_end(w);
    dk_json_end(w);
    serve_json_close(&b, out, 200);
    out->cacheable = false;
}

/* Whether rq's method is `allowed` ("GET" or "POST"; HEAD goes with GET). Sets a 405 reply
 * when it is not, and the 204 of a CORS preflight for OPTIONS (false too: that is the reply). */
static bool method_ok(const serve_request *rq, const char *allowed, serve_reply *out)
{
    bool get = strcmp(allowed, "GET") == 0;
    if (strcmp(rq->method, allowed) == 0 || (get && strcmp(rq->method, "HEAD") == 0))
        return true;
    if (strcmp(rq->method, "OPTIONS") == 0)
        *out = (serve_reply){.status = 204, .preflight = true};
    else
        serve_error(out, 405, "%s takes %s, not %.32s", rq->path, allowed, rq->method);
    out->allow = get ? "GET, HEAD, OPTIONS" : "POST, OPTIONS";
    return false;
}

void serve_route(const serve_tables *t, serve_counters *c, const serve_request *rq, serve_reply *out)
{
    const char *path = rq->path;
    if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0) {
        if (!method_ok(rq, "GET", out))
            return;
        *out = (serve_reply){.status = 200, .type = "text/html; charset=utf-8", .cacheable = true};
        out->len = strlen(serve_page_html);
        if (!(out->body = malloc(out->len))) {
            serve_error(out, 503, "out of memory");
            return;
        }
        memcpy(out->body, serve_page_html, out->len);
        return;
    }
    if (strcmp(path, "/favicon.ico") == 0) { /* browsers ask for it: no icon, and no error */
        if (method_ok(rq, "GET", out))
            *out = (serve_reply){.status = 204, .cacheable = true};
        return;
    }
    if (strcmp(path, "/health") == 0) {
        if (method_ok(rq, "GET", out))
            health(t, out);
        return;
    }
    if (strcmp(path, "/stats") == 0) {
        if (method_ok(rq, "GET", out))
            stats(t, c, out);
        return;
    }
    /* /{variant}, /{variant}/mainline, /{variant}/batch (a path not starting with '/' is none) */
    const char *name = path[0] == '/' ? path + 1 : "", *slash = strchr(name, '/'), *rest = slash ? slash : "";
    const dk_variant *v = path[0] == '/' ? variant_named(name, slash ? (size_t)(slash - name) : strlen(name)) : NULL;
    bool known = !*rest || strcmp(rest, "/mainline") == 0 || strcmp(rest, "/batch") == 0;
    if (!v || !known) {
        serve_error(out, 404, "no such path: GET /, /health, /stats, /{variant}?fen=FEN, /{variant}/mainline?fen=FEN "
                              "or POST /{variant}/batch (docs/api.md)");
        return;
    }
    const answer_src *s = &t->src[v->id];
    if (!method_ok(rq, strcmp(rest, "/batch") == 0 ? "POST" : "GET", out))
        return;
    if (!s->tb) {
        serve_error(out, 404, "no %s tables on this server", v->name);
        return;
    }
    size_t fen_len = rq->fen && !rq->fen_len ? strlen(rq->fen) : rq->fen_len;
    if (!*rest)
        serve_position(t, s, c, rq->fen, fen_len, rq->counter, out);
    else if (strcmp(rest, "/mainline") == 0)
        serve_mainline(t, s, c, rq->fen, fen_len, rq->counter, out);
    else
        serve_batch(t, s, c, rq->body ? rq->body : "", rq->body_len, rq->counter, out);
}
