/* The generator's two readers of finished tables, the solver's (gen/solve/finished.h) and
 * verification's own (gen/check/checktables.h), block by block, against libdamka's probe
 * (query/tablebase.h) on every position of real tables, with a budget that holds every block
 * and with one that holds none (every read decodes its block again, and a resolution keeps
 * only the blocks it is using), and for the second with its room cut and given back while it
 * reads: the same DTW and rule values everywhere, capture positions (resolved through their
 * captures) included.
 *
 * Needs Brazilian tables up to 4 pieces with the draw rule in the directory DK_TABLES
 * (tests/probe.sh makes them and runs this test); without DK_TABLES it is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../gen/check/checktables.h"
#include "../gen/solve/finished.h"
#include "../gen/sched/subslice.h"
#include "../query/drawrule.h"
#include "../query/tablebase.h"
#include "../rules/notation.h"

static const char *DIR_;

static int setup(void **state)
{
    (void)state;
    DIR_ = getenv("DK_TABLES");
    return 0;
}

/* A reader's values of p (of material m): 0, or -1 with one line in err. */
typedef int (*reader_fn)(void *reader, dk_material m, const dk_pos *p, dk_value out[2], char *err, size_t errlen);

static int solver_reader(void *f, dk_material m, const dk_pos *p, dk_value out[2], char *err, size_t errlen)
{
    return dk_finished_value(f, m, p, out, err, errlen);
}

static int check_reader(void *t, dk_material m, const dk_pos *p, dk_value out[2], char *err, size_t errlen)
{
    return dk_check_tables_value(t, m, p, out, err, errlen);
}

/* Called between two materials (k: the one read next) to change a reader's state. */
typedef void (*between_fn)(void *reader, size_t k);

/* Every position of every material up to 4 pieces through `read` of reader, against tb. */
static void compare_all(reader_fn read, void *reader, between_fn between, dk_tablebase *tb)
{
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    dk_material ms[64];
#ifdef __SANITIZE_ADDRESS__
    const int pieces = 3; /* about 8 times slower under the sanitizers */
#else
    const int pieces = 4;
#endif
    size_t n = dk_material_list(v, pieces, 0, ms, 64);
    assert_true(n > 0 && n <= 64);
    uint64_t positions = 0;
    for (size_t k = 0; k < n; k++) {
        if (between)
            between(reader, k);
        dk_index ix;
        assert_int_equal(dk_index_init(&ix, v, ms[k]), 0);
        for (uint64_t men = 0; men < ix.men_count; men++) {
            dk_subslice_iter it;
            dk_subslice_begin(&it, &ix, men);
            do {
                dk_value got[2], want[2] = {0, DK_RULE_DRAW};
                char err[512];
                if (read(reader, ms[k], &it.pos, got, err, sizeof err) != 0)
                    fail_msg("%s", err);
                assert_int_equal(dk_tb_probe_normal(tb, ms[k], &it.pos, DK_METRIC_DTW, &want[0]), DK_OK);
                assert_int_equal(dk_tb_probe_normal(tb, ms[k], &it.pos, DK_METRIC_DTC, &want[1]), DK_OK);
                assert_int_equal(got[0], want[0]);
                assert_int_equal(got[1], want[1]);
                positions++;
            } while (dk_subslice_next(&it));
        }
    }
    assert_true(positions > 10000);
}

static void test_every_position(void **state)
{
    (void)state;
    if (!DIR_ || !*DIR_) {
        print_message("DK_TABLES is not set: skipped (tests/probe.sh sets it)\n");
        skip();
    }
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    dk_tablebase *tb = dk_tb_open(DIR_, v, NULL);
    assert_non_null(tb);
    unsigned limit = dk_tb_rule_limit(tb);
    assert_true(limit > 0);
    uint64_t budgets[2] = {(uint64_t)1 << 30, 1};
    dk_finished_counters c[2];
    for (int b = 0; b < 2; b++) {
        dk_finished *f = dk_finished_new(DIR_, v, limit, budgets[b]);
        assert_non_null(f);
        compare_all(solver_reader, f, NULL, tb);
        c[b] = dk_finished_get_counters(f);
        dk_finished_free(f);
    }
    /* the ample budget decodes each block once and drops none; the empty one drops all the time */
    assert_int_equal(c[0].evictions, 0);
    assert_true(c[1].loads > 10 * c[0].loads && c[1].evictions + 8 > c[1].loads);
    assert_true(c[0].resolved > 0 && c[1].resolved >= c[0].resolved);
    dk_tb_close(tb);
}

