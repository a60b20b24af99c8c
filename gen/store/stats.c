#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../query/drawrule.h"
#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "../../rules/notation.h"
#include "atomicfile.h"
#include "valuefile.h"

static const char *const RULE_KEY[DK_RC_N] = {"wins", "cursed_wins", "draws", "blessed_losses",
                                              "losses"};

const char *dk_stats_rule_key(int k) { return RULE_KEY[k]; }

/* DK_RC_WIN .. DK_RC_LOSS run opposite to dk_category's DK_CAT_WIN (2) .. DK_CAT_LOSS (-2). */
static int rule_index(dk_value r) { return DK_CAT_WIN - (int)dk_rule_category(r); }

enum { CHUNK = 1 << 16 }; /* positions read from the source at a time */

/* Counts position i of DTW value v. */
static inline void add_dtw(dk_stats *st, uint64_t i, dk_value v)
{
    if (v == DK_DRAW) {
        st->draws++;
        return;
    }
    st->hist[dk_value_dtw(v)]++;
    st->max_value = v > st->max_value ? v : st->max_value;
    if (dk_value_is_loss(v)) {
        st->losses++;
        return;
    }
    st->wins++;
    if (v > st->longest_value) { /* the first of the longest */
        st->longest_value = v;
        st->longest_at = i;
    }
}

/* Counts position i of rule value r. */
static inline void add_rule(dk_stats *st, uint64_t i, dk_value r)
{
    st->rule[rule_index(r)]++;
    if (!dk_rule_is_decided(r))
        return;
    unsigned d = dk_rule_dtc(r);
    d = d > st->limit ? st->limit : d; /* never: verified values stay within the limit */
    if (dk_rule_is_loss(r)) {
        st->dtc_loss[d]++;
        return;
    }
    st->dtc_win[d]++;
    if (d > st->longest_dtc) {
        st->longest_dtc = d;
        st->longest_dtc_at = i;
    }
}

/* Position i of ix as FEN, into buf. */
static void fen_of(const dk_index *ix, uint64_t i, char *buf, size_t len)
{
    dk_pos p = dk_index_unrank(ix, i);
    dk_fen_format(ix->v, &p, false, buf, len);
}

int dk_stats_begin(dk_stats *st, const dk_index *ix, unsigned limit)
{
    memset(st, 0, sizeof *st);
    st->m = ix->m;
    st->limit = limit;
    /* the DTW histogram is counted over every value a position can hold, then cut to the
     * longest seen (dk_stats_end) */
    st->hist = calloc((size_t)DK_VALUE_MAX + 1, sizeof *st->hist);
    if (limit) {
        st->dtc_win = calloc(limit + 1, sizeof *st->dtc_win);
        st->dtc_loss = calloc(limit + 1, sizeof *st->dtc_loss);
    }
    if (!st->hist || (limit && (!st->dtc_win || !st->dtc_loss))) {
        dk_stats_free(st);
        return -1;
    }
    return 0;
}

int dk_stats_count(dk_stats *st, const dk_value_source *src, uint64_t first, uint64_t n, char *err,
                   size_t errlen)
{
    const unsigned stride = src->stride;
    dk_value *buf = malloc((size_t)CHUNK * stride * sizeof *buf);
    if (!buf)
        return dk_errorf(err, errlen, "out of memory");
    for (uint64_t at = first; at < first + n; at += CHUNK) {
        size_t k = first + n - at < CHUNK ? (size_t)(first + n - at) : CHUNK;
        if (src->read(src, at, k, buf, err, errlen) != 0) {
            free(buf);
            return -1;
        }
        for (size_t j = 0; j < k; j++) {
            add_dtw(st, at + j, (dk_value)(buf[j * stride] & ~DK_VFILE_FLAG));
            if (st->limit)
                add_rule(st, at + j, buf[j * stride + 1]);
        }
    }
    st->positions += n;
    free(buf);
    return 0;
}

