/* damka query: a position's value and DTW, and every legal move's, best first; with draw-rule
 * tables, also under the rule at a given counter, moves ordered best first under the rule. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/errors.h"
#include "../rules/notation.h"
#include "answer.h"
#include "cli.h"

static int cmd_query(int argc, char **argv);

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
    "leads to, best first. An 8x8 FEN written with algebraic squares (W:Wa1,c3:Bh8) is echoed\n"
    "with algebraic squares, a numeric one with numbers; --json's fen is always numeric. Exit\n"
    "status: 0 answered, 1 no answer (not in the tables, a damaged table; in a batch, any line\n"
    "without an answer), 2 bad usage or input (docs/cli.md).\n",
    "  --variant V            brazilian (8x8, PDN GameType 26), international (10x10, GameType\n"
    "                         20) or russian (8x8, GameType 25); also 26, 20, 25. Default: the\n"
    "                         variant of DIR's tables when it holds one, else brazilian\n"
    "  --tables DIR           the tables (default $DAMKA_TABLES, else ./tables)\n"
    "  --counter PLIES        quiet king plies played since the last capture or man move, from 0\n"
    "                         (the default) to the rule's limit: the value under the rule at that\n"
    "                         counter (at the limit the rule has drawn the game: the moves are\n"
    "                         listed without rule values)\n"
    "  --json                 one JSON object an answer (fen, result, dtw, rule, moves)\n"
    "  --batch [FILE]         one FEN a line from FILE (default, or -: stdin), one answer a line;\n"
    "                         blank lines and lines starting with # are skipped; a line holds at\n"
    "                         most " NUMBER_TEXT(BATCH_LINE_MAX) " bytes (LF or CRLF ends it; a UTF-8 "
    "byte-order mark may\n"
    "                         start the file): a longer one, or one with a NUL byte, gets an\n"
    "                         error answer\n",
};

/* What every answer shares: the tables, their directory and what it holds, the variant, the
 * rule's limit (src), whether --variant chose the variant, the counter positions are met with,
 * the output's form. */
typedef struct query_ctx {
    answer_src src;
    bool variant_given, json, batch;
    unsigned counter;
} query_ctx;

static bool moves_under_rule(const query_ctx *q) { return answer_moves_under_rule(q->src.limit, q->counter); }

static const char *plies(unsigned n) { return n == 1 ? "ply" : "plies"; }

/* The value under the rule in words: "15-move rule: win, 11 plies to conversion", "cursed
 * win: a draw under the 15-move rule"; brief (for a move): "rule: win, 11 plies to
 * conversion", "rule: cursed win (draw)". */
static void text_rule(FILE *f, dk_value r, const query_ctx *q, bool brief)
{
    char rule[64];
    dk_category c = dk_rule_category(r);
    if (brief && (c == DK_CAT_CURSED_WIN || c == DK_CAT_BLESSED_LOSS)) {
        fprintf(f, "rule: %s (draw)", c > 0 ? "cursed win" : "blessed loss");
        return;
    }
    if (brief)
        snprintf(rule, sizeof rule, "rule");
    else if (q->counter)
        snprintf(rule, sizeof rule, "%u-move rule (counter %u)", q->src.limit / 2, q->counter);
    else
        snprintf(rule, sizeof rule, "%u-move rule", q->src.limit / 2);
    if (c == DK_CAT_CURSED_WIN || c == DK_CAT_BLESSED_LOSS)
        fprintf(f, "%s: a draw under the %s", c > 0 ? "cursed win" : "blessed loss", rule);
    else if (c == DK_CAT_DRAW)
        fprintf(f, "%s: draw", rule);
    else
        fprintf(f, "%s: %s, %u %s to conversion", rule, c > 0 ? "win" : "loss", dk_rule_dtc(r),
                plies(dk_rule_dtc(r)));
}

/* "win in 3 plies", "loss in 1 ply", "draw". */
static void text_value(FILE *f, dk_value v)
{
    if (dk_value_is_draw(v))
        fputs("draw", f);
    else
        fprintf(f, "%s in %u %s", answer_result_name(v), dk_value_dtw(v), plies(dk_value_dtw(v)));
}

