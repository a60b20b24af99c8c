/* Size and speed of a directory of compressed tables (make bench-probe).
 *
 *   bench-probe [--variant V] [--seconds S] [--no-external] [--wld-only] DIR
 *
 * (a) bits per position of the .wld, .dtw and (when present) .dtc files (file bytes * 8 /
 *     positions from the headers), per piece count and in all, and, when DIR/work holds the raw working copies
 *     (damka gen --keep-work), the same raw values compressed whole with `xz -9` and
 *     `zstd -19` for comparison: WLD as one byte per position (0 draw, 1 win, 2 loss), DTW as
 *     the stored values (one byte per position, two for tables that need them);
 * (b) random probes per second through libdamka (damka_probe_wdl / damka_probe_dtw /
 *     damka_probe_rule at counter 0) on one thread, with a warm cache big enough for everything and with a cache of a tenth of the
 *     decompressed data;
 * (c) the latency of single probes (clock_gettime around each): median and 99th percentile;
 * (d) engine probes (damka_probe_wdl_flags): without resolving captures (NO_CAPTURES), from the
 *     cache only (CACHE_ONLY), and both, with the share of probes they answer.
 * Random positions are uniform over all positions of the directory (either side to move).
 * --wld-only measures the WLD probes of (b, c) alone (for comparing settings quickly). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../index/perfect.h"
#include "../query/ctable.h"
#include "../query/damka.h"
#include "../gen/store/valuefile.h"

typedef struct table {
    dk_material m;
    uint64_t count;
    uint64_t bytes[4];   /* file bytes by metric */
    uint64_t decoded[4]; /* decompressed bytes by metric */
} table;

static const char *const EXT[4] = {"", "wld", "dtw", "dtc"};
static const dk_variant *V;
static table *T;
static int NT;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void scan(const char *dir)
{
    size_t n = dk_material_list(V, 8, 0, NULL, 0);
    dk_material *ms = malloc(n * sizeof *ms);
    dk_material_list(V, 8, 0, ms, n);
    T = calloc(n, sizeof *T);
    for (size_t i = 0; i < n; i++) {
        table t = {ms[i], 0, {0}, {0}};
        int found = 0;
        for (int metric = DK_METRIC_WLD; metric <= DK_METRIC_DTC; metric++) {
            char path[4096], name[DK_MATERIAL_NAME_MAX];
            dk_material_name(ms[i], name, sizeof name);
            snprintf(path, sizeof path, "%s/%s-%s.%s", dir, V->name, name, EXT[metric]);
            if (access(path, F_OK) != 0)
                continue;
            char err[512];
            dk_ctable *c = dk_ctable_open(path, err, sizeof err);
            if (!c) {
                fprintf(stderr, "bench-probe: %s\n", err);
                exit(1);
            }
            const dk_ctable_info *in = dk_ctable_get_info(c);
            t.count = in->count;
            t.bytes[metric] = in->file_size;
            t.decoded[metric] = metric == DK_METRIC_WLD ? (in->count + 3) / 4 : in->count * in->width;
            dk_ctable_close(c);
            found += metric != DK_METRIC_DTC;
        }
        if (found == 2)
            T[NT++] = t;
    }
    free(ms);
}

/* Compresses `path` with `cmd` (a shell command reading the file name as $1) and returns the
 * compressed bytes, 0 if the tool failed. */
static uint64_t external(const char *cmd, const char *path)
{
    char line[8192];
    snprintf(line, sizeof line, "%s < '%s' | wc -c", cmd, path);
    FILE *p = popen(line, "r");
    unsigned long long bytes = 0;
    if (!p || fscanf(p, "%llu", &bytes) != 1)
        bytes = 0;
    if (p && pclose(p) != 0)
        bytes = 0;
    return bytes;
}

