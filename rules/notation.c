#include "notation.h"

#include "errors.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int dk_square_parse(const dk_variant *v, const char **text)
{
    const char *t = *text;
    if (isdigit((unsigned char)*t)) {
        long n = 0;
        while (isdigit((unsigned char)*t) && n <= 1000)
            n = n * 10 + (*t++ - '0');
        if (n < 1 || n > v->nsq)
            return -1;
        *text = t;
        return (int)n - 1;
    }
    if (v->size <= 8 && *t >= 'a' && *t < 'a' + v->size && isdigit((unsigned char)t[1]) &&
        !isdigit((unsigned char)t[2])) {
        int c = *t - 'a', r = v->size - (t[1] - '0');
        if (r < 0 || r >= v->size || ((r + c) & 1) == 0)
            return -1;
        *text = t + 2;
        return r * (v->size / 2) + c / 2;
    }
    return -1;
}

/* Writes square s, numeric or algebraic; returns the length. */
static int square_format(const dk_variant *v, int s, bool algebraic, char *buf, size_t len)
{
    if (algebraic)
        return snprintf(buf, len, "%c%d", 'a' + v->col[s], v->size - v->row[s]);
    return snprintf(buf, len, "%d", s + 1);
}

/* The square at t as written: up to the next ',', '-' or ':' (at most 12 bytes quoted). */
static int token_len(const char *t)
{
    size_t n = strcspn(t, ",-:");
    return n > 12 ? 12 : (int)n;
}

/* Why the square written at t is not one of v's, as one error line: the offending token
 * quoted, and where it is clear, the reason (a light square, a file or rank the board lacks). */
static int bad_square(const dk_variant *v, const char *what, const char *t, char *err, size_t errlen)
{
    int n = token_len(t);
    const char *more = t[n] && !strchr(",-:", t[n]) ? "..." : "";
    bool letter = isalpha((unsigned char)t[0]) && n >= 2, digits = true;
    for (int i = letter; i < n; i++)
        digits &= isdigit((unsigned char)t[i]) != 0;
    if (n == 0 && *t)
        return dk_errorf(err, errlen, "missing %s before '%c'", what, *t);
    if (n == 0)
        return dk_errorf(err, errlen, "missing %s at the end", what);
    if (letter && digits && v->size > 8)
        return dk_errorf(err, errlen, "bad %s '%.*s%s': algebraic squares are for 8x8 boards, the %s board "
                         "numbers its squares 1-%d", what, n, t, more, v->name, v->nsq);
    if (letter && digits && *more == 0) {
        int file = t[0] - 'a', rank = n == 2 ? t[1] - '0' : 0;
        if (file < 0 || file >= v->size)
            return dk_errorf(err, errlen, "bad %s '%.*s': no file %c (a-%c)", what, n, t, t[0],
                             'a' + v->size - 1);
        if (rank < 1 || rank > v->size)
            return dk_errorf(err, errlen, "bad %s '%.*s': no rank %.*s (1-%d)", what, n, t, n - 1, t + 1,
                             v->size);
        return dk_errorf(err, errlen, "bad %s '%.*s': a light square (pieces stand on the dark squares: "
                         "a1, c1, ..., h8)", what, n, t);
    }
    if (!letter && digits)
        return dk_errorf(err, errlen, "bad %s '%.*s%s': the %s board has squares 1-%d", what, n, t, more,
                         v->name, v->nsq);
    return dk_errorf(err, errlen, "bad %s '%.*s%s' (the %s board has squares 1-%d%s)", what, n, t, more,
                     v->name, v->nsq, v->size <= 8 ? " or a1-h8" : "");
}

