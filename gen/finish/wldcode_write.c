#include "wldcode_write.h"

#include <string.h>

#include "../../query/checksum.h"
#include "../../query/fileio.h"

static unsigned code_at(const uint8_t *codes, uint32_t i) { return codes[i / 4] >> (2 * (i % 4)) & 3; }

/* The runs of positions [at, end) of a block's codes, in order, each with the context the
 * reader decodes it in. */
typedef struct runs {
    const uint8_t *codes;
    uint32_t at, end;
    unsigned x, cur; /* the next run's context; the last run's value */
} runs;

typedef struct run {
    unsigned ctx, sym, extra;
    uint32_t len;
} run;

static bool next_run(runs *r, run *out)
{
    if (r->at >= r->end)
        return false;
    unsigned v = code_at(r->codes, r->at);
    uint32_t len = 1;
    while (r->at + len < r->end && code_at(r->codes, r->at + len) == v)
        len++;
    out->ctx = r->x;
    out->sym = v * DK_WLD_CLASSES + dk_wld_class(len, &out->extra);
    out->len = len;
    r->x = dk_wld_context(r->x ? r->cur : dk_wld_first_prev(v), v);
    r->cur = v;
    r->at += len;
    return true;
}

void dk_wld_count(dk_wld_counts *k, const uint8_t *codes, uint32_t n, uint32_t sub)
{
    for (uint32_t s = 0; s < n; s += sub) {
        runs r = {codes, s, n - s < sub ? n : s + sub, 0, 0};
        for (run t; next_run(&r, &t);)
            k->n[t.ctx][t.sym]++;
    }
}

/* Huffman code lengths of n symbols with weights w (0: no code), by merging the two lightest
 * trees until one is left; a single symbol gets length 1. Returns the longest. */
static unsigned huffman(const uint64_t *w, unsigned n, uint8_t *len)
{
    uint64_t weight[2 * DK_WLD_SYMBOLS];
    int parent[2 * DK_WLD_SYMBOLS];
    bool live[2 * DK_WLD_SYMBOLS];
    unsigned nodes = n, left = 0;
    for (unsigned s = 0; s < n; s++) {
        weight[s] = w[s];
        parent[s] = -1;
        live[s] = w[s] > 0;
        left += live[s];
        len[s] = 0;
    }
    if (left == 1)
        for (unsigned s = 0; s < n; s++)
            len[s] = live[s];
    for (; left > 1; left--) {
        int a = -1, b = -1;
        for (unsigned i = 0; i < nodes; i++) {
            if (!live[i])
                continue;
            if (a < 0 || weight[i] < weight[a])
                b = a, a = (int)i;
            else if (b < 0 || weight[i] < weight[b])
                b = (int)i;
        }
        weight[nodes] = weight[a] + weight[b];
        parent[nodes] = -1;
        live[nodes] = true;
        live[a] = live[b] = false;
        parent[a] = parent[b] = (int)nodes++;
    }
    unsigned longest = 0;
    for (unsigned s = 0; s < n; s++) {
        if (!w[s] || len[s])
            continue;
        unsigned d = 0;
        for (int i = (int)s; parent[i] >= 0; i = parent[i])
            d++;
        len[s] = (uint8_t)d;
        longest = d > longest ? d : longest;
    }
    return longest;
}

void dk_wld_encoder_init(dk_wld_encoder *e, const dk_wld_counts *k)
{
    memset(e, 0, sizeof *e);
    for (unsigned x = 0; x < DK_WLD_CONTEXTS; x++) {
        uint64_t w[DK_WLD_SYMBOLS];
        memcpy(w, k->n[x], sizeof w);
        /* too long a code: flatten the weights (halving, keeping every symbol) until it fits */
        while (huffman(w, DK_WLD_SYMBOLS, e->len[x]) > DK_WLD_MAX_LEN)
            for (unsigned s = 0; s < DK_WLD_SYMBOLS; s++)
                w[s] = w[s] ? w[s] / 2 + 1 : 0;
        /* canonical codes, as the reader builds them (query/wldcode.c) */
        uint32_t code = 0;
        for (unsigned L = 1; L <= DK_WLD_MAX_LEN; L++) {
            for (unsigned s = 0; s < DK_WLD_SYMBOLS; s++)
                if (e->len[x][s] == L)
                    e->code[x][s] = (uint16_t)code++;
            code <<= 1;
        }
        for (unsigned s = 0; s < DK_WLD_SYMBOLS; s++) {
            unsigned i = x * DK_WLD_SYMBOLS + s;
            e->table[i / 2] |= (uint8_t)(e->len[x][s] << (4 * (i % 2)));
        }
    }
}

/* Bits written most significant first into at most cap bytes; full once they do not fit. */
typedef struct bitw {
    uint8_t *out;
    size_t cap, bytes;
    uint64_t acc;
    unsigned n;
    bool full;
} bitw;

static void put(bitw *w, uint32_t v, unsigned k)
{
    w->acc = w->acc << k | v;
    for (w->n += k; w->n >= 8; w->n -= 8) {
        if (w->bytes == w->cap)
            w->full = true;
        else
            w->out[w->bytes++] = (uint8_t)(w->acc >> (w->n - 8));
    }
}

/* Codes positions [from, from + m) into out: returns the bytes, the raw size when coding did
 * not come out shorter (then out holds the raw codes). */
static size_t encode_sub(const dk_wld_encoder *e, const uint8_t *codes, uint32_t from, uint32_t m,
                         uint8_t *out)
{
    size_t raw = (m + 3) / 4;
    bitw w = {out, raw - 1, 0, 0, 0, false};
    runs r = {codes, from, from + m, 0, 0};
    for (run t; next_run(&r, &t);) {
        put(&w, e->code[t.ctx][t.sym], e->len[t.ctx][t.sym]);
        put(&w, t.len & ((1u << t.extra) - 1), t.extra);
    }
    put(&w, 0, (8 - w.n % 8) % 8);
    if (!w.full)
        return w.bytes;
    memcpy(out, codes + from / 4, raw); /* from is a multiple of 4; unused bits are zero */
    return raw;
}

size_t dk_wld_encode_block(const dk_wld_encoder *e, const uint8_t *codes, uint32_t n, uint32_t sub,
                           uint8_t *out)
{
    uint32_t subs = (n + sub - 1) / sub;
    size_t at = 4 + 2 * (size_t)(subs - 1);
    for (uint32_t s = 0; s < subs; s++) {
        if (s)
            dk_put16(out + 4 + 2 * (s - 1), (uint16_t)at);
        uint32_t m = n - s * sub < sub ? n - s * sub : sub;
        at += encode_sub(e, codes, s * sub, m, out + at);
    }
    dk_put32(out, dk_crc32c(0, out + 4, at - 4));
    return at;
}
