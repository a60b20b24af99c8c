/* FEN and notation: accepted forms, round trips, and every kind of bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../rules/errors.h"
#include "../rules/notation.h"
#include "support.h"

static const dk_variant *intl(void) { return dk_variant_find("international"); }
static const dk_variant *braz(void) { return dk_variant_find("brazilian"); }

static dk_pos parse_ok(const dk_variant *v, const char *fen)
{
    dk_pos p;
    char err[DK_ERR_MAX] = "";
    if (dk_fen_parse(v, fen, &p, err, sizeof err) != 0)
        fail_msg("'%s' rejected: %s", fen, err);
    return p;
}

static void test_start_positions(void **state)
{
    (void)state;
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const dk_variant *v = dk_variant_get((dk_variant_id)id);
        dk_pos start = dk_pos_start(v);
        const char *fen = v->size == 8 ? "W:W21-32:B1-12" : "W:W31-50:B1-20";
        dk_pos p = parse_ok(v, fen);
        assert_true(dk_pos_equal(&p, &start));
        const char *swapped = v->size == 8 ? "W:B1-12:W21-32" : "W:B1-20:W31-50";
        p = parse_ok(v, swapped);
        assert_true(dk_pos_equal(&p, &start));
    }
}

static void test_forms(void **state)
{
    (void)state;
    dk_pos a = parse_ok(braz(), "W:Wa1,c3:Bh8");
    dk_pos b = parse_ok(braz(), "W:W29,22:B4");
    assert_true(dk_pos_equal(&a, &b));
    a = parse_ok(braz(), "B:WKa1,6-7:BKh8,b8");
    b = parse_ok(braz(), "B:BK4,1:W6,7,K29");
    assert_true(dk_pos_equal(&a, &b));
    assert_int_equal(a.side, DK_BLACK);
    assert_true(a.kings == (dk_bit(28) | dk_bit(3)));
    a = parse_ok(intl(), "W:WK46-48,33:B5");
    assert_int_equal(dk_popcount(a.kings), 3);
    /* PDN decorations: quotes, a final period, surrounding blanks. */
    a = parse_ok(intl(), "  \"W:W33:B2.\"\n");
    b = parse_ok(intl(), "W:W33:B2");
    assert_true(dk_pos_equal(&a, &b));
    char buf[DK_FEN_MAX];
    dk_fen_format(braz(), &a, true, buf, sizeof buf); /* any position prints */
    dk_fen_format(braz(), &(dk_pos){{dk_bit(28), dk_bit(3)}, dk_bit(3), DK_BLACK}, true, buf,
                  sizeof buf);
    assert_string_equal(buf, "B:Wa1:BKh8");
    dk_fen_format(braz(), &(dk_pos){{dk_bit(28), dk_bit(3)}, dk_bit(3), DK_BLACK}, false, buf,
                  sizeof buf);
    assert_string_equal(buf, "B:W29:BK4");
}

static void test_round_trips(void **state)
{
    (void)state;
    test_rng r = {42};
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const dk_variant *v = dk_variant_get((dk_variant_id)id);
        for (int i = 0; i < 20000; i++) {
            int n = 1 + (int)test_rand_below(&r, (uint64_t)2 * v->men_per_side);
            dk_pos p = test_random_pos(v, &r, n, 30);
            for (int alg = 0; alg <= (v->size <= 8); alg++) {
                char buf[DK_FEN_MAX];
                int n = dk_fen_format(v, &p, alg, buf, sizeof buf);
                assert_true(n < DK_FEN_MAX);
                /* the parser's verdict is the position's (a side may be empty) */
                dk_pos q;
                char err[DK_ERR_MAX];
                dk_verdict k = dk_fen_read(v, buf, (size_t)n, &q, err, sizeof err);
                assert_int_equal(k, dk_pos_verdict(v, &p, NULL, 0));
                if (!dk_verdict_refused(k))
                    assert_true(dk_pos_equal(&p, &q));
            }
        }
    }
}

static void bad(const dk_variant *v, const char *fen)
{
    dk_pos p;
    char err[DK_ERR_MAX] = "";
    if (dk_fen_parse(v, fen, &p, err, sizeof err) == 0)
        fail_msg("'%s' accepted for %s", fen, v->name);
    assert_true(err[0] != 0);
    assert_null(strchr(err, '\n'));
}

