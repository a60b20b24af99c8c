#include "errors.h"

#include <stdarg.h>
#include <stdio.h>

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
