/* The JSON writer (gen/store/json.h): escaping, separators and layout, numbers, and misuse reported. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../gen/store/json.h"
#include "../gen/store/jsonread.h"

/* A writer into memory; text() ends the stream and returns what was written. */
typedef struct mem {
    char *text;
    size_t len;
    FILE *f;
    dk_json w;
} mem;

static void mem_open(mem *m)
{
    m->text = NULL;
    m->f = open_memstream(&m->text, &m->len);
    assert_non_null(m->f);
    dk_json_start(&m->w, m->f);
}

/* Closes the stream, compares and frees; the document must be complete and well used. */
static void expect_doc(mem *m, const char *want)
{
    fflush(m->f);
    assert_int_equal(dk_json_finish(&m->w), 0);
    fclose(m->f);
    assert_string_equal(m->text, want);
    free(m->text);
}

/* The JSON string s becomes. */
static void escaped(const char *s, const char *want)
{
    mem m;
    mem_open(&m);
    dk_json_string(&m.w, NULL, s);
    expect_doc(&m, want);
}

static void test_control_characters(void **state)
{
    (void)state;
    for (int c = 1; c < 0x20; c++) {
        char s[4] = {'a', (char)c, 'b', 0}, want[16];
        snprintf(want, sizeof want, "\"a\\u%04xb\"", c);
        escaped(s, want);
    }
    escaped("\x7f", "\"\x7f\""); /* DEL is no control character to JSON */
    escaped("tab\there\nline\r", "\"tab\\u0009here\\u000aline\\u000d\"");
}

static void test_quotes_and_backslashes(void **state)
{
    (void)state;
    escaped("", "\"\"");
    escaped("say \"hi\"", "\"say \\\"hi\\\"\"");
    escaped("a\\b\\", "\"a\\\\b\\\\\"");
    escaped("\\\"", "\"\\\\\\\"\"");
    escaped("W:W1-5:BK30,31 / '", "\"W:W1-5:BK30,31 / '\"");
}

