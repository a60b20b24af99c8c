/* The compressed table reader (query/ctable.c, query/FORMAT.md). The input is a table file
 * (.wld, .dtw or .dtc). It is written into a scratch directory under the name its header asks
 * for and read twice: as it is, and with its sizes and checksums repaired (file size, last
 * index entry, end mark, the three CRCs, and the CRC of each run-length coded WLD block), so
 * that mutations reach what lies behind the checks (the WLD decoder among them). Each time
 * through dk_ctable_open / dk_ctable_check / dk_ctable_read_block, then through libdamka
 * (damka_open and probes of a few positions of the header's material).
 *
 * Any outcome but a crash, a leak or undefined behaviour is fine, as long as nothing comes from
 * bytes whose checksum is wrong, judged here independently of the library: a table opens only
 * with a right header CRC and index CRC, the full check passes only with a right file CRC, a
 * zstd block reads only if its frame's content checksum (XXH64, computed here) matches what it
 * decompressed to, a WLD sub-block only if its block's CRC matches the block, and a probe
 * answers only from such a read block, with the value it holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../../index/perfect.h"
#include "../../query/ctable.h"
#include "../../query/damka.h"
#include "../../query/drawrule.h"
#include "../../query/wldcode.h"
#include "../../rules/movegen.h"
#include "support.h"

enum { HEADER = 64, TRAILER = 8, MAX_BLOCKS_READ = 64, PROBES = 8, MAX_PROBE_PIECES = 5 };

/* --- XXH64 with seed 0, whose low 32 bits end every zstd frame that has a checksum --- */

static const uint64_t P1 = 11400714785074694791ull, P2 = 14029467366897019727ull,
                      P3 = 1609587929392839161ull, P4 = 9650029242287828579ull,
                      P5 = 2870177450012600261ull;

static uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }
static uint64_t xround(uint64_t acc, uint64_t in) { return rotl(acc + in * P2, 31) * P1; }
static uint64_t xmerge(uint64_t h, uint64_t v) { return (h ^ xround(0, v)) * P1 + P4; }

