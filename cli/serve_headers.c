/* Reading the request headers damka serve acts on (serve.h): Accept-Encoding and If-None-Match.
 * Pure, without libmicrohttpd, so that the fuzz harness reaches them. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve.h"

/* The next item of a comma-separated header list at *p, blanks trimmed: its start, *len its
 * length; NULL at the end. */
static const char *list_item(const char **p, size_t *len)
{
    const char *s = *p + strspn(*p, " \t,");
    if (!*s)
        return NULL;
    size_t n = strcspn(s, ",");
    *p = s + n;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    *len = n;
    return s;
}

bool serve_accepts_gzip(const char *ae)
{
    size_t n;
    for (const char *item; ae && (item = list_item(&ae, &n));) {
        size_t name = strcspn(item, "; \t");
        if (name > n)
            name = n;
        if (!((name == 4 && strncasecmp(item, "gzip", 4) == 0) || (name == 1 && *item == '*')))
            continue;
        const char *q = item + name;
        while ((q = memchr(q, 'q', (size_t)(item + n - q))) && !(q[1] == '=' && (q[-1] == ';' || q[-1] == ' ')))
            q++;
        if (!q) /* no q: 1 */
            return true;
        return strtod(q + 2, NULL) > 0;
    }
    return false;
}

bool serve_etag_matches(const char *inm, const char *etag)
{
    size_t n, len = strlen(etag);
    for (const char *item; inm && (item = list_item(&inm, &n));) {
        if (n == 1 && *item == '*')
            return true;
        if (n >= 2 && item[0] == 'W' && item[1] == '/') /* If-None-Match compares weakly */
            item += 2, n -= 2;
        if (n == len && memcmp(item, etag, n) == 0)
            return true;
    }
    return false;
}