void dk_stats_add(dk_stats *a, const dk_stats *b)
{
    a->positions += b->positions;
    a->wins += b->wins;
    a->losses += b->losses;
    a->draws += b->draws;
    for (unsigned d = 0; d <= DK_VALUE_MAX; d++)
        a->hist[d] += b->hist[d];
    a->max_value = b->max_value > a->max_value ? b->max_value : a->max_value;
    if (b->longest_value > a->longest_value) { /* a's positions come first: it keeps ties */
        a->longest_value = b->longest_value;
        a->longest_at = b->longest_at;
    }
    for (int k = 0; k < DK_RC_N; k++)
        a->rule[k] += b->rule[k];
    for (unsigned d = 0; a->limit && d <= a->limit; d++) {
        a->dtc_win[d] += b->dtc_win[d];
        a->dtc_loss[d] += b->dtc_loss[d];
    }
    if (b->longest_dtc > a->longest_dtc) {
        a->longest_dtc = b->longest_dtc;
        a->longest_dtc_at = b->longest_dtc_at;
    }
}

void dk_stats_end(dk_stats *st, const dk_index *ix)
{
    st->max_dtw = st->max_value ? dk_value_dtw(st->max_value) : 0;
    uint64_t *h = realloc(st->hist, (st->max_dtw + 1) * sizeof *h);
    if (h)
        st->hist = h;
    if (st->longest_value) {
        st->longest_win = dk_value_dtw(st->longest_value);
        fen_of(ix, st->longest_at, st->longest_fen, sizeof st->longest_fen);
    }
    if (st->longest_dtc)
        fen_of(ix, st->longest_dtc_at, st->longest_dtc_fen, sizeof st->longest_dtc_fen);
}

int dk_stats_compute(dk_stats *st, const dk_index *ix, const dk_value_source *src, unsigned limit,
                     char *err, size_t errlen)
{
    if (dk_stats_begin(st, ix, limit) != 0)
        return dk_errorf(err, errlen, "out of memory");
    if (dk_stats_count(st, src, 0, ix->size, err, errlen) != 0) {
        dk_stats_free(st);
        return -1;
    }
    dk_stats_end(st, ix);
    return 0;
}

void dk_stats_free(dk_stats *st)
{
    free(st->hist);
    free(st->dtc_win);
    free(st->dtc_loss);
    st->hist = st->dtc_win = st->dtc_loss = NULL;
}

/* " d:n" for every non-zero entry of h[0..max]. */
static void print_hist(FILE *f, const uint64_t *h, unsigned max)
{
    for (unsigned d = 0; d <= max; d++)
        if (h[d])
            fprintf(f, " %u:%" PRIu64, d, h[d]);
}

int dk_stats_write(const dk_stats *st, const char *path, char *err, size_t errlen)
{
    char name[DK_MATERIAL_NAME_MAX], *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return dk_errorf(err, errlen, "cannot write %s: out of memory", path);
    dk_material_name(st->m, name, sizeof name);
    fprintf(f, "material %s\npositions %" PRIu64 "\nwins %" PRIu64 "\nlosses %" PRIu64
               "\ndraws %" PRIu64 "\nwld %" PRIu64 " %08x\ndtw %" PRIu64 " %08x\nlongest_win %u %s\n",
            name, st->positions, st->wins, st->losses, st->draws, st->file_size[0], st->file_crc[0],
            st->file_size[1], st->file_crc[1], st->longest_win, st->longest_win ? st->longest_fen : "-");
    fprintf(f, "histogram");
    print_hist(f, st->hist, st->max_dtw);
    fprintf(f, "\n");
    if (st->limit) {
        fprintf(f, "rule %u", st->limit);
        for (int k = 0; k < DK_RC_N; k++)
            fprintf(f, " %s %" PRIu64, RULE_KEY[k], st->rule[k]);
        fprintf(f, "\ndtc %" PRIu64 " %08x\nlongest_dtc %u %s\ndtc_wins", st->file_size[2],
                st->file_crc[2], st->longest_dtc, st->longest_dtc ? st->longest_dtc_fen : "-");
        print_hist(f, st->dtc_win, st->limit);
        fprintf(f, "\ndtc_losses");
        print_hist(f, st->dtc_loss, st->limit);
        fprintf(f, "\n");
    }
    /* a write into the memory stream that failed leaves its error flag set */
    bool ok = !ferror(f);
    int rc = fclose(f) == 0 && ok ? dk_write_file_atomic(path, text, len, err, errlen)
                                  : dk_errorf(err, errlen, "cannot write %s: out of memory", path);
    free(text);
    return rc;
}