/* Whether a FEN that parsed for v writes a square in algebraic form ("W:Wa1,c3:Bh8"): only then
 * can it hold a lowercase a..h (the letters of a FEN are W, B and K, or k). */
static bool written_algebraic(const dk_variant *v, const char *fen)
{
    return v->algebraic && strpbrk(fen, "abcdefgh") != NULL;
}

/* Why fen (len bytes) is bad input for the variant (verdict k), into err; for a FEN on the
 * command line without --variant that does not parse here but is a position of another variant,
 * a hint (a batch's answers keep libdamka's words, "bad FEN for V: ...", which programs compare;
 * and an impossible position here, a man on its promotion row say, is not a matter of variant). */
static void bad_fen(const query_ctx *q, const char *fen, size_t len, dk_verdict k, const char *why, char *err,
                    size_t errlen)
{
    int at = snprintf(err, errlen, "bad FEN for %s: %s", q->src.v->name, why);
    bool hint = k == DK_VERDICT_MALFORMED && !q->variant_given && !q->batch;
    for (int id = 0; id < DK_NVARIANTS && hint && at > 0 && (size_t)at < errlen; id++) {
        const dk_variant *w = dk_variant_get((dk_variant_id)id);
        dk_pos p;
        char ignored[DK_ERR_MAX];
        if (w != q->src.v && !dk_verdict_refused(dk_fen_read(w, fen, len, &p, ignored, sizeof ignored))) {
            snprintf(err + at, errlen - (size_t)at, " (a FEN of %s: pass --variant %s%s)", w->name, w->name,
                     q->src.held.variants >> id & 1 ? "" : " and tables of that variant");
            break;
        }
    }
}

/* Reports that fen (len bytes) has no answer: on stderr, or in batch mode as its answer line (a
 * JSON object with "error", or FEN, "error" and the message separated by tabs, the FEN quoted by
 * dk_quote so that no control character or tab of the input reaches the columns). Returns
 * `status`. */
static int answer_error(const query_ctx *q, const char *fen, size_t len, const char *err, int status)
{
    char quoted[DK_QUOTE_MAX];
    if (q->batch && q->json) {
        dk_json w;
        dk_json_start(&w, stdout);
        dk_json_object(&w, NULL);
        dk_json_string(&w, "fen", dk_quote(fen, len, quoted, sizeof quoted));
        dk_json_string(&w, "error", err);
        dk_json_end(&w);
        fputc('\n', stdout);
    } else if (q->batch) {
        printf("%s\terror\t%s\n", dk_quote(fen, len, quoted, sizeof quoted), err);
    } else {
        cli_fail("query: %s", err);
    }
    return status;
}

static void print_text(const query_ctx *q, const answer *a, const char *canon)
{
    const dk_variant *v = q->src.v;
    const dk_movelist *list = &a->list;
    printf("%s  ", canon);
    text_value(stdout, a->value);
    printf(" (%s to move)", a->p.side == DK_WHITE ? "White" : "Black");
    if (q->src.limit) {
        fputs(" \xc2\xb7 ", stdout);
        text_rule(stdout, a->rule, q, false);
    }
    fputc('\n', stdout);
    if (list->n == 0)
        printf("  no legal move: %s has lost\n", a->p.side == DK_WHITE ? "White" : "Black");
    for (int i = 0; i < list->n; i++) {
        char text[DK_MOVE_TEXT_MAX], gt[32];
        dk_move_format(v, list, i, v->algebraic, text, sizeof text);
        printf("  %-16s ", text);
        if (!moves_under_rule(q)) {
            text_value(stdout, a->values[i]);
            fputc('\n', stdout);
            continue;
        }
        FILE *g = fmemopen(gt, sizeof gt, "w");
        if (g) {
            text_value(g, a->values[i]);
            fclose(g);
        }
        printf("%-15s \xc2\xb7 ", g ? gt : "");
        text_rule(stdout, a->rules[i], q, true);
        fputc('\n', stdout);
    }
}

/* Answers one FEN (len bytes, a NUL after them) on stdout; returns 0, or after reporting why
 * there is no answer (on stderr, or as its answer line in batch mode) 2 for bad input
 * (dk_fen_read refuses it), 1 for a position the tables do not answer. The text echoes a
 * Brazilian FEN in the squares it was written in; --json's fen is numeric, the key .stats,
 * manifest.json and libdamka use. */