static void sizes(const char *dir, bool ext)
{
    printf("\n(a) size: %d tables of %s in %s\n", NT, V->name, dir);
    printf("%-7s %15s %12s %10s %12s %10s %12s %10s\n", "pieces", "positions", "WLD bytes", "bits/pos",
           "DTW bytes", "bits/pos", "DTC bytes", "bits/pos");
    uint64_t tot[4] = {0}, tcount = 0;
    for (int pieces = 2; pieces <= 9; pieces++) {
        uint64_t b[4] = {0}, count = 0;
        for (int i = 0; i < NT; i++)
            if (pieces == 9 || dk_material_pieces(T[i].m) == pieces) { /* 9: all */
                count += T[i].count;
                for (int m = 1; m <= 3; m++)
                    b[m] += T[i].bytes[m];
            }
        if (!count)
            continue;
        char label[8];
        snprintf(label, sizeof label, pieces == 9 ? "all" : "%d", pieces);
        printf("%-7s %15llu", label, (unsigned long long)count);
        for (int m = 1; m <= 3; m++)
            printf(" %12llu %10.4f", (unsigned long long)b[m], 8.0 * (double)b[m] / (double)count);
        printf("\n");
        if (pieces == 9) {
            tcount = count;
            memcpy(tot, b, sizeof tot);
        }
    }

    /* the raw working copies as two streams, compressed whole */
    char tmpl_w[] = "/tmp/bench-probe-wld-XXXXXX", tmpl_d[] = "/tmp/bench-probe-dtw-XXXXXX";
    int fw = mkstemp(tmpl_w), fd = mkstemp(tmpl_d);
    FILE *w = fw >= 0 ? fdopen(fw, "wb") : NULL, *d = fd >= 0 ? fdopen(fd, "wb") : NULL;
    uint64_t raw_count = 0;
    int nraw = 0, wide = 0;
    for (int i = 0; w && d && i < NT; i++) {
        char path[4096], name[DK_MATERIAL_NAME_MAX], err[512];
        dk_material_name(T[i].m, name, sizeof name);
        snprintf(path, sizeof path, "%s/work/%s-%s.raw", dir, V->name, name);
        if (access(path, F_OK) != 0)
            continue;
        dk_vfile *t = dk_vfile_open(path, false, NULL, err, sizeof err);
        if (!t) {
            fprintf(stderr, "bench-probe: %s\n", err);
            continue;
        }
        const dk_vfile_info *in = dk_vfile_get_info(t);
        uint8_t *codes = malloc(in->count), *dtw = malloc(in->count * in->width);
        bool ok = codes && dtw;
        for (uint64_t k = 0; ok && k < in->count; k++) { /* the DTW values only */
            dk_value v = 0;
            ok = dk_vfile_read(t, k * in->stride, 1, &v, err, sizeof err) == 0;
            codes[k] = dk_code_of(v);
            memcpy(dtw + k * in->width, (uint8_t[2]){(uint8_t)v, (uint8_t)(v >> 8)}, in->width);
        }
        if (!ok)
            fprintf(stderr, "bench-probe: %s\n", err);
        if (ok) {
            fwrite(codes, 1, in->count, w);
            fwrite(dtw, in->width, in->count, d);
        }
        free(dtw);
        wide += in->width > 1;
        free(codes);
        raw_count += in->count;
        nraw++;
        dk_vfile_close(t);
    }
    if (w)
        fclose(w);
    if (d)
        fclose(d);
    if (nraw < NT) {
        printf("raw working copies: %d of %d in %s/work (make the tables with --keep-work for the "
               "xz/zstd comparison)\n", nraw, NT, dir);
    } else if (ext) {
        printf("\nthe same values uncompressed (%llu positions, %d tables; DTW 1 byte per position%s),\n"
               "compressed whole:\n", (unsigned long long)raw_count, nraw,
               wide ? ", 2 for tables that need it" : "");
        printf("%-22s %14s %10s %14s %10s\n", "", "WLD bytes", "bits/pos", "DTW bytes", "bits/pos");
        const char *names[] = {"xz -9", "zstd -19"}, *cmds[] = {"xz -9 -T1 -c", "zstd -19 -T1 -q -c"};
        uint64_t xz_wld = 0;
        for (int k = 0; k < 2; k++) {
            double t0 = now();
            uint64_t bw = external(cmds[k], tmpl_w), bd = external(cmds[k], tmpl_d);
            if (k == 0)
                xz_wld = bw;
            printf("%-22s %14llu %10.4f %14llu %10.4f   (%.0f s)\n", names[k], (unsigned long long)bw,
                   8.0 * (double)bw / (double)raw_count, (unsigned long long)bd,
                   8.0 * (double)bd / (double)raw_count, now() - t0);
        }
        printf("%-22s %14llu %10.4f %14llu %10.4f\n", "damka (.wld / .dtw)", (unsigned long long)tot[1],
               8.0 * (double)tot[1] / (double)tcount, (unsigned long long)tot[2],
               8.0 * (double)tot[2] / (double)tcount);
        if (xz_wld)
            printf("WLD files are %.2fx smaller than xz -9 of the raw WLD values\n",
                   (double)xz_wld / (double)tot[1]);
    }
    unlink(tmpl_w);
    unlink(tmpl_d);
}

/* --- speed --- */

