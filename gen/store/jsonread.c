#include "jsonread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/errors.h"

typedef struct parser {
    const char *s;
    size_t len, at;
    char *err;
    size_t errlen;
    bool failed;
} parser;

static bool fail(parser *p, const char *what)
{
    if (!p->failed)
        dk_errorf(p->err, p->errlen, "%s at byte %zu", what, p->at);
    p->failed = true;
    return false;
}

static void skip_space(parser *p)
{
    while (p->at < p->len && strchr(" \t\r\n", p->s[p->at]) && p->s[p->at])
        p->at++;
}

static bool literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->at < n || memcmp(p->s + p->at, word, n) != 0)
        return fail(p, "not JSON");
    p->at += n;
    return true;
}

static int hex4(parser *p)
{
    if (p->len - p->at < 4)
        return -1;
    int x = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->at++];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        x = x * 16 + d;
    }
    return x;
}

static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string at p->at (its opening quote), its escapes resolved, into a new buffer: an escape
 * never writes more bytes than it takes, so the string's length in the text bounds the result. */
static char *string(parser *p)
{
    p->at++;
    size_t end = p->at;
    while (end < p->len && p->s[end] != '"')
        end += p->s[end] == '\\' ? 2 : 1;
    char *out = malloc((end < p->len ? end : p->len) - p->at + 1);
    if (!out) {
        fail(p, "out of memory");
        return NULL;
    }
    size_t n = 0;
    while (p->at < p->len && p->s[p->at] != '"') {
        unsigned char c = (unsigned char)p->s[p->at++];
        if (c < 0x20) {
            p->at--;
            break;
        }
        if (c != '\\') {
            out[n++] = (char)c;
            continue;
        }
        if (p->at >= p->len)
            break;
        char e = p->s[p->at++];
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            out[n++] = to[k - from];
            continue;
        }
        int cp = e == 'u' ? hex4(p) : -1;
        if (cp >= 0xD800 && cp < 0xDC00) { /* a high surrogate needs its low half */
            int lo = p->len - p->at >= 2 && p->s[p->at] == '\\' && p->s[p->at + 1] == 'u' ? (p->at += 2, hex4(p)) : -1;
            cp = lo >= 0xDC00 && lo < 0xE000 ? 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00) : -1;
        } else if (cp >= 0xDC00 && cp < 0xE000) {
            cp = -1;
        }
        if (cp < 0) {
            free(out);
            fail(p, "a bad escape in a string");
            return NULL;
        }
        n += put_utf8(out + n, (unsigned)cp);
    }
    if (p->at >= p->len || p->s[p->at] != '"') {
        free(out);
        fail(p, "an unterminated string");
        return NULL;
    }
    p->at++;
    out[n] = 0;
    return out;
}

/* At least `min` digits at p->at, skipped. */
static bool digits(parser *p, size_t min)
{
    size_t start = p->at;
    while (p->at < p->len && p->s[p->at] >= '0' && p->s[p->at] <= '9')
        p->at++;
    return p->at - start >= min || fail(p, "a malformed number");
}

static bool number(parser *p, dk_jsonr *v)
{
    size_t start = p->at;
    const char *s = p->s;
    if (p->at < p->len && s[p->at] == '-')
        p->at++;
    if (p->at < p->len && s[p->at] == '0')
        p->at++;
    else if (!digits(p, 1))
        return false;
    if (p->at < p->len && s[p->at] == '.' && (p->at++, !digits(p, 1)))
        return false;
    if (p->at < p->len && (s[p->at] == 'e' || s[p->at] == 'E')) {
        p->at++;
        if (p->at < p->len && (s[p->at] == '+' || s[p->at] == '-'))
            p->at++;
        if (!digits(p, 1))
            return false;
    }
    v->kind = DK_JSONR_NUMBER;
    v->text = strndup(s + start, p->at - start);
    return v->text || fail(p, "out of memory");
}

static bool value(parser *p, dk_jsonr *v, int depth);

/* The items of an array or the members of an object, p->at at its opening bracket. */
static bool container(parser *p, dk_jsonr *v, int depth)
{
    bool object = p->s[p->at] == '{';
    char close = object ? '}' : ']';
    v->kind = object ? DK_JSONR_OBJECT : DK_JSONR_ARRAY;
    if (depth >= DK_JSONR_DEPTH)
        return fail(p, "nesting too deep");
    p->at++;
    skip_space(p);
    if (p->at < p->len && p->s[p->at] == close) {
        p->at++;
        return true;
    }
    size_t cap = 0;
    for (;;) {
        if (v->n == cap) {
            size_t ncap = cap ? 2 * cap : 4;
            dk_jsonr *items = realloc(v->items, ncap * sizeof *items);
            if (!items)
                return fail(p, "out of memory");
            v->items = items;
            cap = ncap;
        }
        dk_jsonr *item = &v->items[v->n];
        memset(item, 0, sizeof *item);
        v->n++;
        skip_space(p);
        if (object) {
            if (p->at >= p->len || p->s[p->at] != '"')
                return fail(p, "a member without a name");
            if (!(item->key = string(p)))
                return false;
            skip_space(p);
            if (p->at >= p->len || p->s[p->at] != ':')
                return fail(p, "a member without ':'");
            p->at++;
        }
        if (!value(p, item, depth + 1))
            return false;
        skip_space(p);
        if (p->at < p->len && p->s[p->at] == ',') {
            p->at++;
            continue;
        }
        if (p->at < p->len && p->s[p->at] == close) {
            p->at++;
            return true;
        }
        return fail(p, object ? "an object not closed" : "an array not closed");
    }
}