static int answer_fen(const query_ctx *q, const char *fen, size_t len)
{
    dk_pos p;
    char err[4096], why[DK_ERR_MAX];
    static answer a; /* one at a time: the command is single-threaded */
    dk_verdict k = dk_fen_read(q->src.v, fen, len, &p, why, sizeof why);
    if (dk_verdict_refused(k)) {
        bad_fen(q, fen, len, k, why, err, sizeof err);
        return answer_error(q, fen, len, err, 2);
    }
    dk_status st = answer_probe(&q->src, &p, q->counter, &a);
    if (st != DK_OK) {
        answer_why_not(&q->src, &p, st, err, sizeof err);
        return answer_error(q, fen, len, err, 1);
    }
    char canon[DK_FEN_MAX];
    dk_fen_format(q->src.v, &p, !q->json && written_algebraic(q->src.v, fen), canon, sizeof canon);
    if (q->json) {
        dk_json w;
        dk_json_start(&w, stdout);
        answer_json(&w, &q->src, &a, canon, NULL);
        fputc('\n', stdout);
    } else if (q->batch) {
        printf("%s\t", canon);
        text_value(stdout, a.value);
        if (q->src.limit) {
            fputc('\t', stdout);
            text_rule(stdout, a.rule, q, false);
        }
        fputc('\n', stdout);
    } else {
        print_text(q, &a, canon);
    }
    return 0;
}

/* One line of a batch file: its first bytes, `kept` of them, NUL bytes kept and a NUL after them
 * (room for the longest line, a byte-order mark and a CR); its length without the LF. */
typedef struct batch_line {
    char text[BATCH_LINE_MAX + 5];
    size_t len, kept;
} batch_line;

/* Reads the next line of in into *l; false at the end of the input or on a read error. */
static bool read_line(FILE *in, batch_line *l)
{
    int c;
    l->len = l->kept = 0;
    while ((c = getc_unlocked(in)) != EOF && c != '\n') {
        if (l->kept < sizeof l->text - 1)
            l->text[l->kept++] = (char)c;
        l->len++;
    }
    l->text[l->kept] = 0;
    return c == '\n' || l->len > 0;
}

/* Answers line `no` of a batch file unless it is blank or a comment (within the bound); returns
 * 1 if it got an error answer. The file's first line loses a UTF-8 byte-order mark. A NUL byte
 * goes to the parser with the rest of the line, which refuses it as every interface does. */
