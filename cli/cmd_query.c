/* damka query: a position's value and DTW, and every legal move's, best first; with draw-rule
 * tables, also under the rule at a given counter, moves ordered best first under the rule. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../query/drawrule.h"
#include "../query/rank.h"
#include "../rules/notation.h"
#include "cli.h"

int cmd_query(int argc, char **argv);

/* A batch line holds at most BATCH_LINE_MAX bytes, its end (LF or CRLF) not counted: a longer
 * one gets an error answer, and only its first bytes are kept in memory, however long it is. */
#define BATCH_LINE_MAX 4096
#define TEXT_OF(n) #n
#define NUMBER_TEXT(n) TEXT_OF(n)

const cli_command cli_query = {
    "query", cmd_query, "[--variant V] [--tables DIR] [--counter PLIES] [--json] (FEN | --batch [FILE])",
    "the value of a position and of every move, also under the draw rule",
    "Prints the value of FEN for its side to move (win or loss in so many plies, or draw), its value\n"
    "under the draw rule when DIR has rule-aware tables, then every legal move with the value it\n"
    "leads to, best first. A Brazilian FEN written with algebraic squares (W:Wa1,c3:Bh8) is echoed\n"
    "with algebraic squares, a numeric one with numbers; --json's fen is always numeric.\n",
    VARIANT_HELP
    "  --tables DIR           the tables (default $DAMKA_TABLES, else ./tables)\n"
    "  --counter PLIES        quiet king plies played since the last capture or man move\n"
    "                         (default 0): the value under the rule at that counter\n"
    "  --json                 one JSON object an answer (fen, result, dtw, rule, moves)\n"
    "  --batch [FILE]         one FEN a line from FILE (default, or -: stdin), one answer a line;\n"
    "                         blank lines and lines starting with # are skipped; a line holds at\n"
    "                         most " NUMBER_TEXT(BATCH_LINE_MAX) " bytes (LF or CRLF ends it; a UTF-8 "
    "byte-order mark may\n"
    "                         start the file): a longer one, or one with a NUL byte, gets an\n"
    "                         error answer\n",
};

/* What every answer shares: the rule's limit (0: the directory has no DTC tables) and the
 * counter positions are met with. */
typedef struct rule_ctx {
    unsigned limit, counter;
} rule_ctx;

static const char *category_name(dk_value r)
{
    static const char *const names[] = {"loss", "blessed-loss", "draw", "cursed-win", "win"};
    return names[dk_rule_category(r) - DK_CAT_LOSS];
}

static void json_rule(FILE *f, dk_value r, const rule_ctx *rc)
{
    fprintf(f, ", \"rule\": {\"limit\": %u, \"counter\": %u, \"category\": \"%s\", \"dtc\": ",
            rc->limit, rc->counter, category_name(r));
    if (dk_rule_is_decided(r))
        fprintf(f, "%u}", dk_rule_dtc(r));
    else
        fputs("null}", f);
}

/* The value under the rule in words: "15-move rule: win, 11 plies to conversion", "cursed
 * win: a draw under the 15-move rule"; brief (for a move): "rule: win, 11 plies to
 * conversion", "rule: cursed win (draw)". */
static void text_rule(FILE *f, dk_value r, const rule_ctx *rc, bool brief)
{
    char rule[64];
    dk_category c = dk_rule_category(r);
    if (brief && (c == DK_CAT_CURSED_WIN || c == DK_CAT_BLESSED_LOSS)) {
        fprintf(f, "rule: %s (draw)", c > 0 ? "cursed win" : "blessed loss");
        return;
    }
    if (brief)
        snprintf(rule, sizeof rule, "rule");
    else if (rc->counter)
        snprintf(rule, sizeof rule, "%u-move rule (counter %u)", rc->limit / 2, rc->counter);
    else
        snprintf(rule, sizeof rule, "%u-move rule", rc->limit / 2);
    if (c == DK_CAT_CURSED_WIN || c == DK_CAT_BLESSED_LOSS)
        fprintf(f, "%s: a draw under the %s", c > 0 ? "cursed win" : "blessed loss", rule);
    else if (c == DK_CAT_DRAW)
        fprintf(f, "%s: draw", rule);
    else
        fprintf(f, "%s: %s, %u %s to conversion", rule, c > 0 ? "win" : "loss", dk_rule_dtc(r),
                dk_rule_dtc(r) == 1 ? "ply" : "plies");
}

