/* The block size of compressed tables against their size (make bench-blocks).
 *
 *   bench-blocks [--variant V] [--metric wld|dtw|dtc] [--level L] [--out DIR2] DIR SIZE...
 *
 * Decodes every table of one metric in DIR and writes it again with blocks of SIZE positions
 * (a multiple of 4), without and with a zstd dictionary (the writer keeps one only where the
 * file gets smaller), and prints the bytes, bits per position and write time of each setting.
 * The values are the stored ones, so capture positions keep what the generator put there.
 * With --out, the tables of the last SIZE with the dictionary are left in DIR2/<size>/ beside
 * symbolic links to DIR's other files, for `bench-probe DIR2/<size>` to measure probes on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../index/perfect.h"
#include "../gen/ctable_write.h"
#include "../query/tablebase.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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
    dk_value *v = malloc((info->count ? info->count : 1) * sizeof *v);
    uint8_t *block = malloc(dk_ctable_max_block_bytes(t));
    void *dctx = dk_ctable_dctx_new();
    if (!v || !block || !dctx)
        die("out of memory");
    for (uint32_t b = 0; b < info->nblocks; b++) {
        if (dk_ctable_read_block(t, dctx, b, block, err, sizeof err) != 0)
            die(err);
        uint64_t first = (uint64_t)b * info->block_size;
        uint64_t n = info->count - first < info->block_size ? info->count - first : info->block_size;
        for (uint32_t j = 0; j < n; j++)
            v[first + j] = dk_ctable_decode(t, block, j);
    }
    dk_ctable_dctx_free(dctx);
    free(block);
    dk_ctable_close(t);
    return v;
}

int main(int argc, char **argv)
{
    const char *variant = "brazilian", *out_dir = NULL, *dir = NULL, *ext = "wld";
    dk_metric metric = DK_METRIC_WLD;
    int level = 0;
    uint32_t sizes[32];
    int nsizes = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--variant") && i + 1 < argc)
            variant = argv[++i];
        else if (!strcmp(argv[i], "--metric") && i + 1 < argc) {
            ext = argv[++i];
            metric = !strcmp(ext, "wld") ? DK_METRIC_WLD : !strcmp(ext, "dtw") ? DK_METRIC_DTW
                   : !strcmp(ext, "dtc") ? DK_METRIC_DTC : 0;
        } else if (!strcmp(argv[i], "--level") && i + 1 < argc)
            level = atoi(argv[++i]);
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
        fprintf(stderr, "usage: bench-blocks [--variant V] [--metric wld|dtw|dtc] [--level L] "
                        "[--out DIR2] DIR SIZE... (SIZE: positions a block, a multiple of 4)\n");
        return 2;
    }
    size_t nm = dk_material_list(v, DK_TB_MAX_PIECES, 0, NULL, 0);
    dk_material *ms = malloc(nm * sizeof *ms);
    dk_material_list(v, DK_TB_MAX_PIECES, 0, ms, nm);
    char tmp[] = "/tmp/bench-blocks-XXXXXX";
    if (!mkdtemp(tmp))
        die("cannot make a temporary directory");
    setvbuf(stdout, NULL, _IOLBF, 0);
    char lv[32] = "the writer's default";
    if (level)
        snprintf(lv, sizeof lv, "%d", level);
    printf("%s tables of %s in %s, rewritten with other block sizes (zstd level %s)\n", ext,
           v->name, dir, lv);
    printf("%12s %6s %14s %10s %12s %10s\n", "positions", "dict", "bytes", "bits/pos", "stored", "write s");
    uint64_t original = 0, positions = 0;
    for (int s = 0; s < nsizes; s++)
        for (int dict = 0; dict < 2; dict++) {
            uint64_t bytes = 0, count = 0, with_dict = 0;
            double t0 = now();
            char leave[4096] = "";
            if (out_dir && s == nsizes - 1 && dict) {
                snprintf(leave, sizeof leave, "%s/%u", out_dir, sizes[s]);
                mkdir(out_dir, 0755);
                if (mkdir(leave, 0755) != 0 && errno != EEXIST)
                    die("cannot make the --out directory");
            }
            for (size_t k = 0; k < nm; k++) {
                char path[4096], dst[4096], err[1024];
                dk_tb_path(dir, v, ms[k], ext, path, sizeof path);
                if (access(path, F_OK) != 0)
                    continue;
                dk_ctable_info in, outi;
                dk_value *values = decode_all(path, &in);
                if (s == 0 && dict == 0) {
                    original += in.file_size;
                    positions += in.count;
                }
                dk_ctable_params p = {in.variant, {in.material[0], in.material[1], in.material[2],
                                                   in.material[3]},
                                      metric, sizes[s], level, dict, in.limit, 1};
                dk_tb_path(leave[0] ? leave : tmp, v, ms[k], ext, dst, sizeof dst);
                if (dk_ctable_write(dst, &p, values, NULL, in.count, &outi, err, sizeof err) != 0)
                    die(err);
                free(values);
                bytes += outi.file_size;
                count += outi.count;
                with_dict += outi.dict_size > 0;
                if (!leave[0])
                    unlink(dst);
            }
            printf("%12u %6s %14llu %10.4f %12llu %10.1f\n", sizes[s], dict ? "yes" : "no",
                   (unsigned long long)bytes, 8.0 * (double)bytes / (double)count,
                   (unsigned long long)with_dict, now() - t0);
            if (leave[0]) { /* the other files, for bench-probe */
                for (size_t k = 0; k < nm; k++)
                    for (int m = DK_METRIC_WLD; m <= DK_METRIC_DTC; m++) {
                        char from[4096], to[4096], abs[4096];
                        if (m == (int)metric)
                            continue;
                        dk_tb_path(dir, v, ms[k], dk_tb_metric_ext((dk_metric)m), from, sizeof from);
                        dk_tb_path(leave, v, ms[k], dk_tb_metric_ext((dk_metric)m), to, sizeof to);
                        if (access(from, F_OK) == 0 && realpath(from, abs) && symlink(abs, to) != 0 &&
                            errno != EEXIST)
                            die("cannot link the other tables into the --out directory");
                    }
                printf("(left in %s with links to the other tables)\n", leave);
            }
        }
    printf("%s as generated: %llu bytes, %.4f bits/pos (%llu positions)\n", ext,
           (unsigned long long)original, 8.0 * (double)original / (double)positions,
           (unsigned long long)positions);
    printf("(stored: files that kept a dictionary)\n");
    rmdir(tmp);
    free(ms);
    return 0;
}
