/* The answers of damka serve about positions: one position with its moves (damka query's JSON
 * object with the fields of the lichess tablebase API that lidraughts' client reads, see
 * docs/api.md), its main line under the rule, a batch. */
#include <stdlib.h>
#include <string.h>

#include "../rules/errors.h"
#include "../rules/notation.h"
#include "cli.h"
#include "serve.h"

/* Whether move m of p is a conversion (a capture or a man move: it sets the counter to 0). */
static bool is_conversion(const dk_pos *p, const dk_move *m)
{
    return m->captures || (dk_men(p, p->side) & dk_bit(m->from));
}

/* A signed number, or null when !known. */
static void json_signed(dk_json *w, const char *key, bool known, int64_t x)
{
    if (known)
        dk_json_i64(w, key, x);
    else
        dk_json_null(w, key);
}

/* lichess' distance to zeroing of a position with its category at its counter. */
typedef struct dtz_value {
    bool known, precise; /* precise: the distance itself, not a bound */
    int64_t plies;       /* signed: positive when the side to move wins (a cursed win too) */
} dtz_value;

/* The dtz of position q (its side to move) whose category at the counter it is met with is cat:
 * 0 for a draw; else the plies to the next capture or man move, positive when the side to move
 * wins: the DTC its table stores (exact, also when the counter turns the position into a cursed
 * win or blessed loss), or L + 1 for a position cursed or blessed even at counter 0, whose
 * distance is more than L and is not stored (not precise: a bound, as lichess' rounded dtz).
 * Unknown without draw-rule tables or when q's table cannot be read. */
static dtz_value dtz_of(const answer_src *s, const dk_pos *q, dk_category cat)
{
    dtz_value z = {false, true, 0};
    dk_value r;
    if (!s->limit)
        return z;
    z.known = true;
    if (cat == DK_CAT_DRAW)
        return z;
    if (dk_tb_probe(s->tb, q, DK_METRIC_DTC, &r) != DK_OK) {
        z.known = false;
        return z;
    }
    z.precise = dk_rule_is_decided(r);
    z.plies = (int64_t)(z.precise ? dk_rule_dtc(r) : s->limit + 1) * (cat > 0 ? 1 : -1);
    return z;
}

/* The members lichess' API gives every position, for a position of category cat (-2..2, or
 * `known` false), its dtz, signed DTW (side to move: positive when it wins), whether it has no
 * legal move. dtc and precise_dtz: dtz where it is exact. DTW: win or loss only. */
static void json_lichess(dk_json *w, bool known, dk_category cat, dtz_value z, bool dtw_known, int64_t dtw,
                         bool no_move)
{
    static const char *const names[] = {"loss", "blessed-loss", "draw", "cursed-win", "win"};
    dk_json_string(w, "category", known ? names[cat - DK_CAT_LOSS] : "unknown");
    json_signed(w, "wdl", known, cat);
    json_signed(w, "dtz", z.known, z.plies);
    json_signed(w, "precise_dtz", z.known && z.precise, z.plies);
    json_signed(w, "dtc", z.known && z.precise, z.plies);
    json_signed(w, "dtm", dtw_known, dtw);
    dk_json_bool(w, "checkmate", no_move);
    dk_json_bool(w, "stalemate", false);
    dk_json_bool(w, "variant_win", false);
    dk_json_bool(w, "variant_loss", false);
    dk_json_bool(w, "insufficient_material", false);
}

/* The category and signed DTC of a rule value (or of a DTW value when there is no rule). */
static dk_category category_of(const answer_src *s, dk_value rule, dk_value dtw)
{
    if (s->limit)
        return dk_rule_category(rule);
    return dk_value_is_draw(dtw) ? DK_CAT_DRAW : dk_value_is_win(dtw) ? DK_CAT_WIN : DK_CAT_LOSS;
}

static void position_extra(dk_json *w, const answer *a, void *ctx)
{
    const answer_src *s = ctx;
    dk_category cat = category_of(s, a->rule, a->value);
    int64_t dtw = dk_value_is_draw(a->value) ? 0 : (int64_t)dk_value_dtw(a->value) * (dk_value_is_win(a->value) ? 1 : -1);
    json_lichess(w, true, cat, dtz_of(s, &a->p, cat), !dk_value_is_draw(a->value), dtw, a->list.n == 0);
}

