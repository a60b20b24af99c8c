#include "stats.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../query/fileio.h"
#include "../rules/notation.h"

int dk_stats_compute(dk_stats *st, const dk_index *ix, const dk_value *values)
{
    memset(st, 0, sizeof *st);
    st->m = ix->m;
    st->positions = ix->size;
    dk_value maxv = 0, longest = 0;
    uint64_t longest_at = 0;
    for (uint64_t i = 0; i < ix->size; i++) {
        dk_value v = values[i];
        maxv = v > maxv ? v : maxv;
        if (dk_value_is_win(v) && v > longest) {
            longest = v;
            longest_at = i;
        }
    }
    st->max_dtw = maxv ? dk_value_dtw(maxv) : 0;
    st->hist = calloc(st->max_dtw + 1, sizeof *st->hist);
    if (!st->hist)
        return -1;
    for (uint64_t i = 0; i < ix->size; i++) {
        dk_value v = values[i];
        if (v == DK_DRAW) {
            st->draws++;
            continue;
        }
        st->hist[dk_value_dtw(v)]++;
        if (dk_value_is_win(v))
            st->wins++;
        else
            st->losses++;
    }
    if (longest) {
        st->longest_win = dk_value_dtw(longest);
        dk_pos p = dk_index_unrank(ix, longest_at);
        dk_fen_format(ix->v, &p, false, st->longest_fen, sizeof st->longest_fen);
    }
    return 0;
}

void dk_stats_free(dk_stats *st)
{
    free(st->hist);
    st->hist = NULL;
}

int dk_stats_save(const dk_stats *st, const char *path)
{
    char name[DK_MATERIAL_NAME_MAX], err[256], *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return -1;
    dk_material_name(st->m, name, sizeof name);
    fprintf(f, "material %s\npositions %" PRIu64 "\nwins %" PRIu64 "\nlosses %" PRIu64
               "\ndraws %" PRIu64 "\nwld %" PRIu64 " %08x\ndtw %" PRIu64 " %08x\nlongest_win %u %s\n",
            name, st->positions, st->wins, st->losses, st->draws, st->file_size[0], st->file_crc[0],
            st->file_size[1], st->file_crc[1], st->longest_win, st->longest_win ? st->longest_fen : "-");
    fprintf(f, "histogram");
    for (unsigned d = 0; d <= st->max_dtw; d++)
        if (st->hist[d])
            fprintf(f, " %u:%" PRIu64, d, st->hist[d]);
    fprintf(f, "\n");
    int rc = fclose(f) == 0 ? dk_write_file_atomic(path, text, len, err, sizeof err) : -1;
    free(text);
    return rc;
}

int dk_stats_load(dk_stats *st, const char *path)
{
    memset(st, 0, sizeof *st);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char name[64], fen[128];
    int ok = fscanf(f,
                    "material %63s positions %" SCNu64 " wins %" SCNu64 " losses %" SCNu64
                    " draws %" SCNu64 " wld %" SCNu64 " %x dtw %" SCNu64 " %x longest_win %u %127s"
                    " histogram",
                    name, &st->positions, &st->wins, &st->losses, &st->draws, &st->file_size[0],
                    &st->file_crc[0], &st->file_size[1], &st->file_crc[1], &st->longest_win,
                    fen) == 11 &&
             dk_material_parse(name, &st->m) == 0;
    if (ok) {
        snprintf(st->longest_fen, sizeof st->longest_fen, "%s", st->longest_win ? fen : "");
        unsigned d;
        uint64_t n;
        size_t cap = 0;
        while (ok && fscanf(f, " %u:%" SCNu64, &d, &n) == 2) {
            if (d >= cap) {
                size_t nc = d + 64;
                uint64_t *h = realloc(st->hist, nc * sizeof *h);
                if (!h) {
                    ok = 0;
                    break;
                }
                memset(h + cap, 0, (nc - cap) * sizeof *h);
                st->hist = h;
                cap = nc;
            }
            st->hist[d] = n;
            st->max_dtw = d;
        }
        if (!st->hist)
            st->hist = calloc(1, sizeof *st->hist);
    }
    fclose(f);
    if (!ok || !st->hist) {
        dk_stats_free(st);
        return -1;
    }
    return 0;
}

void dk_stats_json(const dk_stats *st, const char *file, FILE *f)
{
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(st->m, name, sizeof name);
    fprintf(f, "{\"material\": \"%s\", \"side_to_move\": \"white\", \"files\": {", name);
    for (int k = 0; k < 2; k++)
        fprintf(f, "%s\"%s\": {\"file\": \"%s.%s\", \"size\": %" PRIu64 ", \"crc32c\": \"%08x\"}",
                k ? ", " : "", k ? "dtw" : "wld", file, k ? "dtw" : "wld", st->file_size[k],
                st->file_crc[k]);
    fprintf(f,
            "}, \"positions\": %" PRIu64 ", \"wins\": %" PRIu64 ", \"losses\": %" PRIu64
            ", \"draws\": %" PRIu64 ", \"longest_win\": ",
            st->positions, st->wins, st->losses, st->draws);
    if (st->longest_win)
        fprintf(f, "{\"plies\": %u, \"fen\": \"%s\"}", st->longest_win, st->longest_fen);
    else
        fprintf(f, "null");
    fprintf(f, ", \"dtw_histogram\": {");
    const char *sep = "";
    for (unsigned d = 0; d <= st->max_dtw; d++)
        if (st->hist[d]) {
            fprintf(f, "%s\"%u\": %" PRIu64, sep, d, st->hist[d]);
            sep = ", ";
        }
    fprintf(f, "}}");
}