static void test_utf8(void **state)
{
    (void)state;
    /* valid: 2, 3 and 4 bytes, the lowest and highest of each */
    escaped("\xc2\xb7 \xc3\xa9", "\"\xc2\xb7 \xc3\xa9\"");
    escaped("\xc2\x80\xdf\xbf", "\"\xc2\x80\xdf\xbf\"");
    escaped("\xe0\xa0\x80\xe2\x82\xac\xef\xbf\xbf\xed\x9f\xbf", "\"\xe0\xa0\x80\xe2\x82\xac\xef\xbf\xbf\xed\x9f\xbf\"");
    escaped("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", "\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"");
    /* not valid: each byte that starts no valid sequence becomes U+FFFD */
    escaped("\x80", "\"\\ufffd\"");                         /* a lone continuation */
    escaped("\xc0\xaf", "\"\\ufffd\\ufffd\"");              /* overlong */
    escaped("\xc1\xbf", "\"\\ufffd\\ufffd\"");              /* overlong */
    escaped("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");   /* overlong */
    escaped("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");   /* a surrogate */
    escaped("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* above U+10FFFF */
    escaped("\xf5\xff\xfe", "\"\\ufffd\\ufffd\\ufffd\"");
    escaped("x\xe2\x82", "\"x\\ufffd\\ufffd\"");             /* cut at the end */
    escaped("\xe2\x82y", "\"\\ufffd\\ufffdy\"");             /* cut in the middle */
    escaped("\xc3\x22", "\"\\ufffd\\\"\"");                  /* a quote where a continuation belongs */
}

static void test_numbers(void **state)
{
    (void)state;
    mem m;
    mem_open(&m);
    dk_json_array(&m.w, NULL);
    dk_json_u64(&m.w, NULL, 0);
    dk_json_u64(&m.w, NULL, UINT64_MAX);
    dk_json_i64(&m.w, NULL, INT64_MIN);
    dk_json_i64(&m.w, NULL, -1);
    dk_json_double(&m.w, NULL, 0.5, 4);
    dk_json_double(&m.w, NULL, 123456.789, 4);  /* %.4g */
    dk_json_double(&m.w, NULL, 123456.789, 6);  /* %.6g */
    dk_json_double(&m.w, NULL, 1e20, 3);
    dk_json_double(&m.w, NULL, 2.5e-7, 3);
    dk_json_double(&m.w, NULL, -0.0, 3);
    dk_json_fixed(&m.w, NULL, 0.05, 2);         /* %.2f */
    dk_json_fixed(&m.w, NULL, 3, 0);
    dk_json_double(&m.w, NULL, INFINITY, 4);   /* JSON has no infinity: null */
    dk_json_double(&m.w, NULL, -INFINITY, 4);
    dk_json_fixed(&m.w, NULL, NAN, 2);
    dk_json_bool(&m.w, NULL, true);
    dk_json_bool(&m.w, NULL, false);
    dk_json_null(&m.w, NULL);
    dk_json_end(&m.w);
    expect_doc(&m, "[0, 18446744073709551615, -9223372036854775808, -1, 0.5, 1.235e+05, 123457, 1e+20, "
               "2.5e-07, -0, 0.05, 3, null, null, null, true, false, null]");
}

static void test_nesting(void **state)
{
    (void)state;
    mem m;
    mem_open(&m);
    dk_json_object(&m.w, NULL);
    dk_json_object(&m.w, "empty");
    dk_json_end(&m.w);
    dk_json_array(&m.w, "none");
    dk_json_end(&m.w);
    dk_json_array(&m.w, "deep");
    for (int k = 0; k < 3; k++)
        dk_json_array(&m.w, NULL);
    dk_json_u64(&m.w, NULL, 1);
    for (int k = 0; k < 3; k++)
        dk_json_end(&m.w);
    dk_json_object(&m.w, NULL);
    dk_json_string(&m.w, "k\"ey", "v");
    dk_json_array(&m.w, "a");
    dk_json_object(&m.w, NULL);
    dk_json_end(&m.w);
    dk_json_object(&m.w, NULL);
    dk_json_null(&m.w, "x");
    dk_json_end(&m.w);
    dk_json_end(&m.w);
    dk_json_end(&m.w);
    dk_json_end(&m.w);
    dk_json_u64(&m.w, "last", 2);
    dk_json_end(&m.w);
    expect_doc(&m, "{\"empty\": {}, \"none\": [], \"deep\": [[[[1]]], {\"k\\\"ey\": \"v\", \"a\": [{}, "
               "{\"x\": null}]}], \"last\": 2}");
    /* as deep as allowed */
    mem_open(&m);
    for (int k = 0; k < DK_JSON_DEPTH; k++)
        dk_json_array(&m.w, NULL);
    for (int k = 0; k < DK_JSON_DEPTH; k++)
        dk_json_end(&m.w);
    expect_doc(&m, "[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]");
}

/* Line breaks where asked, in the layouts the commands print (here the manifest's), and a
 * tight array. */
static void test_layout(void **state)
{
    (void)state;
    mem m;
    mem_open(&m);
    dk_json_object(&m.w, NULL);
    dk_json_string(&m.w, "manifest", "m");
    dk_json_array(&m.w, "variants");
    for (int v = 0; v < 2; v++) {
        dk_json_newline(&m.w, 0);
        dk_json_object(&m.w, NULL);
        dk_json_array(&m.w, "tables");
        for (int t = 0; t < 2; t++) {
            dk_json_newline(&m.w, 2);
            dk_json_u64(&m.w, NULL, (uint64_t)t);
        }
        dk_json_newline(&m.w, 0);
        dk_json_end(&m.w);
        dk_json_newline(&m.w, 1);
        dk_json_array(&m.w, "tight");
        dk_json_tight(&m.w);
        dk_json_string(&m.w, NULL, "a");
        dk_json_string(&m.w, NULL, "b");
        dk_json_end(&m.w);
        dk_json_end(&m.w);
    }
    dk_json_end(&m.w);
    dk_json_end(&m.w);
    expect_doc(&m, "{\"manifest\": \"m\", \"variants\": [\n{\"tables\": [\n  0,\n  1\n],\n \"tight\": [\"a\",\"b\"]},\n"
               "{\"tables\": [\n  0,\n  1\n],\n \"tight\": [\"a\",\"b\"]}]}");
}

/* Uses that break the form are reported by dk_json_finish. */
static void test_misuse(void **state)
{
    (void)state;
    for (int k = 0; k < 7; k++) {
        mem m;
        mem_open(&m);
        switch (k) {
        case 0: /* nothing written */
            break;
        case 1: /* a container left open */
            dk_json_object(&m.w, NULL);
            break;
        case 2: /* a member without its key */
            dk_json_object(&m.w, NULL);
            dk_json_u64(&m.w, NULL, 1);
            dk_json_end(&m.w);
            break;
        case 3: /* a key in an array */
            dk_json_array(&m.w, NULL);
            dk_json_u64(&m.w, "k", 1);
            dk_json_end(&m.w);
            break;
        case 4: /* two documents */
            dk_json_null(&m.w, NULL);
            dk_json_null(&m.w, NULL);
            break;
        case 5: /* a close too many */
            dk_json_array(&m.w, NULL);
            dk_json_end(&m.w);
            dk_json_end(&m.w);
            break;
        case 6: /* too deep */
            for (int d = 0; d <= DK_JSON_DEPTH; d++)
                dk_json_array(&m.w, NULL);
            for (int d = 0; d <= DK_JSON_DEPTH; d++)
                dk_json_end(&m.w);
            break;
        }
        fflush(m.f);
        assert_int_equal(dk_json_finish(&m.w), -1);
        fclose(m.f);
        free(m.text);
    }
}

/* The reader: what the writer writes reads back, escapes resolved, numbers as their text. */
static void test_read_back(void **state)
{
    (void)state;
    mem m;
    mem_open(&m);
    dk_json_object(&m.w, NULL);
    dk_json_string(&m.w, "s", "a\"b\\c\n\x01\xc3\xa9");
    dk_json_u64(&m.w, "n", UINT64_MAX);
    dk_json_array(&m.w, "a");
    dk_json_bool(&m.w, NULL, true);
    dk_json_null(&m.w, NULL);
    dk_json_end(&m.w);
    dk_json_end(&m.w);
    fflush(m.f);
    assert_int_equal(dk_json_finish(&m.w), 0);
    fclose(m.f);
    char err[256];
    dk_jsonr *v = dk_jsonr_parse(m.text, m.len, err, sizeof err);
    assert_non_null(v);
    assert_string_equal(dk_jsonr_string(v, "s"), "a\"b\\c\n\x01\xc3\xa9");
    uint64_t x;
    assert_true(dk_jsonr_u64(dk_jsonr_get(v, "n"), &x));
    assert_true(x == UINT64_MAX);
    const dk_jsonr *a = dk_jsonr_get(v, "a");
    assert_true(a && a->kind == DK_JSONR_ARRAY && a->n == 2 && a->items[0].kind == DK_JSONR_TRUE &&
                a->items[1].kind == DK_JSONR_NULL);
    assert_null(dk_jsonr_get(v, "missing"));
    dk_jsonr_free(v);
    free(m.text);
    /* \u escapes, a surrogate pair among them, become UTF-8 */
    const char *u = "[\"\\u00e9\\ud83d\\ude00\\/\"]";
    v = dk_jsonr_parse(u, strlen(u), err, sizeof err);
    assert_non_null(v);
    assert_string_equal(v->items[0].text, "\xc3\xa9\xf0\x9f\x98\x80/");
    dk_jsonr_free(v);
}

/* Bad documents are refused with a line saying where; nothing leaks (the sanitizer build). */
static void test_read_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"", "{", "[1,]", "{\"a\" 1}", "{1: 2}", "\"abc", "\"\\x\"", "\"\\ud800\"",
                                      "\"\\udc00\"", "01", "1.", "-", "tru", "[1] 2", "\"a\nb\"", "{\"a\": [}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[256] = "";
        dk_jsonr *v = dk_jsonr_parse(bad[i], strlen(bad[i]), err, sizeof err);
        if (v)
            fail_msg("'%s' parsed", bad[i]);
        assert_non_null(strstr(err, "at byte"));
    }
    char deep[200];
    memset(deep, '[', sizeof deep);
    char err[256];
    assert_null(dk_jsonr_parse(deep, sizeof deep, err, sizeof err));
    assert_non_null(strstr(err, "nesting too deep"));
}