/* A move in lichess' form: uci (lidraughts' form: every square the piece stands on), san
 * (numeric notation), zeroing, and the values of the position after the move for its side to
 * move (the mover's opponent), as lichess gives them. */
static void move_extra(dk_json *w, const answer *a, int i, void *ctx)
{
    const answer_src *s = ctx;
    const dk_move *m = &a->list.m[i];
    char uci[2 * DK_MAX_SQ + 3], san[DK_MOVE_TEXT_MAX];
    if (serve_uci(s->v, &a->p, m, uci, sizeof uci) != 0) /* never: the move is one of p's */
        snprintf(uci, sizeof uci, "%02d%02d", m->from + 1, m->to + 1);
    dk_move_format(s->v, &a->list, i, false, san, sizeof san);
    dk_json_string(w, "uci", uci);
    dk_json_string(w, "san", san);
    dk_json_bool(w, "zeroing", is_conversion(&a->p, m));
    dk_value v = a->values[i];
    int64_t dtw = dk_value_is_draw(v) ? 0 : ((int64_t)dk_value_dtw(v) - 1) * (dk_value_is_win(v) ? -1 : 1);
    dk_category cat;
    if (answer_moves_under_rule(s->limit, a->counter))
        cat = (dk_category)-dk_rule_category(a->rules[i]);
    else if (s->limit) /* the rule has drawn the game: wins and losses are cursed and blessed */
        cat = (dk_category)-dk_rule_category(dk_rule_undecided(v));
    else
        cat = (dk_category)-category_of(s, DK_RULE_DRAW, v);
    dk_pos q = dk_apply(&a->p, m);
    json_lichess(w, true, cat, dtz_of(s, &q, cat), !dk_value_is_draw(v), dtw, dk_value_is_win(v) && dk_value_dtw(v) == 1);
}

/* The counter's text: a whole number of plies from 0 to the rule's limit, or empty (0). Returns
 * 0, or 400 with the reason in err. */
static unsigned parse_counter(const answer_src *s, const char *counter, unsigned *c, char *err, size_t len)
{
    long n = 0;
    if (*counter && (!cli_parse_int(counter, 0, DK_RULE_MAX_LIMIT, &n) || (unsigned)n > s->limit)) {
        if (!s->limit)
            snprintf(err, len, "counter needs draw-rule tables, and the %s tables here have none", s->v->name);
        else
            snprintf(err, len, "counter must be a whole number of plies from 0 to %u (the %u-move rule)", s->limit,
                     s->limit / 2);
        return 400;
    }
    *c = (unsigned)n;
    return 0;
}

/* Parses fen (fen_len bytes: a %00 of the query is a NUL among them) with the parser every
 * interface uses (dk_fen_read: lidraughts' :H<n> and :F<n> fields accepted and ignored, since
 * lidraughts' H counts the plies since a drawn material appeared, not the draw rule's counter)
 * and the counter's text (see parse_counter; NULL: 0). `route` names the request in the message
 * of a missing fen. Returns 0, or 400 with the reason in err. */
static unsigned parse_input(const answer_src *s, const char *fen, size_t fen_len, const char *counter,
                            const char *route, dk_pos *p, unsigned *c, char *err, size_t len)
{
    *c = 0;
    if (counter && parse_counter(s, counter, c, err, len))
        return 400;
    if (!fen || !fen_len) {
        snprintf(err, len, "missing fen (%s?fen=FEN)", route);
        return 400;
    }
    char why[DK_ERR_MAX];
    if (dk_verdict_refused(dk_fen_read(s->v, fen, fen_len, p, why, sizeof why))) {
        snprintf(err, len, "bad FEN for %s: %s", s->v->name, why);
        return 400;
    }
    return 0;
}

/* The HTTP status that stands for a probe's failure: a position outside the tables `outside`;
 * 503 what may pass if asked again: a table file of the set gone (the one dk_tb_last_error
 * names), a read that failed, memory that ran out; 400 a position they cannot hold; 500 a
 * damaged table. */
static unsigned status_of(const serve_tables *t, dk_status st, unsigned outside)
{
    if (st == DK_MISSING)
        return serve_tables_has(t, dk_tb_last_error()) ? 503 : outside;
    return st == DK_REFUSED ? 400 : st == DK_NO_MEMORY || st == DK_IO ? 503 : 500;
}

