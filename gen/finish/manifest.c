#include "manifest.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../query/fileio.h"
#include "../../query/tablebase.h"
#include "../../rules/errors.h"
#include "../store/atomicfile.h"
#include "../store/stats.h"
#include "intact.h"

/* Every material of v with a statistics file in dir, in generation order, loaded into *out
 * (*n of them). A statistics file that is there but cannot be read is an error (a table left
 * out would go unnoticed), as is running out of memory. Returns 0, or -1 with one line in err
 * (for a damaged file, with the command that makes its table again). */
static int load_all(const char *dir, const dk_variant *v, dk_stats **out, size_t *nout, char *err,
                    size_t errlen)
{
    size_t n = dk_material_list(v, DK_TB_MAX_PIECES, 0, NULL, 0), found = 0;
    dk_material *mats = malloc(n * sizeof *mats);
    dk_stats *st = malloc(n * sizeof *st);
    *out = NULL;
    *nout = 0;
    if (!mats || !st) {
        free(mats);
        free(st);
        return dk_errorf(err, errlen, "out of memory reading the statistics of %s", dir);
    }
    dk_material_list(v, DK_TB_MAX_PIECES, 0, mats, n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[4096];
        dk_stats_path(dir, v, mats[i], path, sizeof path);
        if (access(path, F_OK) != 0)
            continue;
        char why[1536], hint[3072];
        if (dk_stats_read(&st[found], path, why, sizeof why) == 0) {
            found++;
            continue;
        }
        dk_table_repair_hint(dir, v, mats[i], false, hint, sizeof hint);
        rc = dk_errorf(err, errlen, "%s; %s", why, hint);
    }
    free(mats);
    *out = st;
    *nout = found;
    return rc;
}

static void free_all(dk_stats *st, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dk_stats_free(&st[i]);
    free(st);
}

/* One variant's object of the manifest: its tables and their totals. */
static void variant_json(const dk_variant *v, const dk_stats *st, size_t n, dk_json *w)
{
    uint64_t pos = 0, wins = 0, losses = 0, draws = 0, bytes = 0, rule[DK_RC_N] = {0};
    unsigned limit = n ? st[0].limit : 0; /* gen keeps one draw rule per directory */
    dk_json_object(w, NULL);
    dk_json_string(w, "variant", v->name);
    dk_json_string(w, "format", "damka-tb-1");
    dk_json_array(w, "metrics");
    dk_json_string(w, NULL, "wld");
    dk_json_string(w, NULL, "dtw");
    if (limit)
        dk_json_string(w, NULL, "dtc");
    dk_json_end(w);
    dk_json_u64(w, "draw_rule_plies", limit);
    dk_json_array(w, "tables");
    for (size_t i = 0; i < n; i++) {
        char file[512], name[DK_MATERIAL_NAME_MAX];
        dk_material_name(st[i].m, name, sizeof name);
        snprintf(file, sizeof file, "%s-%s", v->name, name);
        dk_json_newline(w, 2);
        dk_stats_json(&st[i], file, w);
        pos += st[i].positions;
        wins += st[i].wins;
        losses += st[i].losses;
        draws += st[i].draws;
        for (int k = 0; k < DK_STATS_FILES; k++)
            bytes += st[i].file_size[k];
        for (int k = 0; k < DK_RC_N; k++)
            rule[k] += st[i].rule[k];
    }
    dk_json_newline(w, 0);
    dk_json_end(w);
    dk_json_object(w, "totals");
    dk_json_u64(w, "tables", n);
    dk_json_u64(w, "positions", pos);
    dk_json_u64(w, "wins", wins);
    dk_json_u64(w, "losses", losses);
    dk_json_u64(w, "draws", draws);
    dk_json_u64(w, "bytes", bytes);
    if (limit) {
        dk_json_object(w, "rule");
        for (int k = 0; k < DK_RC_N; k++)
            dk_json_u64(w, dk_stats_rule_key(k), rule[k]);
        dk_json_end(w);
    }
    dk_json_end(w);
    dk_json_end(w);
}

/* The manifest of every variant loaded (st[id], n[id] tables): one document and a newline, its
 * variants in the order of dk_variant_id, those without tables left out. */
static void print_json(dk_stats *const st[DK_NVARIANTS], const size_t n[DK_NVARIANTS], FILE *f)
{
    dk_json w;
    dk_json_start(&w, f);
    dk_json_object(&w, NULL);
    dk_json_string(&w, "manifest", DK_MANIFEST_FORMAT);
    dk_json_array(&w, "variants");
    for (int id = 0; id < DK_NVARIANTS; id++)
        if (n[id]) {
            dk_json_newline(&w, 0);
            variant_json(dk_variant_get((dk_variant_id)id), st[id], n[id], &w);
        }
    dk_json_end(&w);
    dk_json_end(&w);
    fputc('\n', f);
}

/* Loads the statistics of every variant (only v if not NULL) into st and n, all of them before
 * any is used: a damaged file stops it. Returns the number of tables, or -1 with one line in
 * err. */
static int load_variants(const char *dir, const dk_variant *v, dk_stats *st[DK_NVARIANTS], size_t n[DK_NVARIANTS],
                         char *err, size_t errlen)
{
    int total = 0, rc = 0;
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const dk_variant *var = dk_variant_get((dk_variant_id)id);
        st[id] = NULL;
        n[id] = 0;
        if (rc == 0 && (!v || v == var))
            rc = load_all(dir, var, &st[id], &n[id], err, errlen);
        total += (int)n[id];
    }
    return rc ? -1 : total;
}

static void free_variants(dk_stats *st[DK_NVARIANTS], const size_t n[DK_NVARIANTS])
{
    for (int id = 0; id < DK_NVARIANTS; id++)
        free_all(st[id], n[id]);
}