/* Equality: objects in any order, numbers by their text; the path of the first difference. */
static void test_read_equal(void **state)
{
    (void)state;
    const char *a = "{\"x\": 1, \"h\": {\"3\": 7, \"5\": 2}, \"l\": [1, 2]}";
    const char *b = "{\"l\": [1, 2], \"h\": {\"5\": 2, \"3\": 7}, \"x\": 1}";
    const char *c = "{\"l\": [1, 2], \"h\": {\"5\": 2, \"3\": 8}, \"x\": 1}";
    const char *d = "{\"l\": [1, 2], \"h\": {\"5\": 2}, \"x\": 1}";
    char err[256], path[256] = "";
    dk_jsonr *va = dk_jsonr_parse(a, strlen(a), err, sizeof err), *vb = dk_jsonr_parse(b, strlen(b), err, sizeof err),
             *vc = dk_jsonr_parse(c, strlen(c), err, sizeof err), *vd = dk_jsonr_parse(d, strlen(d), err, sizeof err);
    assert_true(va && vb && vc && vd);
    assert_true(dk_jsonr_equal(va, vb, path, sizeof path));
    assert_false(dk_jsonr_equal(va, vc, path, sizeof path));
    assert_string_equal(path, "h.3");
    path[0] = 0;
    assert_false(dk_jsonr_equal(vd, va, path, sizeof path));
    assert_string_equal(path, "h.3");
    dk_jsonr_free(va);
    dk_jsonr_free(vb);
    dk_jsonr_free(vc);
    dk_jsonr_free(vd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_control_characters),
        cmocka_unit_test(test_quotes_and_backslashes),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_read_back),
        cmocka_unit_test(test_read_refused),
        cmocka_unit_test(test_read_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