static const char *result_name(dk_value v)
{
    return dk_value_is_draw(v) ? "draw" : dk_value_is_win(v) ? "win" : "loss";
}

static const char *status_text(dk_tb_status st)
{
    switch (st) {
    case DK_TB_OK: return "ok";
    case DK_TB_MISSING: return "not in the tables";
    case DK_TB_DAMAGED: return "damaged table";
    case DK_TB_BAD_POSITION: return "not a position the tables hold";
    case DK_TB_NO_MEMORY: return "out of memory";
    case DK_TB_MUST_CAPTURE: return "the side to move must capture";
    case DK_TB_NOT_CACHED: return "not in the cache";
    }
    return "unknown error";
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_value(FILE *f, dk_value v)
{
    fprintf(f, "\"result\": \"%s\", \"dtw\": ", result_name(v));
    if (dk_value_is_draw(v))
        fputs("null", f);
    else
        fprintf(f, "%u", dk_value_dtw(v));
}

static void text_value(FILE *f, dk_value v)
{
    if (dk_value_is_draw(v))
        fputs("draw", f);
    else
        fprintf(f, "%s %u", result_name(v), dk_value_dtw(v));
}

/* Whether a FEN that parsed for v writes a square in algebraic form ("W:Wa1,c3:Bh8"): only then
 * can it hold a lowercase a..h (the letters of a FEN are W, B and K, or k). */
static bool written_algebraic(const dk_variant *v, const char *fen)
{
    return v->algebraic && strpbrk(fen, "abcdefgh") != NULL;
}

/* Why the tables have no answer for p (status st), into err. A position with more pieces than
 * the tables hold says how many it has and how many they hold. */
static void no_answer(dk_tablebase *tb, const dk_pos *p, dk_tb_status st, const char *dir, char *err,
                      size_t len)
{
    int pieces = dk_popcount(dk_occupied(p)), most = 0;
    bool both = p->pieces[DK_WHITE] && p->pieces[DK_BLACK];
    if (both && (st == DK_TB_MISSING || st == DK_TB_BAD_POSITION))
        most = dk_tb_max_pieces(tb);
    if (both && most && pieces > most)
        snprintf(err, len, "not in the tables: the position has %d pieces, the tables in %.1500s hold at most %d",
                 pieces, dir, most);
    else if (both && pieces > DK_TB_MAX_PIECES)
        snprintf(err, len, "not in the tables: the position has %d pieces, no table holds more than %d", pieces,
                 DK_TB_MAX_PIECES);
    else if (st == DK_TB_BAD_POSITION)
        snprintf(err, len, "%s (the side not to move has no piece)", status_text(st));
    else
        snprintf(err, len, "%s (%.1500s)", status_text(st), dk_tb_last_error()[0] ? dk_tb_last_error() : dir);
}

/* Reports that fen has no answer: on stderr, or in batch mode as its answer line (a JSON object
 * with "error", or FEN, "error" and the message separated by tabs). Returns 1. */
static int answer_error(const char *fen, const char *err, bool json, bool batch)
{
    if (batch && json) {
        fputs("{\"fen\": ", stdout);
        json_string(stdout, fen);
        fputs(", \"error\": ", stdout);
        json_string(stdout, err);
        fputs("}\n", stdout);
    } else if (batch) {
        printf("%s\terror\t%s\n", fen, err);
    } else {
        cli_error("query: %s", err);
    }
    return 1;
}

/* Answers one FEN on stdout; returns 0, or 1 after reporting an error (on stderr, or as a JSON
 * error object in batch mode). The text echoes a Brazilian FEN in the squares it was written
 * in; --json's fen is numeric, the key .stats, manifest.json and libdamka use. */
static int answer(dk_tablebase *tb, const dk_variant *v, const char *fen, bool json, bool batch,
                  const char *dir, const rule_ctx *rc)
{
    dk_pos p;
    char err[2048], why[DK_ERR_MAX];
    dk_movelist list;
    dk_value values[DK_MAX_MOVES], rules[DK_MAX_MOVES], value = DK_DRAW, rule = DK_RULE_DRAW;
    dk_tb_status st = DK_TB_OK;
    if (dk_fen_parse(v, fen, &p, why, sizeof why) != 0) {
        snprintf(err, sizeof err, "bad FEN for %s: %s", v->name, why);
    } else {
        st = dk_tb_probe(tb, &p, DK_METRIC_DTW, &value);
        if (st == DK_TB_OK && rc->limit)
            st = dk_tb_probe(tb, &p, DK_METRIC_DTC, &rule);
        rule = dk_rule_at(rule, rc->counter, rc->limit);
        if (st == DK_TB_OK)
            st = rc->limit ? dk_tb_rank_moves_rule(tb, &p, rc->counter, rc->limit, &list, values, rules)
                           : dk_tb_rank_moves(tb, &p, &list, values);
        if (st != DK_TB_OK)
            no_answer(tb, &p, st, dir, err, sizeof err);
        else
            err[0] = 0;
    }
    if (err[0])
        return answer_error(fen, err, json, batch);
    char canon[DK_FEN_MAX];
    dk_fen_format(v, &p, !json && written_algebraic(v, fen), canon, sizeof canon);
    if (json) {
        fputs("{\"fen\": ", stdout);
        json_string(stdout, canon);
        fputs(", ", stdout);
        json_value(stdout, value);
        if (rc->limit)
            json_rule(stdout, rule, rc);
        else
            fputs(", \"rule\": null", stdout);
        fputs(", \"moves\": [", stdout);
        for (int i = 0; i < list.n; i++) {
            char text[DK_MOVE_TEXT_MAX];
            dk_move_format(v, &list, i, v->algebraic, text, sizeof text);
            printf("%s{\"notation\": \"%s\", \"from\": %d, \"to\": %d, \"captures\": [", i ? ", " : "",
                   text, list.m[i].from + 1, list.m[i].to + 1);
            const char *sep = "";
            for (dk_bb c = list.m[i].captures; c; c &= c - 1, sep = ", ")
                printf("%s%d", sep, dk_lsb(c) + 1);
            fputs("], ", stdout);
            json_value(stdout, values[i]);
            if (rc->limit)
                json_rule(stdout, rules[i], rc);
            fputs("}", stdout);
        }
        fputs("]}\n", stdout);
    } else if (batch) {
        printf("%s\t", canon);
        text_value(stdout, value);
        if (rc->limit) {
            fputc('\t', stdout);
            text_rule(stdout, rule, rc, false);
        }
        fputc('\n', stdout);
    } else {
        printf("%s  ", canon);
        text_value(stdout, value);
        printf(" (%s to move)", p.side == DK_WHITE ? "White" : "Black");
        if (rc->limit) {
            fputs(" \xc2\xb7 ", stdout);
            text_rule(stdout, rule, rc, false);
        }
        fputc('\n', stdout);
        for (int i = 0; i < list.n; i++) {
            char text[DK_MOVE_TEXT_MAX], gt[32];
            dk_move_format(v, &list, i, v->algebraic, text, sizeof text);
            printf("  %-16s ", text);
            if (!rc->limit) {
                text_value(stdout, values[i]);
                fputc('\n', stdout);
                continue;
            }
            FILE *g = fmemopen(gt, sizeof gt, "w");
            if (g) {
                text_value(g, values[i]);
                fclose(g);
            }
            printf("%-9s \xc2\xb7 ", g ? gt : "");
            text_rule(stdout, rules[i], rc, true);
            fputc('\n', stdout);
        }
    }
    return 0;
}

/* One line of a batch file: its first bytes, NUL-terminated (room for the longest line, a
 * byte-order mark and a CR); its length without the LF; whether it holds a NUL byte. */
typedef struct batch_line {
    char text[BATCH_LINE_MAX + 5];
    size_t len, kept;
    bool nul;
} batch_line;

/* Reads the next line of in into *l; false at the end of the input or on a read error. */
static bool read_line(FILE *in, batch_line *l)
{
    int c;
    l->len = l->kept = 0;
    l->nul = false;
    while ((c = getc_unlocked(in)) != EOF && c != '\n') {
        if (l->kept < sizeof l->text - 1)
            l->text[l->kept++] = (char)c;
        l->nul |= c == 0;
        l->len++;
    }
    l->text[l->kept] = 0;
    return c == '\n' || l->len > 0;
}

/* The start of a line that has no answer, echoed in its error answer (up to a NUL byte). */
static const char *echo_of(const char *s, char *buf, size_t len)
{
    snprintf(buf, len, "%.40s%s", s, strlen(s) > 40 ? "..." : "");
    return buf;
}

/* Answers line `no` of a batch file unless it is blank or a comment (within the bound); returns
 * 1 if it got an error answer. The file's first line loses a UTF-8 byte-order mark. */
static int batch_answer(dk_tablebase *tb, const dk_variant *v, batch_line *l, unsigned long no,
                        bool json, const char *dir, const rule_ctx *rc)
{
    if (no == 1 && l->kept >= 3 && memcmp(l->text, "\xef\xbb\xbf", 3) == 0) {
        memmove(l->text, l->text + 3, l->kept - 2);
        l->kept -= 3;
        l->len -= 3;
    }
    size_t cr = l->len && l->len == l->kept && l->text[l->len - 1] == '\r';
    char *s = l->text, err[128], echo[64];
    if (l->len - cr > BATCH_LINE_MAX) { /* a comment too: the bound is every line's */
        snprintf(err, sizeof err, "line %lu is too long: %zu bytes, a line holds at most %d", no,
                 l->len - cr, BATCH_LINE_MAX);
        return answer_error(echo_of(s, echo, sizeof echo), err, json, true);
    }
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '#')
        return 0;
    if (l->nul) {
        snprintf(err, sizeof err, "line %lu holds a NUL byte", no);
        return answer_error(echo_of(s, echo, sizeof echo), err, json, true);
    }
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = 0;
    return *s ? answer(tb, v, s, json, true, dir, rc) : 0;
}

