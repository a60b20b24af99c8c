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

/* The members lichess' API gives every position, for a position of category cat (-2..2, or
 * `known` false), signed DTC and DTW (side to move: positive when it wins), whether it has no
 * legal move. DTC: a decided category only (0 for a draw); DTW: win or loss only. */
static void json_lichess(dk_json *w, bool known, dk_category cat, bool dtc_known, int64_t dtc, bool dtw_known,
                         int64_t dtw, bool no_move)
{
    static const char *const names[] = {"loss", "blessed-loss", "draw", "cursed-win", "win"};
    dk_json_string(w, "category", known ? names[cat - DK_CAT_LOSS] : "unknown");
    json_signed(w, "wdl", known, cat);
    json_signed(w, "dtz", dtc_known, dtc);
    json_signed(w, "dtc", dtc_known, dtc);
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
    bool decided = cat == DK_CAT_WIN || cat == DK_CAT_LOSS;
    int64_t dtc = s->limit && decided ? (int64_t)dk_rule_dtc(a->rule) * (cat > 0 ? 1 : -1) : 0;
    int64_t dtw = dk_value_is_draw(a->value) ? 0 : (int64_t)dk_value_dtw(a->value) * (dk_value_is_win(a->value) ? 1 : -1);
    json_lichess(w, true, cat, s->limit && (decided || cat == DK_CAT_DRAW), dtc, !dk_value_is_draw(a->value), dtw,
                 a->list.n == 0);
}

/* A move in lichess' form: uci (from and to as two digits each, lidraughts' form), san (numeric
 * notation), zeroing, and the values of the position after the move for its side to move (the
 * mover's opponent), as lichess gives them. */
static void move_extra(dk_json *w, const answer *a, int i, void *ctx)
{
    const answer_src *s = ctx;
    const dk_move *m = &a->list.m[i];
    char uci[8], san[DK_MOVE_TEXT_MAX];
    snprintf(uci, sizeof uci, "%02d%02d", m->from + 1, m->to + 1);
    dk_move_format(s->v, &a->list, i, false, san, sizeof san);
    dk_json_string(w, "uci", uci);
    dk_json_string(w, "san", san);
    bool conversion = is_conversion(&a->p, m);
    dk_json_bool(w, "zeroing", conversion);
    dk_value v = a->values[i];
    int64_t dtw = dk_value_is_draw(v) ? 0 : ((int64_t)dk_value_dtw(v) - 1) * (dk_value_is_win(v) ? -1 : 1);
    dk_category cat;
    bool dtc_known = false;
    int64_t dtc = 0;
    if (answer_moves_under_rule(s->limit, a->counter)) {
        /* the child's own DTC: after a conversion its table at counter 0, else the mover's less
         * the move itself */
        dk_value child = DK_RULE_DRAW;
        dk_pos q = dk_apply(&a->p, m);
        cat = (dk_category)-dk_rule_category(a->rules[i]);
        if (!conversion && dk_rule_is_decided(a->rules[i])) {
            dtc_known = true, dtc = dk_rule_dtc(a->rules[i]) - 1;
        } else if (dk_rule_is_decided(a->rules[i]) && dk_tb_probe(s->tb, &q, DK_METRIC_DTC, &child) == DK_TB_OK &&
                   dk_rule_is_decided(child)) {
            dtc_known = true, dtc = dk_rule_dtc(child);
        }
        dtc *= cat > 0 ? 1 : -1;
        dtc_known |= cat == DK_CAT_DRAW;
    } else if (s->limit) { /* the rule has drawn the game: wins and losses are cursed and blessed */
        cat = (dk_category)-dk_rule_category(dk_rule_undecided(v));
    } else {
        cat = (dk_category)-category_of(s, DK_RULE_DRAW, v);
    }
    json_lichess(w, true, cat, dtc_known, dtc, !dk_value_is_draw(v), dtw, dk_value_is_win(v) && dk_value_dtw(v) == 1);
}

/* Parses the counter's text (NULL: 0) and fen (fen_len bytes: a %00 of the query is a NUL among
 * them) with the parser every interface uses (dk_fen_read: lidraughts' :H<n> and :F<n> fields
 * accepted and ignored). Returns 0, or 400 with the reason in err. */
static unsigned parse_input(const answer_src *s, const char *fen, size_t fen_len, const char *counter, dk_pos *p,
                            unsigned *c, char *err, size_t len)
{
    long n = 0;
    if (counter && (!cli_parse_int(counter, 0, DK_RULE_MAX_LIMIT, &n) || (unsigned)n > s->limit)) {
        if (!s->limit)
            snprintf(err, len, "counter needs draw-rule tables, and the %s tables here have none", s->v->name);
        else
            snprintf(err, len, "counter must be a whole number of plies from 0 to %u (the %u-move rule)", s->limit,
                     s->limit / 2);
        return 400;
    }
    *c = (unsigned)n;
    if (!fen || !fen_len) {
        snprintf(err, len, "missing fen (GET /%s?fen=FEN)", s->v->name);
        return 400;
    }
    char why[DK_ERR_MAX];
    if (dk_verdict_refused(dk_fen_read(s->v, fen, fen_len, p, why, sizeof why))) {
        snprintf(err, len, "bad FEN for %s: %s", s->v->name, why);
        return 400;
    }
    return 0;
}

/* The HTTP status that stands for a probe's failure: 404 outside the tables (`missing`), 400 a
 * position they cannot hold, 503 out of memory, 500 a damaged or unreadable table. */
