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

int dk_square_format(const dk_variant *v, int s, bool algebraic, char *buf, size_t len)
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
        if (*t == ',')
            t++;
        else if (*t && *t != ':')
            return dk_errorf(err, errlen, "unexpected '%c' in piece list", *t);
    }
    *text = t;
    return 0;
}

int dk_fen_parse(const dk_variant *v, const char *fen, dk_pos *out, char *err, size_t errlen)
{
    char buf[1024];
    const char *t = fen;
    while (isspace((unsigned char)*t) || *t == '"')
        t++;
    size_t n = strlen(t);
    if (n >= sizeof buf)
        return dk_errorf(err, errlen, "FEN too long");
    memcpy(buf, t, n + 1);
    while (n && (isspace((unsigned char)buf[n - 1]) || buf[n - 1] == '"' || buf[n - 1] == '.'))
        buf[--n] = 0;
    for (char *c = buf; *c; c++)
        if (isspace((unsigned char)*c))
            return dk_errorf(err, errlen, "FEN contains a space");
    t = buf;
    dk_pos p = {{0, 0}, 0, DK_WHITE};
    if ((*t != 'W' && *t != 'B') || t[1] != ':')
        return dk_errorf(err, errlen, "FEN must start with 'W:' or 'B:' (side to move)");
    p.side = *t == 'W' ? DK_WHITE : DK_BLACK;
    t += 2;
    bool seen[2] = {false, false};
    while (*t) {
        int colour = *t == 'W' ? DK_WHITE : *t == 'B' ? DK_BLACK : -1;
        if (colour < 0)
            return dk_errorf(err, errlen, "expected 'W' or 'B' before a piece list, got '%c'", *t);
        if (seen[colour])
            return dk_errorf(err, errlen, "the %s pieces are listed twice", colour ? "black" : "white");
        seen[colour] = true;
        t++;
        if (parse_pieces(v, &t, &p, colour, err, errlen))
            return -1;
        if (*t == ':')
            t++;
    }
    if (!seen[0] || !seen[1])
        return dk_errorf(err, errlen, "FEN needs a white (W) and a black (B) piece list");
    dk_pos_error e = dk_pos_check(v, &p);
    if (e)
        return dk_errorf(err, errlen, "illegal position: %s", dk_pos_error_text(e));
    *out = p;
    return 0;
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
            dk_square_format(v, s, algebraic, sq, sizeof sq);
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
    dk_square_format(v, m->from, algebraic, a, sizeof a);
    dk_square_format(v, m->to, algebraic, b, sizeof b);
    size_t k = (size_t)snprintf(buf, len, "%s%c%s", a, m->captures ? 'x' : '-', b);
    if (with_captures) {
        char sep = '(';
        for (dk_bb c = m->captures; c; c &= c - 1) {
            dk_square_format(v, dk_lsb(c), algebraic, a, sizeof a);
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
