/* tests/gen.sh's helper: alters one stored value of a material's compressed tables and rewrites
 * them with every checksum right, and the sizes and CRCs its .stats file records (if there is
 * one), so that they are consistent byte by byte and with each other but hold a wrong value,
 * which only the value-by-value check of `damka verify` can catch.
 *
 * Usage: tamper FILE INDEX, FILE a .dtw table (rewritten with its .wld) or a .dtc table. From
 * INDEX on, takes the first White-to-move position without a capture (whose value the tables
 * must hold exactly), makes its value wrong (DTW: a draw becomes a win in 1, a win or loss in n
 * one in n+2; DTC: a decided value takes 1 more ply to conversion, an undecided one becomes a
 * win in 1) and prints that position's FEN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../index/perfect.h"
#include "../../gen/finish/ctable_write.h"
#include "../../gen/store/stats.h"
#include "../../query/drawrule.h"
#include "../../rules/movegen.h"
#include "../../rules/notation.h"

static int die(const char *msg, const char *path)
{
    fprintf(stderr, "tamper: %s: %s\n", path, msg);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tamper DTW-OR-DTC-FILE INDEX\n");
        return 2;
    }
    const char *path = argv[1];
    uint64_t at = strtoull(argv[2], NULL, 10);
    char err[1024], wld[4096];
    dk_ctable *t = dk_ctable_open(path, err, sizeof err);
    if (!t)
        return die(err, path);
    const dk_ctable_info *in = dk_ctable_get_info(t);
    bool dtc = in->metric == DK_METRIC_DTC;
    if ((in->metric != DK_METRIC_DTW && !dtc) || in->variant >= DK_NVARIANTS)
        return die("not a DTW or DTC table", path);
    const dk_variant *v = dk_variant_get((dk_variant_id)in->variant);
    dk_material m = {in->material[0], in->material[1], in->material[2], in->material[3]};
    dk_index ix;
    if (dk_index_init(&ix, v, m) != 0 || ix.size != in->count)
        return die("header does not match the material", path);
    dk_value *values = malloc(in->count * sizeof *values);
    uint8_t *dont_care = calloc(in->count / 8 + 1, 1);
    uint8_t *block = malloc(dk_ctable_max_read_block_bytes(t));
    void *dctx = dk_ctable_dctx_new();
    if (!values || !dont_care || !block || !dctx)
        return die("out of memory", path);
    for (uint64_t i = 0; i < in->count; i++) {
        if (i % in->read_block == 0 && dk_ctable_read_block(t, dctx, i / in->read_block, block, err, sizeof err) != 0)
            return die(err, path);
        values[i] = dk_ctable_decode(t, block, (uint32_t)(i % in->read_block));
        dk_pos p = dk_index_unrank(&ix, i);
        if (dk_can_capture(v, &p, DK_WHITE))
            dont_care[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    for (; at < in->count && (dont_care[at / 8] >> (at % 8) & 1); at++)
        ;
    if (at >= in->count)
        return die("no position without a capture from that index on", path);
    if (dtc)
        values[at] = dk_rule_is_decided(values[at]) ? (dk_value)(values[at] + 2) : dk_rule_win(1);
    else
        values[at] = values[at] == DK_DRAW ? dk_value_of_dtw(1) : (dk_value)(values[at] + 2);
    char stats_path[4096];
    dk_stats st;
    snprintf(wld, sizeof wld, "%.*s.wld", (int)(strlen(path) - 4), path);
    snprintf(stats_path, sizeof stats_path, "%.*s.stats", (int)(strlen(path) - 4), path);
    bool has_stats = dk_stats_read(&st, stats_path, err, sizeof err) == 0;
    for (int k = dtc ? 1 : 0; k < 2; k++) {
        dk_metric metric = k ? (dk_metric)in->metric : DK_METRIC_WLD;
        dk_ctable_params cp = {in->variant, {m.wm, m.wk, m.bm, m.bk}, metric, 0, 1, false, in->limit, 1, 0};
        dk_ctable_info ci;
        if (dk_ctable_write(k ? path : wld, &cp, values, dont_care, in->count, &ci, err, sizeof err) != 0)
            return die(err, k ? path : wld);
        st.file_size[metric - 1] = ci.file_size;
        st.file_crc[metric - 1] = ci.file_crc;
    }
    if (has_stats && dk_stats_write(&st, stats_path, err, sizeof err) != 0)
        return die(err, stats_path);
    if (has_stats)
        dk_stats_free(&st);
    char fen[DK_FEN_MAX];
    dk_pos p = dk_index_unrank(&ix, at);
    dk_fen_format(v, &p, false, fen, sizeof fen);
    printf("%s\n", fen);
    dk_ctable_dctx_free(dctx);
    dk_ctable_close(t);
    free(values);
    free(dont_care);
    free(block);
    return 0;
}