/* A refusal quotes the token at fault, not the rest of the FEN, and says why. */
static void bad_says(const dk_variant *v, const char *fen, const char *want)
{
    dk_pos p;
    char err[DK_ERR_MAX] = "";
    if (dk_fen_parse(v, fen, &p, err, sizeof err) == 0)
        fail_msg("'%s' accepted for %s", fen, v->name);
    if (!strstr(err, want))
        fail_msg("'%s' for %s: '%s' does not say '%s'", fen, v->name, err, want);
}

static void test_bad_square_messages(void **state)
{
    (void)state;
    bad_says(braz(), "W:Wa2:Bh8", "bad square 'a2': a light square");
    bad_says(braz(), "W:Wh8,a2:B1", "bad square 'a2': a light square");
    bad_says(braz(), "W:Wi1:B1", "bad square 'i1': no file i");
    bad_says(braz(), "W:Wa9:B1", "bad square 'a9': no rank 9");
    bad_says(braz(), "W:W33:B1", "bad square '33': the brazilian board has squares 1-32");
    bad_says(braz(), "W:W30:Bxyz", "bad square 'xyz' ");
    bad_says(braz(), "W:W30,,31:B1", "missing square before ','");
    bad_says(braz(), "W:WK:B1", "missing square before ':'");
    bad_says(braz(), "W:W30-28:B1", "bad range '30-28'");
    bad_says(braz(), "W:W30-:B1", "missing range end before ':'");
    bad_says(braz(), "W:W1-33:B1", "bad range end '33'");
    bad_says(intl(), "W:Wa1:B1", "bad square 'a1': algebraic squares are for 8x8 boards");
    bad_says(intl(), "W:W99999999999999:B1", "bad square '999999999999...'");
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *both[] = {
        "", "W", "W:", "X:W1:B2", "w:W30:B1", "W:W30", "W:W30:B1:W31", "W:W30:B30",
        "W:W0:B1", "W:W30:B1x", "W:W30,,31:B1", "W:WK:B1", "W:W30-28:B1", "W:W30-:B1",
        "W:W1:B30", "W:W30:B1 2", "W:W1-3:B30", "W:W-3:B30", "W:W3O:B1", "W:W99999999999999:B1",
    };
    for (size_t i = 0; i < sizeof both / sizeof *both; i++) {
        bad(braz(), both[i]);
        bad(intl(), both[i]);
    }
    bad(braz(), "W:W33:B1");          /* no square 33 on 8x8 */
    bad(intl(), "W:W51:B1");          /* no square 51 on 10x10 */
    bad(braz(), "W:Wa2:B1");          /* a light square */
    bad(braz(), "W:Wi1:B1");          /* no file i */
    bad(braz(), "W:Wa9:B1");          /* no rank 9 */
    bad(intl(), "W:Wa1:B1");          /* algebraic is for 8x8 only */
    bad(braz(), "W:W13-32:B1");       /* 20 white pieces */
    bad(intl(), "W:W21-41:B1");       /* 21 white pieces */
    bad(braz(), "W:W30:B29");         /* black man on its promotion row */
    bad(intl(), "W:W30:B46");
    bad(braz(), "W:W30:B1,K1");       /* the same square twice */
    bad(braz(), "W:W30:B1-3,2");
    bad(braz(), "W:W5,:B1");          /* an empty square field */
    bad(braz(), "W:W5,");
    bad(braz(), "W:W5:B1:");          /* an empty field at the end */
}

/* One verdict for one text: dk_fen_read's kinds, and the same through dk_fen_parse. */
static void verdict(const dk_variant *v, const char *text, size_t len, dk_verdict want, const char *says)
{
    dk_pos p = {{0, 0}, 0, DK_WHITE};
    char err[DK_ERR_MAX] = "";
    dk_verdict k = dk_fen_read(v, text, len, &p, err, sizeof err);
    if (k != want)
        fail_msg("'%.*s' for %s: verdict %d, want %d (%s)", (int)len, text, v->name, (int)k, (int)want, err);
    if (says && !strstr(err, says))
        fail_msg("'%.*s' for %s: '%s' does not say '%s'", (int)len, text, v->name, err, says);
    if (dk_verdict_refused(k))
        assert_true(err[0] && !strchr(err, '\n'));
    if (len == strlen(text))
        assert_int_equal(dk_fen_parse(v, text, &p, NULL, 0), dk_verdict_refused(k) ? -1 : 0);
}

