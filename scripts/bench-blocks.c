/* The block size of compressed tables against their size and decoding cost (make bench-blocks).
 *
 *   bench-blocks [--variant V] [--metric wld|dtw|dtc] [--level L] [--sub K,K...] [--no-captures]
 *                [--out DIR2] DIR SIZE...
 *
 * Decodes every table of one metric in DIR and writes it again with blocks of SIZE positions
 * (a multiple of 4) in the current format, and prints for each setting the bytes, bits per
 * position, the thread CPU time to decode every block of the rewritten files (what a probe
 * that misses the cache pays) and the write time. WLD files are written with each sub-block
 * size K of --sub that divides SIZE (default: SIZE itself); DTW and DTC files without and with
 * a zstd dictionary (the writer keeps one only where the file gets smaller). The values are
 * the stored ones; positions where the side to move must capture are marked free as the
 * generator marks them (dk_can_capture on every position), unless --no-captures, so that the
 * rewritten WLD files are what `damka gen` would write. With --out, the tables of the last
 * setting are left in DIR2/<size>/ beside symbolic links to DIR's other files, for
 * `bench-probe DIR2/<size>` to measure probes on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../gen/finish/ctable_write.h"
#include "../index/perfect.h"
#include "../query/tablebase.h"
#include "../query/wldcode.h"
#include "../rules/movegen.h"

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *msg)
{
    fprintf(stderr, "bench-blocks: %s\n", msg);
    exit(1);
}

/* Every value of table file `path`, decoded; *info gets its header. */
static dk_value *decode_all(const char *path, dk_ctable_info *info)
{
    char err[1024];
    dk_ctable *t = dk_ctable_open(path, err, sizeof err);
    if (!t)
        die(err);
    *info = *dk_ctable_get_info(t);
    dk_value *v = malloc(info->count * sizeof *v);
    uint8_t *block = malloc(dk_ctable_max_read_block_bytes(t));
    void *dctx = dk_ctable_dctx_new();
    if (!v || !block || !dctx)
        die("out of memory");
    for (uint64_t u = 0; u < info->nread_blocks; u++) {
        if (dk_ctable_read_block(t, dctx, u, block, err, sizeof err) != 0)
            die(err);
        uint32_t n = dk_ctable_positions(info->count, info->read_block, u);
        for (uint32_t j = 0; j < n; j++)
            v[u * info->read_block + j] = dk_ctable_decode(t, block, j);
    }
    dk_ctable_dctx_free(dctx);
    free(block);
    dk_ctable_close(t);
    return v;
}

