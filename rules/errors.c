#include "errors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void format(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
}

int dk_errorf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    format(err, errlen, fmt, ap);
    va_end(ap);
    return DK_FAILED;
}

int dk_statusf(int status, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    format(err, errlen, fmt, ap);
    va_end(ap);
    return status;
}

const char *dk_quote(const char *s, size_t len, char *buf, size_t buflen)
{
    size_t k = 0, i = 0;
    if (!buflen)
        return buf;
    for (; i < len && i < DK_QUOTE_CHARS; i++) {
        unsigned char c = (unsigned char)s[i];
        char one[8];
        if (c == '\\' || c == '\t' || c == '\n' || c == '\r')
            snprintf(one, sizeof one, "\\%c", c == '\\' ? '\\' : c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        else if (c < 0x20 || c > 0x7e)
            snprintf(one, sizeof one, "\\x%02x", c);
        else
            one[0] = (char)c, one[1] = 0;
        size_t n = strlen(one);
        if (k + n + 4 > buflen) /* room for "..." and the NUL */
            break;
        memcpy(buf + k, one, n);
        k += n;
    }
    if (i < len && k + 4 <= buflen) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = 0;
    return buf;
}

const char *dk_status_text(int status)
{
    switch (status) {
    case DK_OK: return "ok";
    case DK_FAILED: return "failed";
    case DK_PEER_FAILED: return "another rank failed";
    case DK_REFUSED: return "refused";
    case DK_MISSING: return "missing";
    case DK_DAMAGED: return "damaged";
    case DK_IO: return "input/output error";
    case DK_NO_MEMORY: return "out of memory";
    case DK_WRONG_VALUE: return "wrong value";
    case DK_MUST_CAPTURE: return "the side to move must capture";
    case DK_NOT_CACHED: return "not in the cache";
    }
    return "unknown status";
}

dk_status dk_status_of_errno(int err) { return err == ENOENT ? DK_MISSING : err == ENOMEM ? DK_NO_MEMORY : DK_IO; }
