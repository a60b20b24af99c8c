#include "json.h"

#include <inttypes.h>
#include <math.h>

void dk_json_start(dk_json *w, FILE *f)
{
    *w = (dk_json){.f = f, .newline = -1};
}

int dk_json_finish(const dk_json *w)
{
    bool done = !w->misused && w->depth == 0 && w->level[0].any && w->newline < 0;
    return done && !ferror(w->f) ? 0 : -1;
}

/* Writes the line break due, if any. */
static void line_break(dk_json *w)
{
    if (w->newline < 0)
        return;
    fputc('\n', w->f);
    for (int i = 0; i < w->newline; i++)
        fputc(' ', w->f);
    w->newline = -1;
}

/* The length of the valid UTF-8 sequence s starts with (a byte of 0x80 or more), 0 if it is
 * not one: no overlong form, no surrogate, nothing above U+10FFFF. */
static int utf8_length(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    int n;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (int k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xbf)
            return 0;
    return n;
}

static void quoted(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    fputc('"', f);
    while (*s) {
        int n = *s < 0x80 ? 1 : utf8_length(s);
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if (*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else if (n == 0)
            fputs("\\ufffd", f);
        else
            fwrite(s, 1, (size_t)n, f);
        s += n ? n : 1;
    }
    fputc('"', f);
}

/* Starts the next item of the current container: its separator, line break and key. */
static void item(dk_json *w, const char *key)
{
    dk_json_level *l = &w->level[w->depth];
    if ((key != NULL) != (w->depth > 0 && l->object) || (w->depth == 0 && l->any))
        w->misused = true;
    if (l->any)
        fputc(',', w->f);
    if (w->newline >= 0)
        line_break(w);
    else if (l->any && !l->tight)
        fputc(' ', w->f);
    l->any = true;
    if (key) {
        quoted(w->f, key);
        fputs(": ", w->f);
    }
}

static void open_container(dk_json *w, const char *key, bool object)
{
    item(w, key);
    if (w->depth == DK_JSON_DEPTH) {
        w->misused = true;
        return;
    }
    fputc(object ? '{' : '[', w->f);
    w->level[++w->depth] = (dk_json_level){.object = object};
}

void dk_json_object(dk_json *w, const char *key) { open_container(w, key, true); }

void dk_json_array(dk_json *w, const char *key) { open_container(w, key, false); }

void dk_json_end(dk_json *w)
{
    if (w->depth == 0) {
        w->misused = true;
        return;
    }
    line_break(w);
    fputc(w->level[w->depth--].object ? '}' : ']', w->f);
}

void dk_json_newline(dk_json *w, int indent) { w->newline = indent > 0 ? indent : 0; }

void dk_json_tight(dk_json *w) { w->level[w->depth].tight = true; }

void dk_json_string(dk_json *w, const char *key, const char *s)
{
    item(w, key);
    quoted(w->f, s);
}

void dk_json_u64(dk_json *w, const char *key, uint64_t x)
{
    item(w, key);
    fprintf(w->f, "%" PRIu64, x);
}

void dk_json_i64(dk_json *w, const char *key, int64_t x)
{
    item(w, key);
    fprintf(w->f, "%" PRId64, x);
}

/* x with `precision` digits, significant (%g) or after the point (%f); null if not finite. */
static void real(dk_json *w, const char *key, double x, int precision, bool fixed)
{
    item(w, key);
    if (isfinite(x))
        fprintf(w->f, fixed ? "%.*f" : "%.*g", precision, x);
    else
        fputs("null", w->f);
}

void dk_json_double(dk_json *w, const char *key, double x, int digits) { real(w, key, x, digits, false); }

void dk_json_fixed(dk_json *w, const char *key, double x, int decimals) { real(w, key, x, decimals, true); }

void dk_json_bool(dk_json *w, const char *key, bool b)
{
    item(w, key);
    fputs(b ? "true" : "false", w->f);
}

void dk_json_null(dk_json *w, const char *key)
{
    item(w, key);
    fputs("null", w->f);
}