/* Parses one colour's list: "K31,32-35,c3". Stops at ':' or the end. */
static int parse_pieces(const dk_variant *v, const char **text, dk_pos *p, int colour, char *err,
                        size_t errlen)
{
    const char *t = *text;
    while (*t && *t != ':') {
        bool king = false;
        if (*t == 'K' || *t == 'k') {
            king = true;
            t++;
        }
        const char *at = t;
        int a = dk_square_parse(v, &t), b = a;
        if (a < 0)
            return bad_square(v, "square", at, err, errlen);
        if (*t == '-') {
            t++;
            const char *end = t;
            b = dk_square_parse(v, &t);
            if (b < 0)
                return bad_square(v, "range end", end, err, errlen);
            if (b < a)
                return dk_errorf(err, errlen, "bad range '%.*s-%.*s': it ends before it starts",
                                 token_len(at), at, token_len(end), end);
        }
        for (int s = a; s <= b; s++) {
            if (dk_occupied(p) & dk_bit(s))
                return dk_errorf(err, errlen, "two pieces on square %d", s + 1);
            p->pieces[colour] |= dk_bit(s);
            if (king)
                p->kings |= dk_bit(s);
        }
        if (*t == ',' && (!t[1] || t[1] == ':'))
            return bad_square(v, "square", t + 1, err, errlen);
        if (*t == ',')
            t++;
        else if (*t && *t != ':')
            return dk_errorf(err, errlen, "unexpected '%c' in piece list", *t);
    }
    *text = t;
    return 0;
}

/* Refuses what no FEN holds before parsing (so that every quote of the text in a message is
 * plain ASCII): more than DK_FEN_TEXT_MAX bytes, a NUL, a space or another blank inside, a
 * control character or a byte above 0x7e. Copies the text without the surrounding blanks,
 * quotes and final period into buf (DK_FEN_TEXT_MAX + 1 bytes). Returns 0 or -1 with err. */
static int plain_text(const char *text, size_t len, char *buf, char *err, size_t errlen)
{
    char q[DK_QUOTE_MAX];
    if (len > DK_FEN_TEXT_MAX)
        return dk_errorf(err, errlen, "FEN too long: %zu bytes, at most %d", len, DK_FEN_TEXT_MAX);
    const char *nul = memchr(text, 0, len);
    if (nul)
        return dk_errorf(err, errlen, "FEN holds a NUL byte (byte %zu)", (size_t)(nul - text) + 1);
    size_t a = 0, b = len;
    while (a < b && (isspace((unsigned char)text[a]) || text[a] == '"'))
        a++;
    while (b > a && (isspace((unsigned char)text[b - 1]) || text[b - 1] == '"' || text[b - 1] == '.'))
        b--;
    for (size_t i = a; i < b; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == ' ')
            return dk_errorf(err, errlen, "FEN contains a space (byte %zu)", i + 1);
        if (c < 0x21 || c > 0x7e)
            return dk_errorf(err, errlen, "FEN holds a character no FEN has: '%s' (byte %zu)",
                             dk_quote(text + i, 1, q, sizeof q), i + 1);
    }
    memcpy(buf, text + a, b - a);
    buf[b - a] = 0;
    return 0;
}

/* Parses lidraughts' field "H<n>" (its halfmove clock) or "F<n>" (the move number) at *t:
 * accepted and ignored (see dk_fen_read). Returns 0, or -1 with err. */
static int lidraughts_field(const char **t, bool *seen, char *err, size_t errlen)
{
    const char *s = *t;
    int k = *s == 'H' ? 0 : 1;
    size_t n = strspn(s + 1, "0123456789");
    if (n == 0 || n > 9 || (s[1 + n] && s[1 + n] != ':'))
        return dk_errorf(err, errlen, "bad field '%.*s': lidraughts' %c field is %c and a number", token_len(s),
                         s, *s, *s);
    if (seen[k])
        return dk_errorf(err, errlen, "the %c field is given twice", *s);
    seen[k] = true;
    *t = s + 1 + n;
    return 0;
}