static void test_verdicts(void **state)
{
    (void)state;
    const dk_variant *b = braz();
#define V(text, want, says) verdict(b, text, sizeof text - 1, want, says)
    V("W:WK25,K29:BK4", DK_VERDICT_PLAY, NULL);
    V("B:WK5:B", DK_VERDICT_GAME_OVER, NULL);      /* Black to move has no piece: it has lost */
    V("W:W:BK5", DK_VERDICT_GAME_OVER, NULL);
    V("W:WK5:B", DK_VERDICT_IMPOSSIBLE, "Black, not to move, has no piece");
    V("W:W:B", DK_VERDICT_IMPOSSIBLE, "no piece on the board");
    V("W:W30:B29", DK_VERDICT_IMPOSSIBLE, "a man on its own promotion row");
    V("W:WK1,K2,K3,K4,K5:B32", DK_VERDICT_IMPOSSIBLE, "promotion row");
    V("W:W13-32:B1", DK_VERDICT_IMPOSSIBLE, "more pieces on a side");
    V("W:W5,:B1", DK_VERDICT_MALFORMED, "missing square before ':'");
    V("W:W5:B1,", DK_VERDICT_MALFORMED, "missing square at the end");
    V("W:W5:B1:", DK_VERDICT_MALFORMED, "an empty field");
    V("W:W5\0:B1", DK_VERDICT_MALFORMED, "NUL byte (byte 5)");
    V("W:W5\t6:B1", DK_VERDICT_MALFORMED, "'\\t' (byte 5)");
    V("W:W5\x01:B1", DK_VERDICT_MALFORMED, "'\\x01'");
    V("W:W5:B1\xff", DK_VERDICT_MALFORMED, "'\\xff'");
    V("W:W5 6:B1", DK_VERDICT_MALFORMED, "space");
    /* lidraughts' fields: accepted after the pieces, in either order, each once, with a number */
    V("W:WK25,K29:BK4:H0:F1", DK_VERDICT_PLAY, NULL);
    V("W:WK25,K29:BK4:F12:H3", DK_VERDICT_PLAY, NULL);
    V("B:WK5:B:H0:F1", DK_VERDICT_GAME_OVER, NULL);
    V("W:WK25,K29:BK4:H", DK_VERDICT_MALFORMED, "bad field 'H'");
    V("W:WK25,K29:BK4:Hx", DK_VERDICT_MALFORMED, "bad field 'Hx'");
    V("W:WK25,K29:BK4:H1:H2", DK_VERDICT_MALFORMED, "twice");
    V("W:WK25,K29:H0:BK4", DK_VERDICT_MALFORMED, "'W' or 'B'");
    V("W:WK25,K29:BK4:H0:W1", DK_VERDICT_MALFORMED, "lidraughts' H<n> or F<n> field");
    V("W:WK25,K29:BK4:G3", DK_VERDICT_MALFORMED, "got 'G3'");
#undef V
    char big[400];
    memset(big, '0', sizeof big - 1);
    big[sizeof big - 1] = 0; /* a string: verdict() compares its length */
    memcpy(big, "W:W", 3);
    verdict(b, big, DK_FEN_TEXT_MAX + 1, DK_VERDICT_MALFORMED, "FEN too long: 256 bytes, at most 255");
    /* the same position with a padded square is at the bound: it parses */
    snprintf(big, sizeof big, "W:WK%0*d:BK4", DK_FEN_TEXT_MAX - 8, 25);
    verdict(b, big, strlen(big), DK_VERDICT_PLAY, NULL);
}

static void test_quote(void **state)
{
    (void)state;
    char q[DK_QUOTE_MAX], big[200];
    assert_string_equal(dk_quote("W:W5", 4, q, sizeof q), "W:W5");
    assert_string_equal(dk_quote("a\tb\0c\x7f\\", 7, q, sizeof q), "a\\tb\\x00c\\x7f\\\\");
    memset(big, 'x', sizeof big);
    dk_quote(big, sizeof big, q, sizeof q);
    assert_int_equal(strlen(q), DK_QUOTE_CHARS + 3);
    assert_string_equal(q + DK_QUOTE_CHARS, "...");
    memset(big, 1, sizeof big); /* the longest quote fits DK_QUOTE_MAX */
    dk_quote(big, sizeof big, q, sizeof q);
    assert_int_equal(strlen(q), 4 * DK_QUOTE_CHARS + 3);
    dk_quote(big, sizeof big, q, 10); /* a small buffer: cut, still ended */
    assert_string_equal(q, "\\x01...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_positions),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_bad_square_messages),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_quote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