/* Reads " d:n" pairs into *h (grown as needed, d < cap_limit when cap_limit > 0), setting *max
 * to the largest d read. Returns DK_OK, DK_DAMAGED (malformed) or DK_NO_MEMORY, without a
 * line: the caller names the file. */
static int load_hist(FILE *f, uint64_t **h, unsigned *max, unsigned cap_limit)
{
    unsigned d;
    uint64_t n;
    size_t cap = cap_limit;
    if (cap_limit && !(*h = calloc(cap, sizeof **h)))
        return DK_NO_MEMORY;
    while (fscanf(f, " %u:%" SCNu64, &d, &n) == 2) {
        /* a DTW is below DK_VALUE_MAX (a dk_value): a damaged file ("-5:1" reads as 2^32-5)
         * must not make the histogram grow to gigabytes */
        if (d >= (cap_limit ? cap_limit : DK_VALUE_MAX))
            return DK_DAMAGED;
        if (d >= cap) {
            size_t nc = (size_t)d + 64;
            uint64_t *g = realloc(*h, nc * sizeof *g);
            if (!g)
                return DK_NO_MEMORY;
            memset(g + cap, 0, (nc - cap) * sizeof *g);
            *h = g;
            cap = nc;
        }
        (*h)[d] = n;
        if (max)
            *max = d;
    }
    if (!*h && !(*h = calloc(1, sizeof **h)))
        return DK_NO_MEMORY;
    return DK_OK;
}

/* Whether a FEN field holds what dk_fen_format writes (numeric squares), or "-" for none: a
 * damaged file must not bring quotes, NULs or control bytes into the JSON made from it. */
static bool fen_field_ok(const char *fen)
{
    return fen[0] && strspn(fen, "WBK0123456789:,-") == strlen(fen);
}

/* The optional rule lines after the histogram. Returns as load_hist (DK_OK also when
 * there are none). */
static int load_rule(FILE *f, dk_stats *st)
{
    if (fscanf(f, " rule %u", &st->limit) != 1)
        return DK_OK; /* a table without the rule */
    if (st->limit < 1 || st->limit > DK_RULE_MAX_LIMIT)
        return DK_DAMAGED;
    for (int k = 0; k < DK_RC_N; k++) {
        char key[32];
        if (fscanf(f, " %31s %" SCNu64, key, &st->rule[k]) != 2 || strcmp(key, RULE_KEY[k]) != 0)
            return DK_DAMAGED;
    }
    char fen[128];
    int end = -1;
    if (fscanf(f, " dtc %" SCNu64 " %x longest_dtc %u %127s dtc_wins%n", &st->file_size[2],
               &st->file_crc[2], &st->longest_dtc, fen, &end) != 4 || end < 0 || !fen_field_ok(fen))
        return DK_DAMAGED;
    snprintf(st->longest_dtc_fen, sizeof st->longest_dtc_fen, "%s", st->longest_dtc ? fen : "");
    end = -1;
    int rc = load_hist(f, &st->dtc_win, NULL, st->limit + 1);
    if (rc != 0)
        return rc;
    if ((fscanf(f, " dtc_losses%n", &end), end < 0))
        return DK_DAMAGED;
    return load_hist(f, &st->dtc_loss, NULL, st->limit + 1);
}

int dk_stats_load(dk_stats *st, const char *path)
{
    char err[256];
    return dk_stats_read(st, path, err, sizeof err);
}