static uint64_t xxh64(const uint8_t *p, size_t len)
{
    size_t i = 0;
    uint64_t h;
    if (len >= 32) {
        uint64_t v[4] = {P1 + P2, P2, 0, 0 - P1};
        for (; i + 32 <= len; i += 32)
            for (int k = 0; k < 4; k++)
                v[k] = xround(v[k], fuzz_get64(p + i + 8 * k));
        h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
        for (int k = 0; k < 4; k++)
            h = xmerge(h, v[k]);
    } else {
        h = P5;
    }
    h += len;
    for (; i + 8 <= len; i += 8)
        h = rotl(h ^ xround(0, fuzz_get64(p + i)), 27) * P1 + P4;
    if (i + 4 <= len) {
        h = rotl(h ^ fuzz_get32(p + i) * P1, 23) * P2 + P3;
        i += 4;
    }
    for (; i < len; i++)
        h = rotl(h ^ p[i] * P5, 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ h >> 32;
}

/* --- the file as this harness reads it --- */

typedef struct judged {
    bool header_crc, index_crc, file_crc; /* each stored CRC matches its bytes */
    uint64_t index_end;                   /* 0 if the index does not fit */
} judged;

static judged judge(const uint8_t *f, size_t len)
{
    judged j = {false, false, false, 0};
    if (len < HEADER + TRAILER)
        return j;
    j.header_crc = fuzz_crc32c(f, 52) == fuzz_get32(f + 52);
    uint64_t end = HEADER + (uint64_t)fuzz_get32(f + 36) + ((uint64_t)fuzz_get32(f + 32) + 1) * 8;
    if (end + TRAILER <= len) {
        j.index_end = end;
        j.index_crc = fuzz_crc32c(f + HEADER, end - HEADER) == fuzz_get32(f + 48);
    }
    j.file_crc = fuzz_crc32c(f, len - TRAILER) == fuzz_get32(f + len - TRAILER);
    return j;
}

/* Whether the file says it is a WLD file: run-length coded, the format's one WLD form. */
static bool coded_wld(const uint8_t *f, size_t len)
{
    return len >= HEADER && f[13] == DK_METRIC_WLD;
}

/* Block b's bytes [*from, *to) as the index says, if they lie after it and before the trailer. */
static bool block_range(const uint8_t *f, size_t len, uint64_t index_end, uint32_t b, uint64_t *from,
                        uint64_t *to)
{
    const uint8_t *index = f + index_end - 8 * ((uint64_t)fuzz_get32(f + 32) + 1);
    *from = fuzz_get64(index + 8 * (size_t)b);
    *to = fuzz_get64(index + 8 * (size_t)b + 8);
    return index_end <= *from && *from <= *to && *to <= len - TRAILER;
}

/* Makes the sizes and checksums agree with the bytes, as a writer would. */
static void repair(uint8_t *f, size_t len)
{
    for (int i = 0; i < 8; i++)
        f[40 + i] = (uint8_t)((uint64_t)len >> (8 * i));
    memcpy(f + len - 4, "DKTE", 4);
    judged j = judge(f, len);
    if (j.index_end) {
        uint64_t last = len - TRAILER, from, to;
        for (int i = 0; i < 8; i++)
            f[j.index_end - 8 + i] = (uint8_t)(last >> (8 * i));
        for (uint32_t b = 0; coded_wld(f, len) && b < fuzz_get32(f + 32); b++)
            if (block_range(f, len, j.index_end, b, &from, &to) && to - from >= 4)
                fuzz_put32(f + from, fuzz_crc32c(f + from + 4, to - from - 4));
        fuzz_put32(f + 48, fuzz_crc32c(f + HEADER, j.index_end - HEADER));
    }
    fuzz_put32(f + 52, fuzz_crc32c(f, 52));
    fuzz_put32(f + len - TRAILER, fuzz_crc32c(f, len - TRAILER));
}

/* The file name the header asks for: variant, material and metric. */
static void table_path(const uint8_t *f, size_t len, char *path, size_t cap)
{
    int variant = len > 12 && f[12] == DK_INTERNATIONAL ? DK_INTERNATIONAL : DK_BRAZILIAN;
    int metric = len > 13 && f[13] >= DK_METRIC_WLD && f[13] <= DK_METRIC_DTC ? f[13] : DK_METRIC_WLD;
    dk_material m = {1, 0, 0, 1};
    if (len >= 18)
        m = (dk_material){f[14], f[15], f[16], f[17]};
    char name[32];
    dk_material_name(m, name, sizeof name);
    static const char *const ext[] = {"", "wld", "dtw", "dtc"};
    snprintf(path, cap, "%s/%s-%s.%s", fuzz_tmpdir(), dk_variant_get((dk_variant_id)variant)->name,
             name, ext[metric]);
}

/* Reads read block u into a buffer of its exact size (NULL if the reader refuses it); a block read
 * must be what its checksum says: a zstd frame's, or the CRC of the WLD block holding it. */
static uint8_t *read_block(const dk_ctable *t, void *dctx, const uint8_t *f, uint64_t u)
{
    const dk_ctable_info *in = dk_ctable_get_info(t);
    size_t want = dk_ctable_read_block_bytes(t, u);
    uint8_t *out = malloc(want);
    char err[512] = "";
    FUZZ_CHECK(out, "out of memory for a read block of %zu bytes", want);
    if (dk_ctable_read_block(t, dctx, u, out, err, sizeof err) != 0) {
        FUZZ_CHECK(err[0], "read block %llu refused without a reason", (unsigned long long)u);
        free(out);
        return NULL;
    }
    uint32_t b = (uint32_t)(u / (in->block_size / in->read_block));
    uint64_t from, to, index_end = HEADER + (uint64_t)in->dict_size + 8 * ((uint64_t)in->nblocks + 1);
    FUZZ_CHECK(block_range(f, in->file_size, index_end, b, &from, &to), "block %u read outside the file", b);
    if (coded_wld(f, in->file_size)) {
        FUZZ_CHECK(to - from >= 4 && fuzz_crc32c(f + from + 4, to - from - 4) == fuzz_get32(f + from),
                   "sub-block %llu read although its block's CRC is wrong", (unsigned long long)u);
    } else {
        size_t frame = ZSTD_findFrameCompressedSize(f + from, to - from);
        FUZZ_CHECK(!ZSTD_isError(frame) && frame >= 4 && (f[from + 4] & 0x04),
                   "block %u read from a frame without a checksum", b);
        FUZZ_CHECK((uint32_t)xxh64(out, want) == fuzz_get32(f + from + frame - 4),
                   "block %u read although its checksum is wrong", b);
    }
    uint32_t n = dk_ctable_positions(in->count, in->read_block, u);
    for (uint32_t k = 0; k < n; k++) /* every value of the block decodes within it */
        (void)dk_ctable_decode(t, out, k);
    return out;
}

static void check_open(const dk_ctable *t, const judged *j, const uint8_t *f_of_check, size_t len)
{
    const dk_ctable_info *in = dk_ctable_get_info(t);
    FUZZ_CHECK(j->header_crc && j->index_crc, "opened with a wrong %s CRC",
               j->header_crc ? "index" : "header");
    uint64_t blocks = in->block_size ? in->count / in->block_size + (in->count % in->block_size != 0) : 0;
    FUZZ_CHECK(in->block_size && in->block_size % 4 == 0 && in->block_size <= DK_CTABLE_MAX_BLOCK &&
                   in->count && in->nblocks == blocks,
               "opened with %u blocks of %u for %llu positions", in->nblocks, in->block_size,
               (unsigned long long)in->count);
    FUZZ_CHECK(in->file_size == len && j->index_end, "opened with a wrong size");
    FUZZ_CHECK(in->version == DK_CTABLE_VERSION, "opened a file of format version %u", in->version);
    bool coded = coded_wld(f_of_check, len);
    FUZZ_CHECK(coded ? in->read_block == in->sub_block && in->sub_block % 4 == 0 &&
                           in->block_size % in->sub_block == 0 &&
                           in->block_size <= DK_WLD_MAX_BLOCK && in->dict_size == DK_WLD_TABLE
                     : in->read_block == in->block_size && in->sub_block == 0,
               "opened with blocks of %u, sub-blocks of %u", in->block_size, in->sub_block);
    bool dtc = in->metric == DK_METRIC_DTC;
    FUZZ_CHECK(in->metric >= DK_METRIC_WLD && in->metric <= DK_METRIC_DTC &&
                   (in->metric == DK_METRIC_WLD ? in->width == 0 : in->width == 1 || in->width == 2) &&
                   (dtc ? in->limit >= 1 && in->limit <= DK_RULE_MAX_LIMIT : in->limit == 0),
               "opened with metric %u, width %u, limit %u", in->metric, in->width, in->limit);
}

/* The reader's own calls: open, full check, the first blocks and the last. */
static void direct(const char *path, const uint8_t *f, size_t len, const judged *j, void *dctx)
{
    char err[1024] = "";
    dk_ctable *t = dk_ctable_open(path, err, sizeof err);
    if (!t) {
        FUZZ_CHECK(err[0], "open refused without a reason");
        return;
    }
    check_open(t, j, f, len);
    if (dk_ctable_check(t, err, sizeof err) == 0)
        FUZZ_CHECK(j->file_crc, "full check passed with a wrong file CRC");
    uint64_t nu = dk_ctable_get_info(t)->nread_blocks;
    for (uint64_t u = 0; u < nu; u = (u + 1 == MAX_BLOCKS_READ && nu > u + 2) ? nu - 1 : u + 1)
        free(read_block(t, dctx, f, u));
    dk_ctable_close(t);
}

/* What a probe answered, against the value the harness reads from the same file. */
static void compare(const dk_ctable *t, dk_value stored, const damka_value *val,
                    const damka_rule_value *rule)
{
    const dk_ctable_info *in = dk_ctable_get_info(t);
    if (in->metric == DK_METRIC_DTC) {
        dk_value r = dk_rule_at(stored, 0, in->limit);
        FUZZ_CHECK(rule->category == (damka_category)dk_rule_category(r) &&
                       rule->dtc == (dk_rule_is_decided(r) ? (int)dk_rule_dtc(r) : -1),
                   "rule probe gives %d/%d, the file %u", rule->category, rule->dtc, stored);
        return;
    }
    damka_wdl wdl = dk_value_is_draw(stored) ? DAMKA_DRAW
                    : dk_value_is_win(stored) ? DAMKA_WIN : DAMKA_LOSS;
    int dtw = wdl == DAMKA_DRAW || in->metric == DK_METRIC_WLD ? -1 : (int)dk_value_dtw(stored);
    FUZZ_CHECK(val->wdl == wdl && val->dtw == dtw, "probe gives %d/%d, the file %u", val->wdl,
               val->dtw, stored);
}

/* libdamka on the directory holding only this file: a few White-to-move positions of the
 * header's material, each answered only from a block that reads back right. */
static void through_api(const char *path, const uint8_t *f, size_t len, void *dctx)
{
    if (len < 18)
        return;
    const dk_variant *v = dk_variant_get(f[12] == DK_INTERNATIONAL ? DK_INTERNATIONAL : DK_BRAZILIAN);
    dk_material m = {f[14], f[15], f[16], f[17]};
    dk_index ix;
    if (!dk_material_valid(v, m) || dk_material_pieces(m) > MAX_PROBE_PIECES ||
        dk_index_init(&ix, v, m) != 0)
        return;
    damka_status st;
    damka_tb *tb = damka_open(fuzz_tmpdir(), v->name, 1, &st);
    FUZZ_CHECK(tb, "damka_open: %s", damka_status_text(st));
    char err[1024];
    dk_ctable *t = dk_ctable_open(path, err, sizeof err);
    for (int k = 0; k < PROBES; k++) {
        uint64_t i = (ix.size - 1) / (PROBES - 1) * (uint64_t)k;
        dk_pos p = dk_index_unrank(&ix, i);
        damka_position pos = {p.pieces[DK_WHITE], p.pieces[DK_BLACK], p.kings, 0};
        damka_value val = {DAMKA_DRAW, -2};
        damka_rule_value rule = {DAMKA_RULE_DRAW, -2, 0, 0};
        uint8_t metric = len > 13 ? f[13] : 0;
        st = metric == DK_METRIC_DTC ? damka_probe_rule(tb, &pos, 0, &rule)
             : metric == DK_METRIC_DTW ? damka_probe_dtw(tb, &pos, &val)
                                       : damka_probe_wdl(tb, &pos, &val);
        if (st != DAMKA_OK || dk_can_capture(v, &p, DK_WHITE))
            continue; /* a capture position is answered from smaller materials */
        FUZZ_CHECK(t, "a probe answered from a file that does not open");
        uint32_t size = dk_ctable_get_info(t)->read_block;
        uint8_t *block = read_block(t, dctx, f, i / size);
        FUZZ_CHECK(block, "a probe answered from a read block that does not read");
        compare(t, dk_ctable_decode(t, block, (uint32_t)(i % size)), &val, &rule);
        free(block);
    }
    int files;
    if (damka_check_files(tb, &files) == DAMKA_OK)
        FUZZ_CHECK(judge(f, len).file_crc, "damka_check_files passed with a wrong file CRC");
    dk_ctable_close(t);
    damka_close(tb);
}

static void *dctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    dctx = dk_ctable_dctx_new();
    FUZZ_CHECK(dctx, "out of memory");
    return 0;
}

static void read_file(const uint8_t *f, size_t len)
{
    char path[1024];
    table_path(f, len, path, sizeof path);
    fuzz_clear_dir(fuzz_tmpdir());
    fuzz_write_file(path, f, len);
    judged j = judge(f, len);
    direct(path, f, len, &j, dctx);
    through_api(path, f, len, dctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_file(data, size);
    if (size < HEADER + TRAILER)
        return 0;
    uint8_t *copy = malloc(size);
    FUZZ_CHECK(copy, "out of memory");
    memcpy(copy, data, size);
    repair(copy, size);
    if (memcmp(copy, data, size) != 0)
        read_file(copy, size);
    free(copy);
    return 0;
}