static unsigned status_of(dk_tb_status st, unsigned missing)
{
    return st == DK_TB_MISSING ? missing : st == DK_TB_BAD_POSITION ? 400 : st == DK_TB_NO_MEMORY ? 503 : 500;
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

/* Writes the answer to fen met with counter (its text) into w: the position's object (category
 * unknown outside the tables), or {"fen", "error"}. Returns the status it stands for. */
static unsigned write_answer(dk_json *w, const answer_src *s, serve_counters *c, const char *fen,
                             size_t fen_len, const char *counter, answer *a)
{
    char err[4096], canon[DK_FEN_MAX];
    dk_pos p;
    unsigned n, status = parse_input(s, fen, fen_len, counter, &p, &n, err, sizeof err);
    if (status) { /* the FEN echoed as every interface quotes input: escaped, cut */
        char quoted[DK_QUOTE_MAX];
        json_error_object(w, fen ? dk_quote(fen, fen_len, quoted, sizeof quoted) : NULL, err);
        return status;
    }
    dk_tb_status st = answer_probe(s, &p, n, a);
    dk_fen_format(s->v, &p, false, canon, sizeof canon);
    if (st == DK_TB_MISSING) {
        answer_why_not(s, &p, st, err, sizeof err);
        dk_json_object(w, NULL);
        dk_json_string(w, "fen", canon);
        dk_json_string(w, "reason", err);
        json_lichess(w, false, DK_CAT_DRAW, false, 0, false, 0, false);
        dk_json_array(w, "moves");
        dk_json_end(w);
        dk_json_end(w);
        return 200;
    }
    if (st != DK_TB_OK) {
        answer_why_not(s, &p, st, err, sizeof err);
        json_error_object(w, fen, err);
        return status_of(st, 404);
    }
    atomic_fetch_add(&c->positions, 1);
    answer_extra x = {position_extra, move_extra, (void *)s};
    answer_json(w, s, a, canon, &x);
    return 200;
}

void serve_position(const answer_src *s, serve_counters *c, const char *fen, size_t fen_len, const char *counter,
                    serve_reply *out)
{
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
    unsigned status = write_answer(&b.w, s, c, fen, fen_len, counter, a);
    serve_json_close(&b, out, status);
    free(a);
}

void serve_mainline(const answer_src *s, serve_counters *c, const char *fen, size_t fen_len, const char *counter,
                    serve_reply *out)
{
    char err[4096], canon[DK_FEN_MAX];
    dk_pos p;
    unsigned n, status = parse_input(s, fen, fen_len, counter, &p, &n, err, sizeof err);
    if (status) {
        serve_error(out, status, "%s", err);
        return;
    }
    serve_json b;
    answer *a = malloc(sizeof *a);
    if (!a) {
        serve_error(out, 503, "out of memory");
        return;
    }
    dk_tb_status st = answer_probe(s, &p, n, a);
    if (st != DK_TB_OK) {
        answer_why_not(s, &p, st, err, sizeof err);
        free(a);
        serve_error(out, status_of(st, 404), "%s", err);
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
        if ((st = answer_probe(s, &p, n, a)) != DK_TB_OK) {
            answer_why_not(s, &p, st, err, sizeof err);
            end = err;
            break;
        }
    }
    dk_json_end(&b.w);
    dk_json_string(&b.w, "end", end);
    dk_json_end(&b.w);
    free(a);
    serve_json_close(&b, out, 200);
}

enum { BATCH_TOO_LONG = -2 };

/* The FENs of a batch's body, in place in text (a NUL-terminated copy): a JSON array of
 * strings without escapes, or one FEN a line (blank lines and lines starting with # skipped).
 * Returns how many (at most max), DK_FAILED with err when the body is malformed, BATCH_TOO_LONG
 * when it holds more than max. */
static int batch_fens(char *text, const char **fens, int max, char *err, size_t len)
{
    int n = 0;
    char *t = text + strspn(text, " \t\r\n");
    if (*t != '[') {
        for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
            line += strspn(line, " \t");
            size_t k = strcspn(line, "\r");
            while (k && line[k - 1] == ' ')
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
        if (*t != '"') {
            return dk_errorf(err, len, "the body is neither one FEN a line nor a JSON array of strings");
        }
        char *close = strpbrk(t + 1, "\"\\");
        if (!close || *close == '\\') {
            return dk_errorf(err, len, "a string of the JSON array is unterminated or holds an escape");
        }
        if (n == max)
            return BATCH_TOO_LONG;
        fens[n++] = t + 1;
        *close = 0;
        t = close + 1 + strspn(close + 1, " \t\r\n");
        if (*t == ']')
            break;
        if (*t++ != ',') {
            return dk_errorf(err, len, "the JSON array's strings must be separated by commas");
        }
    }
    t += 1 + strspn(t + 1, " \t\r\n");
    if (*t) {
        return dk_errorf(err, len, "something follows the JSON array");
    }
    return n;
}

void serve_batch(const answer_src *s, serve_counters *c, const char *body, size_t len, const char *counter,
                 serve_reply *out)
{
    char err[160];
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
    int n = batch_fens(text, fens, SERVE_BATCH_MAX, err, sizeof err);
    if (n == BATCH_TOO_LONG)
        serve_error(out, 413, "a batch holds at most %d positions", SERVE_BATCH_MAX);
    else if (n < 0)
        serve_error(out, 400, "%s", err);
    else if (serve_json_open(&b, out)) {
        dk_json_array(&b.w, NULL);
        for (int i = 0; i < n; i++) {
            dk_json_newline(&b.w, 1);
            write_answer(&b.w, s, c, fens[i], strlen(fens[i]), counter, a);
        }
        if (n)
            dk_json_newline(&b.w, 0);
        dk_json_end(&b.w);
        serve_json_close(&b, out, 200);
        out->cacheable = false; /* a POST */
    }
    free(text), free(fens), free(a);
}