static damka_position *random_positions(int n)
{
    uint64_t total = 0;
    for (int i = 0; i < NT; i++)
        total += T[i].count;
    damka_position *ps = malloc((size_t)n * sizeof *ps);
    dk_index *ix = malloc((size_t)NT * sizeof *ix);
    for (int i = 0; i < NT; i++)
        dk_index_init(&ix[i], V, T[i].m);
    for (int k = 0; k < n; k++) {
        uint64_t r = rnd() % total;
        int i = 0;
        while (r >= T[i].count)
            r -= T[i].count, i++;
        dk_pos p = dk_index_unrank(&ix[i], r);
        if (rnd() & 1)
            p = dk_pos_flip(V, &p); /* the same position, Black to move */
        ps[k] = (damka_position){p.pieces[DK_WHITE], p.pieces[DK_BLACK], p.kings, p.side};
    }
    free(ix);
    return ps;
}

typedef damka_status (*probe_fn)(damka_tb *, const damka_position *, damka_value *);

/* The rule value at counter 0, as a probe_fn: the category's sign in wdl, the DTC in dtw. */
static damka_status probe_rule(damka_tb *tb, const damka_position *p, damka_value *out)
{
    damka_rule_value r;
    damka_status st = damka_probe_rule(tb, p, 0, &r);
    out->wdl = r.category > 0 ? DAMKA_WIN : r.category < 0 ? DAMKA_LOSS : DAMKA_DRAW;
    out->dtw = r.dtc;
    return st;
}