static bool value(parser *p, dk_jsonr *v, int depth)
{
    skip_space(p);
    if (p->at >= p->len)
        return fail(p, "a value missing");
    switch (p->s[p->at]) {
    case '{':
    case '[':
        return container(p, v, depth);
    case '"':
        v->kind = DK_JSONR_STRING;
        return (v->text = string(p)) != NULL;
    case 't':
        v->kind = DK_JSONR_TRUE;
        return literal(p, "true");
    case 'f':
        v->kind = DK_JSONR_FALSE;
        return literal(p, "false");
    case 'n':
        v->kind = DK_JSONR_NULL;
        return literal(p, "null");
    default:
        return number(p, v);
    }
}

static void free_inside(dk_jsonr *v)
{
    for (size_t i = 0; i < v->n; i++)
        free_inside(&v->items[i]);
    free(v->items);
    free(v->text);
    free(v->key);
}

void dk_jsonr_free(dk_jsonr *v)
{
    if (v)
        free_inside(v);
    free(v);
}

dk_jsonr *dk_jsonr_parse(const char *text, size_t len, char *err, size_t errlen)
{
    parser p = {.s = text, .len = len, .err = err, .errlen = errlen};
    dk_jsonr *v = calloc(1, sizeof *v);
    if (!v) {
        dk_errorf(err, errlen, "out of memory");
        return NULL;
    }
    if (value(&p, v, 0)) {
        skip_space(&p);
        if (p.at == p.len)
            return v;
        fail(&p, "text after the document");
    }
    dk_jsonr_free(v);
    return NULL;
}

const dk_jsonr *dk_jsonr_get(const dk_jsonr *o, const char *key)
{
    if (!o || o->kind != DK_JSONR_OBJECT)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->items[i].key, key) == 0)
            return &o->items[i];
    return NULL;
}

const char *dk_jsonr_string(const dk_jsonr *o, const char *key)
{
    const dk_jsonr *v = dk_jsonr_get(o, key);
    return v && v->kind == DK_JSONR_STRING ? v->text : NULL;
}

bool dk_jsonr_u64(const dk_jsonr *v, uint64_t *x)
{
    if (!v || v->kind != DK_JSONR_NUMBER || !v->text[0] || strlen(v->text) > 20)
        return false;
    uint64_t r = 0;
    for (const char *c = v->text; *c; c++) {
        if (*c < '0' || *c > '9' || r > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
            return false;
        r = r * 10 + (uint64_t)(*c - '0');
    }
    *x = r;
    return true;
}

/* Appends ".name" (or "name" at the start) to path. */
static void path_push(char *path, size_t pathlen, const char *name)
{
    if (!path)
        return;
    size_t n = strlen(path);
    snprintf(path + n, pathlen - n, "%s%s", n ? "." : "", name);
}

/* Whether member `key` of a is in b with the same value, its place appended to path. */
static bool same_member(const dk_jsonr *a, const dk_jsonr *b, const char *key, char *path, size_t pathlen)
{
    const dk_jsonr *x = dk_jsonr_get(a, key), *y = dk_jsonr_get(b, key);
    size_t mark = path ? strlen(path) : 0;
    path_push(path, pathlen, key);
    if (!x || !y || !dk_jsonr_equal(x, y, path, pathlen))
        return false;
    if (path)
        path[mark] = 0;
    return true;
}

bool dk_jsonr_equal(const dk_jsonr *a, const dk_jsonr *b, char *path, size_t pathlen)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == DK_JSONR_OBJECT) {
        for (size_t i = 0; i < a->n; i++)
            if (!same_member(a, b, a->items[i].key, path, pathlen))
                return false;
        for (size_t i = 0; i < b->n; i++)
            if (!same_member(a, b, b->items[i].key, path, pathlen))
                return false;
        return true;
    }
    if (a->text || b->text)
        return a->text && b->text && strcmp(a->text, b->text) == 0;
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        char index[32];
        snprintf(index, sizeof index, "%zu", i);
        size_t mark = path ? strlen(path) : 0;
        path_push(path, pathlen, index);
        if (!dk_jsonr_equal(&a->items[i], &b->items[i], path, pathlen))
            return false;
        if (path)
            path[mark] = 0;
    }
    return a->n == b->n;
}