static void json_error_object(dk_json *w, const char *fen, const char *err)
{
    dk_json_object(w, NULL);
    if (fen)
        dk_json_string(w, "fen", fen);
    else
        dk_json_null(w, "fen");
    dk_json_string(w, "error", err);
    dk_json_end(w);
}

/* Sets *out to the error {"fen": fen (fen_len bytes, quoted as every interface quotes input), "error":
 * err} with `status`. */
static void fen_error(serve_reply *out, unsigned status, const char *fen, size_t fen_len, const char *err)
{
    serve_json b;
    char quoted[DK_QUOTE_MAX];
    if (!serve_json_open(&b, out))
        return;
    json_error_object(&b.w, fen ? dk_quote(fen, fen_len, quoted, sizeof quoted) : NULL, err);
    serve_json_close(&b, out, status);
}

/* Writes the answer to fen met with counter (its text) into w: the position's object (category
 * unknown outside the tables), or {"fen", "error"}. Returns the status it stands for: 503 when
 * a table of the set is missing (its answer must not be cached). */
static unsigned write_answer(dk_json *w, const serve_tables *t, const answer_src *s, serve_counters *c, const char *fen,
                             size_t fen_len, const char *counter, const char *route, answer *a)
{
    char err[4096], canon[DK_FEN_MAX];
    dk_pos p;
    unsigned n, status = parse_input(s, fen, fen_len, counter, route, &p, &n, err, sizeof err);
    if (status) { /* the FEN echoed as every interface quotes input: escaped, cut */
        char quoted[DK_QUOTE_MAX];
        json_error_object(w, fen ? dk_quote(fen, fen_len, quoted, sizeof quoted) : NULL, err);
        return status;
    }
    dk_status st = answer_probe(s, &p, n, a);
    dk_fen_format(s->v, &p, false, canon, sizeof canon);
    if (st != DK_OK && (status = status_of(t, st, 200)) != 200) {
        answer_why_not(s, &p, st, err, sizeof err);
        json_error_object(w, fen, err);
        return status;
    }
    if (st != DK_OK) { /* outside the tables: as lichess answers */
        answer_why_not(s, &p, st, err, sizeof err);
        dk_json_object(w, NULL);
        dk_json_string(w, "fen", canon);
        dk_json_string(w, "reason", err);
        json_lichess(w, false, DK_CAT_DRAW, (dtz_value){0}, false, 0, false);
        dk_json_array(w, "moves");
        dk_json_end(w);
        dk_json_end(w);
        return 200;
    }
    atomic_fetch_add(&c->positions, 1);
    answer_extra x = {position_extra, move_extra, (void *)s};
    answer_json(w, s, a, canon, &x);
    return 200;
}

void serve_position(const serve_tables *t, const answer_src *s, serve_counters *c, const char *fen, size_t fen_len,
                    const char *counter, serve_reply *out)
{
    char route[64];
    serve_json b;
    answer *a = malloc(sizeof *a);
    if (!a) {
        serve_error(out, 503, "out of memory");
        return;
    }
    if (!serve_json_open(&b, out)) {
        free(a);
        return;
    }
    snprintf(route, sizeof route, "GET /%s", s->v->name);
    unsigned status = write_answer(&b.w, t, s, c, fen, fen_len, counter, route, a);
    serve_json_close(&b, out, status);
    free(a);
}

