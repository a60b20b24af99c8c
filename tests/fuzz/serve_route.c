/* damka serve's request handler without HTTP (cli/serve_route.c: serve_route) over the small
 * table set of tests/fuzz/tables ($DAMKA_FUZZ_TABLES if set). The first input byte chooses the
 * method (GET, POST, HEAD, OPTIONS, DELETE) and whether fen and counter are given; the rest is
 * split at NUL bytes into the path, the fen, the counter and a POST body. Besides not crashing
 * or leaking: the status is one docs/api.md lists, a 204 (a preflight, the icon) has no body,
 * and every JSON body is one object or array ending in a newline. The counter's text is also
 * read as an Accept-Encoding and an If-None-Match header (serve_headers.c): a list naming the
 * fen as an ETag matches it. */
#include <stdlib.h>
#include <string.h>

#include "../../cli/serve.h"
#include "support.h"

static serve_tables *tables;
static serve_counters counters;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char err[4300];
    tables = serve_tables_open(fuzz_data_dir("DAMKA_FUZZ_TABLES", "tests/fuzz/tables"), err, sizeof err);
    FUZZ_CHECK(tables != NULL, "%s (run from the repository, or set DAMKA_FUZZ_TABLES)", err);
    return 0;
}

/* The next NUL-terminated field of the input at *at (the rest when there is no NUL). */
static const char *field(char *text, size_t len, size_t *at)
{
    char *start = text + *at;
    size_t n = strnlen(start, len - *at);
    *at += n + (*at + n < len);
    return start;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const methods[] = {"GET", "POST", "HEAD", "OPTIONS", "DELETE"};
    if (size < 1)
        return 0;
    char *text = malloc(size + 1);
    FUZZ_CHECK(text != NULL, "out of memory");
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    size_t len = size - 1, at = 0;
    serve_request rq = {methods[data[0] % 5], field(text, len, &at), NULL, NULL, NULL, 0, 0};
    const char *fen = field(text, len, &at), *counter = field(text, len, &at);
    rq.fen = data[0] & 8 ? fen : NULL;
    rq.counter = data[0] & 16 ? counter : NULL;
    rq.body = text + at;
    rq.body_len = len - at;
    serve_reply r;
    serve_route(tables, &counters, &rq, &r);
    static const unsigned statuses[] = {200, 204, 400, 404, 405, 413, 500, 503};
    bool known = false;
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++)
        known |= r.status == statuses[i];
    FUZZ_CHECK(known, "status %u", r.status);
    FUZZ_CHECK(r.status != 204 || (!r.body && r.len == 0), "a 204 with a body");
    FUZZ_CHECK(!r.preflight || strcmp(rq.method, "OPTIONS") == 0, "a preflight answering %s", rq.method);
    serve_accepts_gzip(counter);
    if (!strpbrk(fen, ", \t") && strlen(fen) < 250) {
        char list[600];
        snprintf(list, sizeof list, "%.250s, W/%.250s", counter, fen);
        FUZZ_CHECK(serve_etag_matches(list, fen) || !*fen, "If-None-Match naming %s does not match it", fen);
    }
    if (r.type && strcmp(r.type, "application/json") == 0) {
        FUZZ_CHECK(r.body && r.len >= 3, "an empty JSON body");
        FUZZ_CHECK((r.body[0] == '{' && r.body[r.len - 2] == '}') || (r.body[0] == '[' && r.body[r.len - 2] == ']'),
                   "a JSON body that is not one object or array");
        FUZZ_CHECK(r.body[r.len - 1] == '\n' && memchr(r.body, 0, r.len) == NULL, "a JSON body's end or a NUL");
    }
    free(r.body);
    free(text);
    return 0;
}