/* Answers every line of in (`name` in messages). Returns 0; 1 if a line got an error answer;
 * 2 after one line on stderr if reading failed (a directory, say). */
static int run_batch(dk_tablebase *tb, const dk_variant *v, FILE *in, const char *name, bool json,
                     const char *dir, const rule_ctx *rc)
{
    batch_line line;
    int failures = 0;
    for (unsigned long no = 1; read_line(in, &line); no++) {
        failures |= batch_answer(tb, v, &line, no, json, dir, rc);
        fflush(stdout);
    }
    if (ferror(in))
        return cli_error("query: cannot read %s: %s", name, strerror(errno));
    return failures;
}

int cmd_query(int argc, char **argv)
{
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    const char *dir = getenv("DAMKA_TABLES"), *arg = NULL, *counter = NULL;
    bool json = false, batch = false;
    int status = 0;
    if (!dir || !*dir)
        dir = "tables";
    for (int i = 1; i < argc; i++) {
        if (cli_variant_option(argc, argv, &i, &v, &status) ||
            cli_option_value(argc, argv, &i, "--tables", &dir, &status) ||
            cli_option_value(argc, argv, &i, "--counter", &counter, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--batch") == 0) {
            batch = true;
        } else if (cli_is_option(argv[i]) && strcmp(argv[i], "-") != 0) {
            return cli_unknown_option(&cli_query, argv[i]);
        } else if (!arg) {
            arg = argv[i];
        } else {
            return cli_usage_error(&cli_query, "too many arguments");
        }
    }
    if (!batch && !arg)
        return cli_usage_error(&cli_query, "missing FEN");
    FILE *in = stdin;
    bool from_file = batch && arg && strcmp(arg, "-") != 0;
    const char *name = from_file ? arg : "stdin";
    if (from_file && !(in = fopen(arg, "r")))
        return cli_error("query: cannot read %s: %s", name, strerror(errno));
    long n = 0;
    if (counter && !cli_parse_int(counter, 0, DK_RULE_MAX_LIMIT, &n)) {
        if (in != stdin)
            fclose(in);
        return cli_error("query: --counter must be a whole number of plies, got '%s'", counter);
    }
    dk_tb_options opt = {(size_t)256 << 20};
    dk_tablebase *tb = dk_tb_open(dir, v, &opt);
    if (!tb)
        return cli_error("query: out of memory");
    rule_ctx rule = {dk_tb_rule_limit(tb), (unsigned)n};
    int rc;
    if (counter && !rule.limit)
        rc = cli_error("query: --counter needs draw-rule tables, and %s has none (made with "
                       "--draw-rule 0, or no tables)", dir);
    else if (rule.limit && rule.counter >= rule.limit)
        rc = cli_error("query: --counter %u: the %u-move rule has drawn the game at %u plies", rule.counter,
                       rule.limit / 2, rule.limit);
    else
        rc = batch ? run_batch(tb, v, in, name, json, dir, &rule) : answer(tb, v, arg, json, false, dir, &rule);
    if (in != stdin)
        fclose(in);
    dk_tb_close(tb);
    return rc;
}