void serve_mainline(const serve_tables *t, const answer_src *s, serve_counters *c, const char *fen, size_t fen_len,
                    const char *counter, serve_reply *out)
{
    char err[4096], canon[DK_FEN_MAX], route[64];
    dk_pos p;
    snprintf(route, sizeof route, "GET /%s/mainline", s->v->name);
    unsigned n, status = parse_input(s, fen, fen_len, counter, route, &p, &n, err, sizeof err);
    if (status) {
        fen_error(out, status, fen, fen_len, err);
        return;
    }
    serve_json b;
    answer *a = malloc(sizeof *a);
    if (!a) {
        serve_error(out, 503, "out of memory");
        return;
    }
    dk_status st = answer_probe(s, &p, n, a);
    if (st != DK_OK) {
        answer_why_not(s, &p, st, err, sizeof err);
        free(a);
        fen_error(out, status_of(t, st, 404), fen, fen_len, err);
        return;
    }
    if (!serve_json_open(&b, out)) {
        free(a);
        return;
    }
    atomic_fetch_add(&c->positions, 1);
    dk_category cat = category_of(s, a->rule, a->value);
    bool decided = cat == DK_CAT_WIN || cat == DK_CAT_LOSS;
    const char *side[2] = {"white", "black"}, *end = "draw: no side wins under the rule";
    dk_fen_format(s->v, &p, false, canon, sizeof canon);
    dk_json_object(&b.w, NULL);
    dk_json_string(&b.w, "fen", canon);
    dk_json_u64(&b.w, "counter", n);
    position_extra(&b.w, a, (void *)s);
    if (decided)
        dk_json_string(&b.w, "winner", side[cat > 0 ? p.side : !p.side]);
    else
        dk_json_null(&b.w, "winner");
    dk_json_array(&b.w, "mainline");
    for (int ply = 0; decided; ply++) {
        if (a->list.n == 0) {
            end = p.side == DK_WHITE ? "no legal move: White has lost" : "no legal move: Black has lost";
            break;
        }
        if (ply == SERVE_MAINLINE_MAX) {
            end = "the line is longer than the server writes";
            break;
        }
        dk_json_newline(&b.w, 2);
        char text[DK_MOVE_TEXT_MAX];
        const dk_move *m = &a->list.m[0];
        dk_move_format(s->v, &a->list, 0, s->v->algebraic, text, sizeof text);
        dk_json_object(&b.w, NULL);
        dk_json_string(&b.w, "notation", text);
        move_extra(&b.w, a, 0, (void *)s);
        n = is_conversion(&p, m) ? 0 : n + 1;
        p = dk_apply(&p, m);
        dk_fen_format(s->v, &p, false, canon, sizeof canon);
        dk_json_string(&b.w, "fen", canon);
        dk_json_end(&b.w);
        if ((st = answer_probe(s, &p, n, a)) != DK_OK) {
            answer_why_not(s, &p, st, err, sizeof err);
            end = err;
            status = status_of(t, st, 200) == 503 ? 503 : 200;
            break;
        }
    }
    dk_json_end(&b.w);
    dk_json_string(&b.w, "end", end);
    dk_json_end(&b.w);
    free(a);
    serve_json_close(&b, out, 200);
    if (status == 503 && out->status == 200) { /* a table of the line is missing: no line to cache */
        free(out->body);
        fen_error(out, 503, fen, fen_len, err);
    }
}

enum { BATCH_TOO_LONG = -2 };

/* Decodes the JSON string whose opening quote is at *t, in place: its text starts at the quote
 * and ends with a NUL; *t moves past the closing quote. Escapes \uXXXX (surrogate pairs too)
 * become UTF-8, never longer than the escape. Returns 0, or DK_FAILED with err. */
static int json_string_in_place(char **t, char *err, size_t len)
{
    char *in = *t + 1, *out = *t;
    for (;;) {
        unsigned char ch = (unsigned char)*in++;
        if (ch == '"')
            break;
        if (ch < 0x20)
            return dk_errorf(err, len, "a string of the JSON array is unterminated or holds a control character");
        if (ch != '\\') {
            *out++ = (char)ch;
            continue;
        }
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *e = *in ? strchr(from, *in) : NULL;
        if (e) {
            *out++ = to[e - from], in++;
            continue;
        }
        unsigned long cp = 0;
        for (int pair = 0; pair < 2; pair++) {
            char hex[5] = {0}, *stop;
            if (in[0] != 'u' || strspn(in + 1, "0123456789abcdefABCDEF") < 4)
                return dk_errorf(err, len, "a string of the JSON array holds a bad escape");
            memcpy(hex, in + 1, 4);
            unsigned long u = strtoul(hex, &stop, 16);
            in += 5;
            if (pair == 0 && u >= 0xd800 && u < 0xdc00 && in[0] == '\\') {
                cp = u, in++;
                continue;
            }
            if (pair == 1 && !(u >= 0xdc00 && u < 0xe000))
                return dk_errorf(err, len, "a string of the JSON array holds a lone surrogate");
            cp = pair ? 0x10000 + ((cp - 0xd800) << 10) + (u - 0xdc00) : u;
            break;
        }
        if (cp == 0 || (cp >= 0xd800 && cp < 0xe000))
            return dk_errorf(err, len, "a string of the JSON array holds a NUL or a lone surrogate");
        if (cp < 0x80) {
            *out++ = (char)cp;
        } else if (cp < 0x800) {
            *out++ = (char)(0xc0 | cp >> 6), *out++ = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            *out++ = (char)(0xe0 | cp >> 12), *out++ = (char)(0x80 | (cp >> 6 & 0x3f));
            *out++ = (char)(0x80 | (cp & 0x3f));
        } else {
            *out++ = (char)(0xf0 | cp >> 18), *out++ = (char)(0x80 | (cp >> 12 & 0x3f));
            *out++ = (char)(0x80 | (cp >> 6 & 0x3f)), *out++ = (char)(0x80 | (cp & 0x3f));
        }
    }
    *out = 0;
    *t = in;
    return 0;
}