/* Engine probes (damka_probe_wdl_flags) with the flags in ENGINE_FLAGS, as a probe_fn. */
static unsigned ENGINE_FLAGS;
static damka_status probe_engine(damka_tb *tb, const damka_position *p, damka_value *out)
{
    return damka_probe_wdl_flags(tb, p, ENGINE_FLAGS, out);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { N = 1 << 20 };

typedef struct measured {
    double rate, median, p99;
    double hits, lookups; /* the cache's hit rate in the timed probes, its lookups a probe */
    long errors;      /* failures other than MUST_CAPTURE and NOT_CACHED */
    double answered;  /* share of the timed probes answered with a value */
} measured;

/* Probes ps through f with a fresh handle and a cache of mb MB, after `warm` plain WLD probes
 * (warm_fn) to fill it: throughput over `seconds`, then single-probe latency. */
static measured measure(const char *dir, probe_fn f, probe_fn warm_fn, size_t mb, int warm,
                        const damka_position *ps, double *lat, double seconds)
{
    damka_status st;
    damka_tb *tb = damka_open(dir, V->name, mb, &st);
    if (!tb) {
        fprintf(stderr, "bench-probe: %s\n", damka_status_text(st));
        exit(1);
    }
    measured m = {0, 0, 0, 0, 0, 0, 0};
    damka_value v = {DAMKA_DRAW, -1};
    uint64_t sink = 0;
    for (int k = 0; k < warm; k++)
        m.errors += warm_fn(tb, &ps[k], &v) != DAMKA_OK;
    long done = 0, answered = 0;
    uint64_t l0, m0, l1, m1;
    damka_cache_counters(tb, &l0, &m0);
    double t0 = now(), t1;
    do {
        for (int k = 0; k < 4096; k++) {
            st = f(tb, &ps[(done + k) & (N - 1)], &v);
            answered += st == DAMKA_OK;
            m.errors += st != DAMKA_OK && st != DAMKA_MUST_CAPTURE && st != DAMKA_NOT_CACHED;
            sink += (uint64_t)v.wdl;
        }
        done += 4096;
    } while ((t1 = now()) - t0 < seconds);
    m.rate = (double)done / (t1 - t0);
    damka_cache_counters(tb, &l1, &m1);
    m.lookups = (double)(l1 - l0) / (double)done;
    m.hits = l1 > l0 ? 1 - (double)(m1 - m0) / (double)(l1 - l0) : 0;
    m.answered = (double)answered / (double)done;
    int nl = 0;
    t0 = now();
    for (long k = done; nl < N && (nl < 1000 || now() - t0 < seconds / 2); k++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        st = f(tb, &ps[k & (N - 1)], &v);
        clock_gettime(CLOCK_MONOTONIC, &b);
        m.errors += st != DAMKA_OK && st != DAMKA_MUST_CAPTURE && st != DAMKA_NOT_CACHED;
        lat[nl++] = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    }
    qsort(lat, (size_t)nl, sizeof *lat, cmp_double);
    m.median = lat[nl / 2];
    m.p99 = lat[(size_t)nl * 99 / 100];
    if (m.errors)
        fprintf(stderr, "bench-probe: %ld probes failed: %s\n", m.errors, damka_last_error());
    damka_close(tb);
    if (sink == 42)
        printf(" ");
    return m;
}

/* The cache for `decoded` bytes of data: a tenth of it (small), or all of it with room. */
static size_t cache_mb(uint64_t decoded, bool small)
{
    size_t mb = small ? decoded / 10 >> 20 : (decoded * 5 / 4 >> 20) + 16;
    return mb < 1 ? 1 : mb;
}

static bool WLD_ONLY;

static void speed(const char *dir, double seconds)
{
    damka_position *ps = random_positions(N);
    uint64_t decoded[4] = {0};
    for (int i = 0; i < NT; i++)
        for (int m = 1; m <= 3; m++)
            decoded[m] += T[i].decoded[m];
    printf("\n(b, c) random probes on one thread (uniform over the %d tables, either side to move),\n"
           "through damka_probe_wdl / damka_probe_dtw / damka_probe_rule; %.0f s per measurement\n", NT,
           seconds);
    printf("%-5s %-24s %12s %12s %12s %8s %8s\n", "file", "cache", "probes/s", "median ns", "p99 ns", "hits",
           "reads/p");
    double *lat = malloc(N * sizeof *lat);
    for (int metric = 1; metric <= (WLD_ONLY ? 1 : 3) && decoded[metric]; metric++) {
        probe_fn f = metric == 1 ? damka_probe_wdl : metric == 2 ? damka_probe_dtw : probe_rule;
        for (int small = 0; small < 2; small++) {
            size_t mb = cache_mb(decoded[metric], small);
            /* warm up: the large cache gets every block the positions touch */
            measured m = measure(dir, f, f, mb, small ? N / 16 : N, ps, lat, seconds);
            char label[64];
            snprintf(label, sizeof label, "%zu MB (%s)", mb, small ? "a tenth" : "warm, all");
            printf("%-5s %-24s %12.0f %12.0f %12.0f %7.1f%% %8.2f%s\n",
                   metric == 1 ? "WLD" : metric == 2 ? "DTW" : "DTC", label, m.rate, m.median, m.p99,
                   100 * m.hits, m.lookups, m.errors ? "  (errors!)" : "");
        }
    }
    printf("(hits: cache lookups answered without reading a block; reads/p: lookups a probe, one per\n"
           " table value read, captures included)\n");
    printf("(decompressed data: WLD %.1f MB, DTW %.1f MB, DTC %.1f MB)\n", (double)decoded[1] / 1048576.0,
           (double)decoded[2] / 1048576.0, (double)decoded[3] / 1048576.0);

    if (WLD_ONLY) {
        free(lat);
        free(ps);
        return;
    }
    /* (d) what an engine's search asks: WLD without resolving captures, from the cache only */
    printf("\n(d) engine probes, WLD (damka_probe_wdl_flags), the same positions and caches:\n");
    printf("%-26s %-20s %12s %12s %12s %10s\n", "flags", "cache", "probes/s", "median ns", "p99 ns",
           "answered");
    static const struct { unsigned flags; const char *name; } kinds[] = {
        {0, "none"},
        {DAMKA_PROBE_NO_CAPTURES, "NO_CAPTURES"},
        {DAMKA_PROBE_CACHE_ONLY, "CACHE_ONLY"},
        {DAMKA_PROBE_NO_CAPTURES | DAMKA_PROBE_CACHE_ONLY, "NO_CAPTURES|CACHE_ONLY"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int small = 0; small < 2; small++) {
            ENGINE_FLAGS = kinds[k].flags;
            size_t mb = cache_mb(decoded[1], small);
            measured m = measure(dir, probe_engine, damka_probe_wdl, mb, small ? N / 16 : N, ps, lat,
                                 seconds);
            char label[64];
            snprintf(label, sizeof label, "%zu MB (%s)", mb, small ? "a tenth" : "warm, all");
            printf("%-26s %-20s %12.0f %12.0f %12.0f %9.1f%%%s\n", kinds[k].name, label, m.rate, m.median,
                   m.p99, 100 * m.answered, m.errors ? "  (errors!)" : "");
        }
    printf("(answered: probes given a value; the others are MUST_CAPTURE or NOT_CACHED)\n");
    free(lat);
    free(ps);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *variant = "brazilian";
    double seconds = 2;
    bool ext = true;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--variant") && i + 1 < argc)
            variant = argv[++i];
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-external"))
            ext = false;
        else if (!strcmp(argv[i], "--wld-only"))
            WLD_ONLY = true, ext = false;
        else if (!dir && argv[i][0] != '-')
            dir = argv[i];
        else {
            fprintf(stderr, "usage: bench-probe [--variant V] [--seconds S] [--no-external] [--wld-only] DIR\n");
            return 2;
        }
    }
    if (!dir || !(V = dk_variant_find(variant))) {
        fprintf(stderr, "usage: bench-probe [--variant V] [--seconds S] [--no-external] [--wld-only] DIR\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress is visible when piped */
    scan(dir);
    if (!NT) {
        fprintf(stderr, "bench-probe: no %s tables in %s\n", V->name, dir);
        return 1;
    }
    sizes(dir, ext);
    speed(dir, seconds);
    return 0;
}