int dk_stats_read(dk_stats *st, const char *path, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    FILE *f = fopen(path, "r");
    if (!f)
        return dk_statusf(dk_status_of_errno(errno), err, errlen, "cannot open %s: %s", path, strerror(errno));
    char name[64], fen[128];
    int ok = fscanf(f,
                    "material %63s positions %" SCNu64 " wins %" SCNu64 " losses %" SCNu64
                    " draws %" SCNu64 " wld %" SCNu64 " %x dtw %" SCNu64 " %x longest_win %u %127s"
                    " histogram",
                    name, &st->positions, &st->wins, &st->losses, &st->draws, &st->file_size[0],
                    &st->file_crc[0], &st->file_size[1], &st->file_crc[1], &st->longest_win,
                    fen) == 11 &&
             dk_material_parse(name, &st->m) == 0 && fen_field_ok(fen);
    int rc = ok ? DK_OK : DK_DAMAGED;
    if (ok) {
        snprintf(st->longest_fen, sizeof st->longest_fen, "%s", st->longest_win ? fen : "");
        rc = load_hist(f, &st->hist, &st->max_dtw, 0);
        if (rc == DK_OK)
            rc = load_rule(f, st);
    }
    bool read_error = ferror(f);
    int e = errno;
    fclose(f);
    if (rc == DK_OK)
        return 0;
    dk_stats_free(st);
    if (read_error)
        return dk_statusf(dk_status_of_errno(e), err, errlen, "cannot read %s: %s", path, strerror(e));
    if (rc == DK_NO_MEMORY)
        return dk_statusf(DK_NO_MEMORY, err, errlen, "cannot read %s: out of memory", path);
    return dk_statusf(DK_DAMAGED, err, errlen, "%s is damaged: not a statistics file", path);
}

/* {"d": n, ...} for every non-zero entry of h[0..max]. */
static void json_hist(dk_json *w, const char *key, const uint64_t *h, unsigned max)
{
    dk_json_object(w, key);
    for (unsigned d = 0; d <= max; d++)
        if (h[d]) {
            char at[16];
            snprintf(at, sizeof at, "%u", d);
            dk_json_u64(w, at, h[d]);
        }
    dk_json_end(w);
}

/* {"plies": n, "fen": F}, or null when n is 0. */
static void json_longest(dk_json *w, const char *key, unsigned plies, const char *fen)
{
    if (!plies) {
        dk_json_null(w, key);
        return;
    }
    dk_json_object(w, key);
    dk_json_u64(w, "plies", plies);
    dk_json_string(w, "fen", fen);
    dk_json_end(w);
}

void dk_stats_json(const dk_stats *st, const char *file, dk_json *w)
{
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(st->m, name, sizeof name);
    dk_json_object(w, NULL);
    dk_json_string(w, "material", name);
    dk_json_string(w, "side_to_move", "white");
    dk_json_object(w, "files");
    for (int k = 0; k < (st->limit ? 3 : 2); k++) {
        const char *ext = dk_tb_metric_ext((dk_metric)(k + 1));
        char path[1024], crc[16];
        snprintf(path, sizeof path, "%s.%s", file, ext);
        snprintf(crc, sizeof crc, "%08x", st->file_crc[k]);
        dk_json_object(w, ext);
        dk_json_string(w, "file", path);
        dk_json_u64(w, "size", st->file_size[k]);
        dk_json_string(w, "crc32c", crc);
        dk_json_end(w);
    }
    dk_json_end(w);
    dk_json_u64(w, "positions", st->positions);
    dk_json_u64(w, "wins", st->wins);
    dk_json_u64(w, "losses", st->losses);
    dk_json_u64(w, "draws", st->draws);
    json_longest(w, "longest_win", st->longest_win, st->longest_fen);
    json_hist(w, "dtw_histogram", st->hist, st->max_dtw);
    if (st->limit) {
        dk_json_object(w, "rule");
        dk_json_u64(w, "limit", st->limit);
        for (int k = 0; k < DK_RC_N; k++)
            dk_json_u64(w, RULE_KEY[k], st->rule[k]);
        json_longest(w, "longest_dtc", st->longest_dtc, st->longest_dtc_fen);
        json_hist(w, "dtc_wins", st->dtc_win, st->limit);
        json_hist(w, "dtc_losses", st->dtc_loss, st->limit);
        dk_json_end(w);
    }
    dk_json_end(w);
}

int dk_stats_path(const char *dir, const dk_variant *v, dk_material m, char *buf, size_t len)
{
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(m, name, sizeof name);
    return snprintf(buf, len, "%s/%s-%s.stats", dir, v->name, name);
}