/* The FENs of a batch's body, in place in text (a NUL-terminated copy): a JSON array of
 * strings, or one FEN a line (blank lines and lines starting with # skipped). Returns how many
 * (at most max), DK_FAILED with err when the body is malformed, BATCH_TOO_LONG when it holds
 * more than max. Reentrant (no strtok): batches run on many threads. */
static int batch_fens(char *text, const char **fens, int max, char *err, size_t len)
{
    int n = 0;
    char *t = text + strspn(text, " \t\r\n");
    if (*t != '[') {
        for (char *line = t, *next; line; line = next) {
            char *nl = strchr(line, '\n');
            next = nl ? nl + 1 : NULL;
            if (nl)
                *nl = 0;
            line += strspn(line, " \t");
            size_t k = strcspn(line, "\r");
            while (k && (line[k - 1] == ' ' || line[k - 1] == '\t'))
                k--;
            line[k] = 0;
            if (!*line || *line == '#')
                continue;
            if (n == max)
                return BATCH_TOO_LONG;
            fens[n++] = line;
        }
        return n;
    }
    for (t++;;) {
        t += strspn(t, " \t\r\n");
        if (*t == ']' && n == 0)
            break;
        if (*t != '"')
            return dk_errorf(err, len, "the body is neither one FEN a line nor a JSON array of strings");
        if (n == max)
            return BATCH_TOO_LONG;
        fens[n++] = t;
        if (json_string_in_place(&t, err, len) != 0)
            return DK_FAILED;
        t += strspn(t, " \t\r\n");
        if (*t == ']')
            break;
        if (*t++ != ',')
            return dk_errorf(err, len, "the JSON array's strings must be separated by commas");
    }
    t += 1 + strspn(t + 1, " \t\r\n");
    if (*t)
        return dk_errorf(err, len, "something follows the JSON array");
    return n;
}

void serve_batch(const serve_tables *t, const answer_src *s, serve_counters *c, const char *body, size_t len, const char *counter,
                 serve_reply *out)
{
    char err[160], route[64];
    unsigned n0;
    if (counter && parse_counter(s, counter, &n0, err, sizeof err)) {
        serve_error(out, 400, "%s", err);
        return;
    }
    if (len > SERVE_BODY_MAX) {
        serve_error(out, 413, "the body holds %zu bytes, a batch at most %d", len, SERVE_BODY_MAX);
        return;
    }
    if (memchr(body, 0, len)) {
        serve_error(out, 400, "the body holds a NUL byte");
        return;
    }
    char *text = malloc(len + 1);
    const char **fens = malloc(SERVE_BATCH_MAX * sizeof *fens);
    answer *a = malloc(sizeof *a);
    serve_json b;
    if (!text || !fens || !a) {
        free(text), free(fens), free(a);
        serve_error(out, 503, "out of memory");
        return;
    }
    memcpy(text, body, len);
    text[len] = 0;
    snprintf(route, sizeof route, "POST /%s/batch", s->v->name);
    int n = batch_fens(text, fens, SERVE_BATCH_MAX, err, sizeof err);
    if (n == BATCH_TOO_LONG)
        serve_error(out, 413, "a batch holds at most %d positions", SERVE_BATCH_MAX);
    else if (n < 0)
        serve_error(out, 400, "%s", err);
    else if (serve_json_open(&b, out)) {
        dk_json_array(&b.w, NULL);
        for (int i = 0; i < n; i++) {
            dk_json_newline(&b.w, 1);
            write_answer(&b.w, t, s, c, fens[i], strlen(fens[i]), counter, route, a);
        }
        if (n)
            dk_json_newline(&b.w, 0);
        dk_json_end(&b.w);
        serve_json_close(&b, out, 200);
        out->cacheable = false; /* a POST */
    }
    free(text), free(fens), free(a);
}