/* The manifest of dir as text, into *text (*len bytes, malloc'd). Returns 0, or -1 with one line
 * in err. */
static int manifest_text(const char *dir, char **text, size_t *len, char *err, size_t errlen)
{
    dk_stats *st[DK_NVARIANTS];
    size_t n[DK_NVARIANTS];
    *text = NULL;
    *len = 0;
    if (load_variants(dir, NULL, st, n, err, errlen) < 0) {
        free_variants(st, n);
        return -1;
    }
    FILE *mem = open_memstream(text, len);
    if (!mem) {
        free_variants(st, n);
        return dk_errorf(err, errlen, "cannot make the manifest of %s: out of memory", dir);
    }
    print_json(st, n, mem);
    bool ok = !ferror(mem); /* a failed write into the stream: a truncated text */
    ok &= fclose(mem) == 0;
    free_variants(st, n);
    if (!ok) {
        free(*text);
        *text = NULL;
        return dk_errorf(err, errlen, "cannot make the manifest of %s: out of memory", dir);
    }
    return 0;
}

/* Whether the file at path holds exactly len bytes equal to data. */
static bool same_content(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    bool same = true;
    char buf[65536];
    size_t at = 0, n;
    while (same && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        same = at + n <= len && memcmp(buf, data + at, n) == 0;
        at += n;
    }
    fclose(f);
    return same && at == len;
}

int dk_manifest_write(const char *dir, char *err, size_t errlen)
{
    char path[4096], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (manifest_text(dir, &text, &len, err, errlen) != 0)
        return -1;
    /* a finished directory stays untouched */
    int rc = same_content(path, text, len) ? 0 : dk_write_file_atomic(path, text, len, err, errlen);
    free(text);
    return rc;
}

int dk_manifest_check(const char *dir, char *err, size_t errlen)
{
    char path[4096], *text;
    size_t len, have = 0;
    const uint8_t *map = NULL;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (access(path, F_OK) != 0)
        return DK_MANIFEST_CURRENT; /* a run under way: nothing to compare */
    if (manifest_text(dir, &text, &len, err, errlen) != 0)
        return DK_FAILED;
    int mapped = dk_map_file(path, 0, &map, &have, err, errlen);
    if (mapped != DK_OK && mapped != DK_DAMAGED) { /* an empty file differs */
        free(text);
        return DK_FAILED;
    }
    int rc = DK_MANIFEST_CURRENT;
    if (mapped != 0 || have != len || memcmp(map, text, len) != 0) {
        bool current = mapped == 0 && memmem(map, have < 256 ? have : 256, "\"" DK_MANIFEST_FORMAT "\"",
                                             strlen(DK_MANIFEST_FORMAT) + 2);
        rc = current || mapped != DK_OK ? DK_MANIFEST_DIFFERS : DK_MANIFEST_OLD_FORMAT;
        dk_errorf(err, errlen, "%s %s (damka gen --variant V --pieces 2 --draw-rule MOVES --out %s, with a "
                  "variant and the rule of its tables, writes it again)", path,
                  rc == DK_MANIFEST_DIFFERS ? "does not list the tables as their .stats files do" : "is of an older format", dir);
    }
    dk_unmap_file(map, have);
    free(text);
    return rc;
}

/* One line per table; with a draw rule, a second block: the categories under it and the
 * longest distance to conversion. */
static void print_text(const dk_variant *v, const dk_stats *st, size_t n, FILE *f)
{
    fprintf(f, "%-14s %-13s %14s %6s %6s %6s %8s  %s\n", "variant", "material", "positions", "win%",
            "loss%", "draw%", "longest", "longest win (White to move)");
    for (size_t i = 0; i < n; i++) {
        char name[DK_MATERIAL_NAME_MAX];
        dk_material_name(st[i].m, name, sizeof name);
        double t = st[i].positions ? (double)st[i].positions : 1.0;
        fprintf(f, "%-14s %-13s %14" PRIu64 " %6.2f %6.2f %6.2f %8u  %s\n", v->name, name,
                st[i].positions, 100.0 * st[i].wins / t, 100.0 * st[i].losses / t,
                100.0 * st[i].draws / t, st[i].longest_win,
                st[i].longest_win ? st[i].longest_fen : "-");
    }
    if (!n || !st[0].limit)
        return;
    fprintf(f, "\nunder the draw rule (%u plies without a capture or a man move), White to move:\n",
            st[0].limit);
    fprintf(f, "%-14s %-13s %14s %14s %14s %14s %14s %4s  %s\n", "variant", "material", "win",
            "cursed win", "draw", "blessed loss", "loss", "DTC", "longest DTC of a win");
    for (size_t i = 0; i < n; i++) {
        char name[DK_MATERIAL_NAME_MAX];
        dk_material_name(st[i].m, name, sizeof name);
        fprintf(f, "%-14s %-13s", v->name, name);
        for (int k = 0; k < DK_RC_N; k++)
            fprintf(f, " %14" PRIu64, st[i].rule[k]);
        fprintf(f, " %4u  %s\n", st[i].longest_dtc, st[i].longest_dtc ? st[i].longest_dtc_fen : "-");
    }
}

int dk_manifest_print(const char *dir, const dk_variant *v, bool json, FILE *f, char *err, size_t errlen)
{
    dk_stats *st[DK_NVARIANTS];
    size_t n[DK_NVARIANTS];
    int total = load_variants(dir, v, st, n, err, errlen); /* a damaged file prints nothing */
    if (total > 0 && json)
        print_json(st, n, f);
    for (int id = 0; total > 0 && !json && id < DK_NVARIANTS; id++)
        if (n[id])
            print_text(dk_variant_get((dk_variant_id)id), st[id], n[id], f);
    free_variants(st, n);
    return total;
}