/* The check's room: cut to nothing for every third material, given back for the next. */
static void change_room(void *t, size_t k)
{
    dk_check_tables_set_room(t, k % 3 == 1 ? 1 : (uint64_t)1 << 30);
}

static void test_check_reader(void **state)
{
    (void)state;
    if (!DIR_ || !*DIR_)
        skip();
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    dk_tablebase *tb = dk_tb_open(DIR_, v, NULL);
    assert_non_null(tb);
    unsigned limit = dk_tb_rule_limit(tb);
    /* an ample room, none, and one that changes; the address space reserved for 1 GiB */
    const uint64_t rooms[3] = {(uint64_t)1 << 30, 1, (uint64_t)1 << 30};
    dk_check_tables_counters c[3];
    for (int b = 0; b < 3; b++) {
        dk_check_tables *t = dk_check_tables_new(DIR_, v, limit, rooms[b], (uint64_t)1 << 30);
        assert_non_null(t);
        compare_all(check_reader, t, b == 2 ? change_room : NULL, tb);
        c[b] = dk_check_tables_get_counters(t);
        dk_check_tables_free(t);
    }
    /* the ample room decodes each block once, and resolves each capture position once */
    assert_true(c[0].resolved > 0 && c[1].resolved >= c[0].resolved);
    assert_true(c[1].loads > 10 * c[0].loads);
    assert_true(c[2].loads > c[0].loads && c[2].loads < c[1].loads);
    dk_tb_close(tb);
}

/* A table that is not there, and a material no table holds: an error, not a value. */
static void test_missing(void **state)
{
    (void)state;
    if (!DIR_ || !*DIR_)
        skip();
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    dk_finished *f = dk_finished_new(DIR_, v, 30, 1 << 20);
    assert_non_null(f);
    dk_pos p;
    char err[512];
    assert_int_equal(dk_fen_parse(v, "W:W21,22,23:B1,2", &p, err, sizeof err), 0);
    dk_value out[2];
    assert_int_equal(dk_finished_value(f, dk_material_of(&p), &p, out, err, sizeof err), -1);
    assert_non_null(strstr(err, "3m0k-2m0k"));
    dk_finished_free(f);
    dk_check_tables *t = dk_check_tables_new(DIR_, v, 30, 1 << 20, 1 << 20);
    assert_non_null(t);
    err[0] = 0;
    assert_int_equal(dk_check_tables_value(t, dk_material_of(&p), &p, out, err, sizeof err), -1);
    assert_non_null(strstr(err, "3m0k-2m0k"));
    dk_check_tables_free(t);
    /* tables of another draw rule than the run's: refused, not read */
    dk_tablebase *tb = dk_tb_open(DIR_, v, NULL);
    assert_non_null(tb);
    unsigned limit = dk_tb_rule_limit(tb);
    dk_tb_close(tb);
    t = dk_check_tables_new(DIR_, v, limit + 2, 1 << 20, 1 << 20);
    assert_non_null(t);
    assert_int_equal(dk_fen_parse(v, "W:WK1:BK32", &p, err, sizeof err), 0);
    assert_int_equal(dk_check_tables_value(t, dk_material_of(&p), &p, out, err, sizeof err), -1);
    assert_non_null(strstr(err, "draw rule"));
    dk_check_tables_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_position),
        cmocka_unit_test(test_check_reader),
        cmocka_unit_test(test_missing),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