static int batch_answer(const query_ctx *q, batch_line *l, unsigned long no)
{
    if (no == 1 && l->kept >= 3 && memcmp(l->text, "\xef\xbb\xbf", 3) == 0) {
        memmove(l->text, l->text + 3, l->kept - 2);
        l->kept -= 3;
        l->len -= 3;
    }
    size_t cr = l->len && l->len == l->kept && l->text[l->len - 1] == '\r';
    char *s = l->text, err[128];
    if (l->len - cr > BATCH_LINE_MAX) { /* a comment too: the bound is every line's */
        snprintf(err, sizeof err, "line %lu is too long: %zu bytes, a line holds at most %d", no,
                 l->len - cr, BATCH_LINE_MAX);
        return answer_error(q, s, l->kept, err, 1);
    }
    size_t n = l->kept;
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    if (n && *s == '#')
        return 0;
    while (n && (s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = 0;
    return n && answer_fen(q, s, n) != 0 ? 1 : 0;
}

/* Answers every line of in (`name` in messages). Returns 0; 1 if a line got an error answer;
 * 2 after one line on stderr if reading failed (a directory, say). */
static int run_batch(const query_ctx *q, FILE *in, const char *name)
{
    batch_line line;
    int failures = 0;
    for (unsigned long no = 1; read_line(in, &line); no++) {
        failures |= batch_answer(q, &line, no);
        fflush(stdout);
    }
    if (ferror(in))
        return cli_error("query: cannot read %s: %s", name, strerror(errno));
    return failures;
}

/* Checks the table directory and settles the variant: the one --variant gave, which the
 * directory must hold, else the directory's only one, else Brazilian. Returns 0, or 2 after one
 * line on stderr (no such directory, not a directory, no tables, none of that variant). */
static int open_dir(query_ctx *q)
{
    if (!*q->src.dir)
        return cli_error("query: the table directory is an empty name (--tables DIR or $DAMKA_TABLES)");
    if (dk_tb_dir_scan(q->src.dir, &q->src.held) != 0) {
        if (errno == ENOTDIR)
            return cli_error("query: %s is not a directory (--tables DIR names the directory of the tables)",
                             q->src.dir);
        return cli_error("query: cannot read the table directory %s: %s (--tables DIR or $DAMKA_TABLES says "
                         "where the tables are)", q->src.dir, strerror(errno));
    }
    if (!q->src.held.variants)
        return cli_error("query: %s holds no tables (damka gen --pieces N --out %s makes them)", q->src.dir, q->src.dir);
    const dk_variant *only = dk_tb_dir_only_variant(&q->src.held);
    if (!q->variant_given && only)
        q->src.v = only;
    if (!(q->src.held.variants >> q->src.v->id & 1)) {
        char names[64];
        dk_tb_dir_variant_names(&q->src.held, names, sizeof names);
        return cli_error("query: %s holds no %s tables, only %s ones (pass --variant %s)", q->src.dir, q->src.v->name,
                         names, only ? only->name : "V");
    }
    return 0;
}

static int cmd_query(int argc, char **argv)
{
    char quoted[DK_QUOTE_MAX];
    query_ctx q = {{NULL, getenv("DAMKA_TABLES"), {0, {0}}, dk_variant_get(DK_BRAZILIAN), 0}, false, false, false, 0};
    const char *arg = NULL, *counter = NULL;
    int status = 0;
    if (!q.src.dir)
        q.src.dir = "tables";
    for (int i = 1; i < argc; i++) {
        if (cli_variant_option(argc, argv, &i, &q.src.v, &status)) {
            if (status)
                return status;
            q.variant_given = true;
        } else if (cli_option_value(argc, argv, &i, "--tables", &q.src.dir, &status) ||
                   cli_option_value(argc, argv, &i, "--counter", &counter, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--json") == 0) {
            q.json = true;
        } else if (strcmp(argv[i], "--batch") == 0) {
            q.batch = true;
        } else if (cli_is_option(argv[i]) && strcmp(argv[i], "-") != 0) {
            return cli_unknown_option(&cli_query, argv[i]);
        } else if (!arg) {
            arg = argv[i];
        } else {
            return cli_usage_error(&cli_query, "too many arguments");
        }
    }
    if (!q.batch && !arg)
        return cli_usage_error(&cli_query, "missing FEN");
    long n = 0;
    if (counter && !cli_parse_int(counter, 0, DK_RULE_MAX_LIMIT, &n))
        return cli_error("query: --counter must be a whole number of plies, got '%s'", cli_quote(counter, quoted, sizeof quoted));
    if ((status = open_dir(&q)) != 0)
        return status;
    FILE *in = stdin;
    bool from_file = q.batch && arg && strcmp(arg, "-") != 0;
    const char *name = from_file ? arg : "stdin";
    if (from_file && !(in = fopen(arg, "r")))
        return cli_error("query: cannot read %s: %s", name, strerror(errno));
    dk_tb_options opt = {(size_t)256 << 20};
    if (!(q.src.tb = dk_tb_open(q.src.dir, q.src.v, &opt))) {
        if (in != stdin)
            fclose(in);
        return cli_fail("query: out of memory");
    }
    q.src.limit = dk_tb_rule_limit(q.src.tb);
    q.counter = (unsigned)n;
    int rc;
    if (n && !q.src.limit)
        rc = cli_error("query: --counter needs draw-rule tables, and the %s tables in %s have none (made with "
                       "--draw-rule 0)", q.src.v->name, q.src.dir);
    else if (q.src.limit && q.counter > q.src.limit)
        rc = cli_error("query: --counter %u: the %u-move rule draws the game at %u plies, so the counter goes "
                       "from 0 to %u", q.counter, q.src.limit / 2, q.src.limit, q.src.limit);
    else
        rc = q.batch ? run_batch(&q, in, name) : answer_fen(&q, arg, strlen(arg));
    if (in != stdin)
        fclose(in);
    dk_tb_close(q.src.tb);
    return rc;
}