/* The positions of material m where White must capture (bit i of byte i / 8). */
static uint8_t *captures_of(const dk_variant *v, dk_material m, uint64_t count)
{
    dk_index ix;
    uint8_t *dc = calloc(count / 8 + 1, 1);
    if (!dc || dk_index_init(&ix, v, m) != 0 || ix.size != count)
        die("cannot index a material");
    for (uint64_t i = 0; i < count; i++) {
        dk_pos p = dk_index_unrank(&ix, i);
        if (dk_can_capture(v, &p, DK_WHITE))
            dc[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    return dc;
}

/* Thread CPU seconds to read every block of the table file at path; *blocks gets how many. */
static double decode_time(const char *path, uint64_t *blocks)
{
    char err[1024];
    dk_ctable *t = dk_ctable_open(path, err, sizeof err);
    if (!t)
        die(err);
    const dk_ctable_info *in = dk_ctable_get_info(t);
    uint8_t *block = malloc(dk_ctable_max_read_block_bytes(t));
    void *dctx = dk_ctable_dctx_new();
    if (!block || !dctx)
        die("out of memory");
    double t0 = now(CLOCK_THREAD_CPUTIME_ID);
    for (uint64_t u = 0; u < in->nread_blocks; u++)
        if (dk_ctable_read_block(t, dctx, u, block, err, sizeof err) != 0)
            die(err);
    double spent = now(CLOCK_THREAD_CPUTIME_ID) - t0;
    *blocks = in->nread_blocks;
    dk_ctable_dctx_free(dctx);
    free(block);
    dk_ctable_close(t);
    return spent;
}

typedef struct setting {
    uint32_t block, sub;
    int dict;
    uint64_t bytes, count, with_dict, blocks;
    double write_s, decode_s;
} setting;

/* Symbolic links in `leave` to DIR's tables of the other metrics, for bench-probe. */
static void link_others(const char *dir, const char *leave, const dk_variant *v, const dk_material *ms,
                        size_t nm, dk_metric metric)
{
    for (size_t k = 0; k < nm; k++)
        for (int m = DK_METRIC_WLD; m <= DK_METRIC_DTC; m++) {
            char from[4096], to[4096], abs[4096];
            if (m == (int)metric)
                continue;
            dk_tb_path(dir, v, ms[k], dk_tb_metric_ext((dk_metric)m), from, sizeof from);
            dk_tb_path(leave, v, ms[k], dk_tb_metric_ext((dk_metric)m), to, sizeof to);
            if (access(from, F_OK) == 0 && realpath(from, abs) && symlink(abs, to) != 0 && errno != EEXIST)
                die("cannot link the other tables into the --out directory");
        }
}

int main(int argc, char **argv)
{
    const char *variant = "brazilian", *out_dir = NULL, *dir = NULL, *ext = "wld";
    dk_metric metric = DK_METRIC_WLD;
    int level = 0;
    bool captures = true;
    uint32_t sizes[32], subs[32];
    int nsizes = 0, nsubs = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--variant") && i + 1 < argc)
            variant = argv[++i];
        else if (!strcmp(argv[i], "--metric") && i + 1 < argc) {
            ext = argv[++i];
            metric = !strcmp(ext, "wld") ? DK_METRIC_WLD : !strcmp(ext, "dtw") ? DK_METRIC_DTW
                   : !strcmp(ext, "dtc") ? DK_METRIC_DTC : 0;
        } else if (!strcmp(argv[i], "--level") && i + 1 < argc)
            level = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sub") && i + 1 < argc)
            for (char *s = argv[++i]; *s && nsubs < 32; s += *s == ',')
                subs[nsubs++] = (uint32_t)strtoul(s, &s, 10);
        else if (!strcmp(argv[i], "--no-captures"))
            captures = false;
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out_dir = argv[++i];
        else if (!dir && argv[i][0] != '-')
            dir = argv[i];
        else if (dir && nsizes < 32 && atol(argv[i]) > 0 && atol(argv[i]) % 4 == 0)
            sizes[nsizes++] = (uint32_t)atol(argv[i]);
        else
            dir = NULL, nsizes = 0, i = argc;
    }
    const dk_variant *v = dk_variant_find(variant);
    if (!dir || !nsizes || !v || !metric) {
        fprintf(stderr, "usage: bench-blocks [--variant V] [--metric wld|dtw|dtc] [--level L] [--sub K,K...] "
                        "[--no-captures] [--out DIR2] DIR SIZE... (SIZE: positions a block, a multiple of 4)\n");
        return 2;
    }
    bool wld = metric == DK_METRIC_WLD;
    setting st[64];
    int ns = 0;
    for (int s = 0; s < nsizes; s++) {
        if (!wld)
            for (int dict = 0; dict < 2; dict++)
                st[ns++] = (setting){sizes[s], 0, dict, 0, 0, 0, 0, 0, 0};
        for (int k = 0; wld && k < (nsubs ? nsubs : 1) && ns < 64; k++) {
            uint32_t sub = nsubs ? subs[k] : sizes[s];
            if (dk_wld_layout_ok(sizes[s], sub))
                st[ns++] = (setting){sizes[s], sub, 0, 0, 0, 0, 0, 0, 0};
        }
    }
    if (!ns)
        die("no valid setting (WLD: each sub-block size must divide the block, blocks at most 131072)");
    size_t nm = dk_material_list(v, DK_TB_MAX_PIECES, 0, NULL, 0);
    dk_material *ms = malloc(nm * sizeof *ms);
    dk_material_list(v, DK_TB_MAX_PIECES, 0, ms, nm);
    char tmp[] = "/tmp/bench-blocks-XXXXXX", leave[4096] = "";
    if (!mkdtemp(tmp))
        die("cannot make a temporary directory");
    if (out_dir) {
        snprintf(leave, sizeof leave, "%s/%u", out_dir, st[ns - 1].block);
        mkdir(out_dir, 0755);
        if (mkdir(leave, 0755) != 0 && errno != EEXIST)
            die("cannot make the --out directory");
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint64_t original = 0, positions = 0;
    int files = 0;
    for (size_t k = 0; k < nm; k++) {
        char path[4096], dst[4096], err[1024];
        dk_tb_path(dir, v, ms[k], ext, path, sizeof path);
        if (access(path, F_OK) != 0)
            continue;
        dk_ctable_info in, outi;
        dk_value *values = decode_all(path, &in);
        uint8_t *dc = captures ? captures_of(v, ms[k], in.count) : NULL;
        original += in.file_size;
        positions += in.count;
        files++;
        for (int s = 0; s < ns; s++) {
            dk_ctable_params p = {in.variant, {in.material[0], in.material[1], in.material[2], in.material[3]},
                                  metric, st[s].block, level, st[s].dict, in.limit, 1, st[s].sub};
            bool last = s == ns - 1 && leave[0];
            dk_tb_path(last ? leave : tmp, v, ms[k], ext, dst, sizeof dst);
            double t0 = now(CLOCK_MONOTONIC);
            if (dk_ctable_write(dst, &p, values, dc, in.count, &outi, err, sizeof err) != 0)
                die(err);
            st[s].write_s += now(CLOCK_MONOTONIC) - t0;
            uint64_t blocks;
            st[s].decode_s += decode_time(dst, &blocks);
            st[s].blocks += blocks;
            st[s].bytes += outi.file_size;
            st[s].count += outi.count;
            st[s].with_dict += outi.dict_size > 0;
            if (!last)
                unlink(dst);
        }
        free(values);
        free(dc);
    }
    char lv[32] = "the writer's default";
    if (level)
        snprintf(lv, sizeof lv, "%d", level);
    printf("%d %s tables of %s in %s, rewritten (zstd level %s; capture positions %s)\n", files, ext, v->name, dir,
           wld ? "unused" : lv, captures ? "free" : "as stored");
    printf("%10s %10s %14s %10s %14s %12s %10s\n", "positions", wld ? "sub-block" : "dict", "bytes", "bits/pos",
           "decode us/block", "ns/position", "write s");
    for (int s = 0; s < ns; s++) {
        char second[32];
        if (wld)
            snprintf(second, sizeof second, "%u", st[s].sub);
        else
            snprintf(second, sizeof second, "%s (%llu)", st[s].dict ? "yes" : "no",
                     (unsigned long long)st[s].with_dict);
        printf("%10u %10s %14llu %10.4f %14.2f %12.3f %10.1f\n", st[s].block, second,
               (unsigned long long)st[s].bytes, 8.0 * (double)st[s].bytes / (double)st[s].count,
               1e6 * st[s].decode_s / (double)st[s].blocks, 1e9 * st[s].decode_s / (double)st[s].count,
               st[s].write_s);
    }
    printf("%s as given: %llu bytes, %.4f bits/pos (%llu positions)\n", ext, (unsigned long long)original,
           8.0 * (double)original / (double)positions, (unsigned long long)positions);
    if (!wld)
        printf("(dict: with a dictionary, and in how many files it was kept)\n");
    if (leave[0]) {
        link_others(dir, leave, v, ms, nm, metric);
        printf("(the last setting left in %s with links to the other tables)\n", leave);
    }
    rmdir(tmp);
    free(ms);
    return 0;
}
