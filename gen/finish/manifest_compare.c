#include "manifest_compare.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "../../index/material.h"
#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "../store/jsonread.h"
#include "manifest.h"
#include "../store/stats.h"
#include "intact.h"

/* The most bytes a manifest may hold, as read or decompressed: a published file can be anyone's,
 * and a few bytes of zstd can say gigabytes. The largest set damka plans (10x10 up to 9 pieces)
 * has a manifest of some tens of MB. */
enum { MANIFEST_MAX = 256 << 20 };

/* The bytes of the file at path, with a NUL after them; decompressed when they are a zstd
 * frame (a manifest kept compressed). Returns DK_OK, or DK_FAILED with one line in err. */
static int read_manifest(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return dk_errorf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    char chunk[65536];
    size_t got;
    size_t total = 0;
    while (mem && total <= MANIFEST_MAX && (got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        fwrite(chunk, 1, got, mem);
        total += got;
    }
    bool bad = ferror(f), nomem = !mem || fclose(mem) != 0;
    fclose(f);
    if (bad || nomem || total > MANIFEST_MAX) {
        free(buf);
        return dk_errorf(err, errlen, bad ? "cannot read %s" : nomem ? "out of memory reading %s" : "%s: more than 256 MiB: not a manifest", path);
    }
    static const unsigned char zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
    if (n < 4 || memcmp(buf, zstd_magic, 4) != 0) {
        *text = buf;
        *len = n;
        return DK_OK;
    }
    /* a stream: a frame written without its content size decodes as well */
    ZSTD_DStream *z = ZSTD_createDStream();
    char *out = NULL;
    size_t outlen = 0;
    mem = open_memstream(&out, &outlen);
    ZSTD_inBuffer in = {buf, n, 0};
    size_t rc = 1;
    total = 0;
    /* on while input is left, or while the output came back full (the decoder may hold more) */
    for (size_t filled = sizeof chunk; z && mem && (in.pos < in.size || filled == sizeof chunk) &&
                                        !ZSTD_isError(rc) && total <= MANIFEST_MAX;) {
        ZSTD_outBuffer o = {chunk, sizeof chunk, 0};
        rc = ZSTD_decompressStream(z, &o, &in);
        fwrite(chunk, 1, o.pos, mem);
        total += filled = o.pos;
    }
    ZSTD_freeDStream(z);
    free(buf);
    nomem = !z || !mem || fclose(mem) != 0;
    if (nomem || ZSTD_isError(rc) || rc != 0 || total > MANIFEST_MAX) {
        free(out);
        return dk_errorf(err, errlen, "cannot decompress %s: %s", path,
                         nomem                 ? "out of memory"
                         : total > MANIFEST_MAX ? "more than 256 MiB: not a manifest"
                         : ZSTD_isError(rc)     ? ZSTD_getErrorName(rc)
                                                : "it ends inside a frame");
    }
    *text = out;
    *len = outlen;
    return DK_OK;
}

/* The manifest entry dir's statistics make for material m (what manifest.json would list),
 * parsed; NULL with one line in err when the statistics cannot be read. */
static dk_jsonr *local_entry(const char *dir, const dk_variant *v, dk_material m, char *err, size_t errlen)
{
    char path[4096], name[DK_MATERIAL_NAME_MAX], file[512];
    dk_stats st;
    dk_stats_path(dir, v, m, path, sizeof path);
    if (dk_stats_read(&st, path, err, errlen) != 0)
        return NULL;
    dk_material_name(m, name, sizeof name);
    snprintf(file, sizeof file, "%s-%s", v->name, name);
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    dk_json w;
    if (mem) {
        dk_json_start(&w, mem);
        dk_stats_json(&st, file, &w);
    }
    dk_stats_free(&st);
    dk_jsonr *entry = NULL;
    if (mem && dk_json_finish(&w) == 0 && fclose(mem) == 0)
        entry = dk_jsonr_parse(buf, n, err, errlen);
    else
        dk_errorf(err, errlen, "out of memory");
    free(buf);
    return entry;
}

/* The member `key` of entry, as text, for a line ("194"; "?" when it has none). */
static const char *text_at(const dk_jsonr *entry, const char *path)
{
    const dk_jsonr *v = entry;
    char part[256];
    for (const char *p = path; v && *p;) {
        size_t n = strcspn(p, ".");
        snprintf(part, sizeof part, "%.*s", (int)n, p);
        v = dk_jsonr_get(v, part);
        p += n + (p[n] == '.');
    }
    return v && v->text ? v->text : v ? "(a different value)" : "(none)";
}

typedef struct compare {
    const char *dir;
    dk_compare_line_fn *line;
    void *ctx;
    dk_compare_summary *sum;
} compare;

/* Whether material m's table in c->dir differs from its published entry: its files against its
 * statistics (every byte read), those statistics against the entry. If it does, why says how. */
static bool table_differs(const compare *c, const dk_variant *v, dk_material m, unsigned limit,
                          const dk_jsonr *published, char *why, size_t whylen)
{
    dk_index ix;
    if (dk_index_init(&ix, v, m) != 0)
        return snprintf(why, whylen, "not a material of %s", v->name), true;
    if (dk_table_intact(c->dir, &ix, limit, why, whylen) != DK_OK)
        return true;
    dk_jsonr *here = local_entry(c->dir, v, m, why, whylen);
    if (!here)
        return true;
    char where[512] = "";
    bool differs = !dk_jsonr_equal(published, here, where, sizeof where);
    if (differs)
        snprintf(why, whylen, "%s is %s in the manifest, %s here", where[0] ? where : "the entry",
                 text_at(published, where), text_at(here, where));
    dk_jsonr_free(here);
    return differs;
}

/* One table of the manifest: its line, its count. */
static void compare_table(compare *c, const dk_variant *v, dk_material m, unsigned limit,
                          const dk_jsonr *published)
{
    char name[DK_MATERIAL_NAME_MAX], path[4096], why[4096], line[8192];
    dk_material_name(m, name, sizeof name);
    dk_stats_path(c->dir, v, m, path, sizeof path);
    bool differs = false;
    if (access(path, F_OK) != 0) {
        c->sum->absent++;
        snprintf(line, sizeof line, "%s %s absent", v->name, name);
    } else if ((differs = table_differs(c, v, m, limit, published, why, sizeof why))) {
        c->sum->differ++;
        snprintf(line, sizeof line, "%s %s differs: %s", v->name, name, why);
    } else {
        c->sum->same++;
        snprintf(line, sizeof line, "%s %s same", v->name, name);
    }
    c->line(c->ctx, differs, line);
}

/* One variant of the manifest: its tables, then those dir holds that it does not list. */
static int compare_variant(compare *c, const dk_variant *v, const dk_jsonr *var, char *err, size_t errlen)
{
    const dk_jsonr *tables = dk_jsonr_get(var, "tables");
    uint64_t limit;
    if (!tables || tables->kind != DK_JSONR_ARRAY || !dk_jsonr_u64(dk_jsonr_get(var, "draw_rule_plies"), &limit) ||
        limit > 1000)
        return dk_errorf(err, errlen, "its %s object has no tables or no draw_rule_plies", v->name);
    size_t n = dk_material_list(v, DK_TB_MAX_PIECES, 0, NULL, 0);
    dk_material *mats = malloc(n * sizeof *mats);
    bool *listed = calloc(n, sizeof *listed);
    if (!mats || !listed) {
        free(mats);
        free(listed);
        return dk_errorf(err, errlen, "out of memory");
    }
    dk_material_list(v, DK_TB_MAX_PIECES, 0, mats, n);
    int rc = DK_OK;
    for (size_t t = 0; t < tables->n && rc == DK_OK; t++) {
        const char *name = dk_jsonr_string(&tables->items[t], "material");
        dk_material m;
        size_t i = n;
        if (name && dk_material_parse(name, &m) == 0)
            for (i = 0; i < n && !dk_material_equal(mats[i], m); i++)
                ;
        if (i == n)
            rc = dk_errorf(err, errlen, "its %s table %zu has no material of %s", v->name, t + 1, v->name);
        else if (!listed[i])
            compare_table(c, v, m, (unsigned)limit, &tables->items[t]);
        if (i < n)
            listed[i] = true;
    }
    for (size_t i = 0; i < n && rc == DK_OK; i++) {
        char path[4096], name[DK_MATERIAL_NAME_MAX], line[512];
        dk_stats_path(c->dir, v, mats[i], path, sizeof path);
        if (listed[i] || access(path, F_OK) != 0)
            continue;
        dk_material_name(mats[i], name, sizeof name);
        c->sum->extra++;
        snprintf(line, sizeof line, "%s %s not in the manifest", v->name, name);
        c->line(c->ctx, false, line);
    }
    free(mats);
    free(listed);
    return rc;
}

int dk_manifest_compare(const char *published, const char *dir, const dk_variant *only,
                        dk_compare_line_fn *line, void *ctx, dk_compare_summary *sum, char *err,
                        size_t errlen)
{
    memset(sum, 0, sizeof *sum);
    char *text, why[512];
    size_t len;
    if (read_manifest(published, &text, &len, err, errlen) != DK_OK)
        return DK_FAILED;
    dk_jsonr *doc = dk_jsonr_parse(text, len, why, sizeof why);
    free(text);
    if (!doc)
        return dk_errorf(err, errlen, "%s is not JSON: %s", published, why);
    const char *format = dk_jsonr_string(doc, "manifest");
    const dk_jsonr *variants = dk_jsonr_get(doc, "variants");
    int rc = DK_OK;
    if (!format || !variants || variants->kind != DK_JSONR_ARRAY)
        rc = dk_errorf(err, errlen, "%s is not a damka manifest", published);
    else if (strcmp(format, DK_MANIFEST_FORMAT) != 0)
        rc = dk_errorf(err, errlen, "%s is a manifest of format %.40s; this damka reads %s", published, format,
                       DK_MANIFEST_FORMAT);
    compare c = {dir, line, ctx, sum};
    bool any = false;
    for (size_t i = 0; rc == DK_OK && i < variants->n; i++) {
        const char *name = dk_jsonr_string(&variants->items[i], "variant");
        const dk_variant *v = name ? dk_variant_find(name) : NULL;
        if (!v)
            rc = dk_errorf(err, errlen, "%s names a variant this damka does not know: %.40s", published,
                           name ? name : "(none)");
        else if (!only || only == v) {
            any = true;
            if (compare_variant(&c, v, &variants->items[i], why, sizeof why) != DK_OK)
                rc = dk_errorf(err, errlen, "%s: %s", published, why);
        }
    }
    if (rc == DK_OK && !any)
        rc = dk_errorf(err, errlen, "%s lists no tables of %s", published, only ? only->name : "any variant");
    dk_jsonr_free(doc);
    return rc;
}