dk_verdict dk_fen_read(const dk_variant *v, const char *text, size_t len, dk_pos *out, char *err,
                       size_t errlen)
{
    char buf[DK_FEN_TEXT_MAX + 1];
    if (plain_text(text, len, buf, err, errlen))
        return DK_VERDICT_MALFORMED;
    const char *t = buf;
    dk_pos p = {{0, 0}, 0, DK_WHITE};
    if ((*t != 'W' && *t != 'B') || t[1] != ':') {
        dk_errorf(err, errlen, "FEN must start with 'W:' or 'B:' (side to move)");
        return DK_VERDICT_MALFORMED;
    }
    p.side = *t == 'W' ? DK_WHITE : DK_BLACK;
    t += 2;
    bool seen[2] = {false, false}, extra[2] = {false, false};
    while (*t) {
        int colour = *t == 'W' ? DK_WHITE : *t == 'B' ? DK_BLACK : -1;
        if (seen[0] && seen[1] && (*t == 'H' || *t == 'F')) {
            if (lidraughts_field(&t, extra, err, errlen))
                return DK_VERDICT_MALFORMED;
        } else if (colour < 0 || extra[0] || extra[1]) {
            dk_errorf(err, errlen, "expected %s, got '%.*s'", seen[0] && seen[1] ? "lidraughts' H<n> or F<n> field"
                      : "'W' or 'B' before a piece list", token_len(t) ? token_len(t) : 1, t);
            return DK_VERDICT_MALFORMED;
        } else {
            if (seen[colour]) {
                dk_errorf(err, errlen, "the %s pieces are listed twice", colour ? "black" : "white");
                return DK_VERDICT_MALFORMED;
            }
            seen[colour] = true;
            t++;
            if (parse_pieces(v, &t, &p, colour, err, errlen))
                return DK_VERDICT_MALFORMED;
        }
        if (*t == ':' && !*++t) {
            dk_errorf(err, errlen, "an empty field after the last ':'");
            return DK_VERDICT_MALFORMED;
        }
    }
    if (!seen[0] || !seen[1]) {
        dk_errorf(err, errlen, "FEN needs a white (W) and a black (B) piece list");
        return DK_VERDICT_MALFORMED;
    }
    dk_verdict k = dk_pos_verdict(v, &p, err, errlen);
    if (!dk_verdict_refused(k))
        *out = p;
    return k;
}

int dk_fen_parse(const dk_variant *v, const char *fen, dk_pos *out, char *err, size_t errlen)
{
    return dk_verdict_refused(dk_fen_read(v, fen, strlen(fen), out, err, errlen)) ? -1 : 0;
}

int dk_fen_format(const dk_variant *v, const dk_pos *p, bool algebraic, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "%c", p->side == DK_WHITE ? 'W' : 'B');
    for (int c = 0; c < 2; c++) {
        k += (size_t)snprintf(buf + k, k < len ? len - k : 0, ":%c", c == DK_WHITE ? 'W' : 'B');
        const char *sep = "";
        for (dk_bb b = p->pieces[c]; b; b &= b - 1) {
            int s = dk_lsb(b);
            char sq[16];
            square_format(v, s, algebraic, sq, sizeof sq);
            k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s%s", sep,
                                  (p->kings & dk_bit(s)) ? "K" : "", sq);
            sep = ",";
        }
    }
    return (int)k;
}

static bool ambiguous(const dk_movelist *list, int i)
{
    const dk_move *m = &list->m[i];
    for (int j = 0; j < list->n; j++)
        if (j != i && list->m[j].from == m->from && list->m[j].to == m->to)
            return true;
    return false;
}

static int format_move(const dk_variant *v, const dk_move *m, bool with_captures, bool algebraic,
                       char *buf, size_t len)
{
    char a[16], b[16];
    square_format(v, m->from, algebraic, a, sizeof a);
    square_format(v, m->to, algebraic, b, sizeof b);
    size_t k = (size_t)snprintf(buf, len, "%s%c%s", a, m->captures ? 'x' : '-', b);
    if (with_captures) {
        char sep = '(';
        for (dk_bb c = m->captures; c; c &= c - 1) {
            square_format(v, dk_lsb(c), algebraic, a, sizeof a);
            k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%c%s", sep, a);
            sep = ',';
        }
        k += (size_t)snprintf(buf + k, k < len ? len - k : 0, ")");
    }
    return (int)k;
}

int dk_move_format(const dk_variant *v, const dk_movelist *list, int i, bool algebraic, char *buf,
                   size_t len)
{
    const dk_move *m = &list->m[i];
    return format_move(v, m, m->captures && ambiguous(list, i), algebraic, buf, len);
}

int dk_move_parse(const dk_variant *v, const dk_movelist *list, const char *text)
{
    int found = -1;
    for (int i = 0; i < list->n; i++) {
        for (int alg = 0; alg <= (v->size <= 8); alg++) {
            char buf[DK_MOVE_TEXT_MAX];
            if (list->m[i].captures) {
                format_move(v, &list->m[i], true, alg, buf, sizeof buf);
                if (strcmp(text, buf) == 0)
                    return i;
            }
            format_move(v, &list->m[i], false, alg, buf, sizeof buf);
            if (strcmp(text, buf) == 0)
                found = found == -1 ? i : -2;
        }
    }
    return found;
}
