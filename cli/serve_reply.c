/* A reply of damka serve on the wire (serve_mhd.h): its headers, its ETag and 304, gzip. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "serve_mhd.h"

enum { GZIP_MIN = 1024 }; /* smaller bodies go as they are: compressing them gains little */

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
    return h;
}

/* r's body gzip-compressed in place; false (r unchanged) when out of memory or no smaller. */
static bool gzip_body(serve_reply *r)
{
    z_stream z = {0};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return false;
    uLong bound = deflateBound(&z, (uLong)r->len);
    unsigned char *out = malloc(bound);
    bool ok = out != NULL;
    if (ok) {
        z.next_in = (unsigned char *)r->body, z.avail_in = (uInt)r->len;
        z.next_out = out, z.avail_out = (uInt)bound;
        ok = deflate(&z, Z_FINISH) == Z_STREAM_END && z.total_out < r->len;
    }
    deflateEnd(&z);
    if (!ok) {
        free(out);
        return false;
    }
    free(r->body);
    r->body = (char *)out;
    r->len = z.total_out;
    return true;
}

static bool add_header(struct MHD_Response *r, const char *name, const char *value)
{
    return MHD_add_response_header(r, name, value) == MHD_YES;
}

/* The body of a 204 or 304: none. libmicrohttpd 0.9.75 gives a body from a buffer a
 * Content-Length (0, which a 304 must not claim: it stands for the 200's length) and one of
 * unknown size chunked encoding (whose closing chunk a 304 must not carry); its strict HTTP/1.0
 * mode sends a body of unknown size with neither and closes the connection after it, which a
 * 304 then does. A 204 gets neither header in any mode. */
static ssize_t no_body(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls, (void)pos, (void)buf, (void)max;
    return MHD_CONTENT_READER_END_OF_STREAM;
}

enum MHD_Result serve_send(struct MHD_Connection *conn, serve_counters *c, serve_reply *r, const char *stamp)
{
    char etag[96] = "", other[96];
    bool compressible = r->type && r->body && r->len >= GZIP_MIN, gz = false;
    if (compressible &&
        serve_accepts_gzip(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING)))
        gz = true;
    if (r->cacheable && r->status == 200) {
        /* one ETag a form of the body; a client holding either has this body */
        unsigned long long h = (unsigned long long)fnv1a(r->body, r->len);
        snprintf(etag, sizeof etag, "\"%s-%016llx%s\"", stamp, h, gz ? "-gz" : "");
        snprintf(other, sizeof other, "\"%s-%016llx%s\"", stamp, h, gz ? "" : "-gz");
        const char *inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
        if (serve_etag_matches(inm, etag) || serve_etag_matches(inm, other)) {
            free(r->body);
            r->body = NULL, r->len = 0, r->status = 304, gz = false;
        }
    }
    if (gz)
        gz = gzip_body(r);
    atomic_fetch_add(&c->requests, 1);
    atomic_fetch_add(&c->by_class[r->status / 100 % 6], 1);
    struct MHD_Response *resp;
    if (r->status == 204 || r->status == 304) {
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, no_body, NULL, NULL);
        if (resp && r->status == 304) /* see no_body */
            MHD_set_response_options(resp, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
    } else
        resp = r->body ? MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE)
                       : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!resp || r->status == 204 || r->status == 304)
        free(r->body);
    if (!resp)
        return MHD_NO;
    bool ok = add_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, "*") &&
              add_header(resp, "X-Content-Type-Options", "nosniff");
    if (r->type && r->status != 304)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->type);
    if (gz)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    if (compressible || r->status == 304)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
    if (r->cacheable && (r->status == 200 || r->status == 304 || r->status == 204))
        ok = ok && add_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "public, max-age=3600");
    else
        ok = ok && add_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (*etag)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ETAG, etag);
    if (r->allow)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
    if (r->status == 503)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    if (r->preflight)
        ok = ok && add_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_METHODS, r->allow) &&
             add_header(resp, "Access-Control-Allow-Headers", "Content-Type, If-None-Match") &&
             add_header(resp, "Access-Control-Max-Age", "86400");
    if (r->type && strncmp(r->type, "text/html", 9) == 0)
        ok = ok && add_header(resp, "Content-Security-Policy",
                              "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                              "img-src data:; connect-src 'self'");
    enum MHD_Result rc = ok ? MHD_queue_response(conn, r->status, resp) : MHD_NO;
    MHD_destroy_response(resp);
    return rc;
}
