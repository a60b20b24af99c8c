/* The block pool shared by the files a thread reads (gen/store/blockpool.h): slots go to released
 * ones first, then to untouched ones, then to the clock's choice whichever reader holds it;
 * the reader that loses a block sees it gone from its map; blocks read since the clock's
 * last pass get a second chance; the memory comes back when the pool idles (but for the part
 * it keeps); a bound keeps the slots handed out to the pool's first ones. Checked against a
 * model of the policy, step by step. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <string.h>

#include "../gen/store/blockpool.h"

enum { SLOT = 64, BLOCKS = 40 };

/* Fills the slot taken for block b of a reader with a pattern naming both. */
static void fill(uint8_t *mem, int reader, uint64_t b)
{
    memset(mem, (int)(reader * 64 + b), SLOT);
}

static void expect_content(const uint8_t *mem, int reader, uint64_t b)
{
    for (int i = 0; i < SLOT; i++)
        assert_int_equal(mem[i], (uint8_t)(reader * 64 + b));
}

static int held(const int32_t *map)
{
    int n = 0;
    for (int b = 0; b < BLOCKS; b++)
        n += map[b] >= 0;
    return n;
}

static void test_shared_between_readers(void **state)
{
    (void)state;
    dk_block_pool *p = dk_block_pool_new(4 * SLOT + SLOT / 2, SLOT); /* 4 slots */
    assert_non_null(p);
    assert_int_equal(dk_block_pool_slot_bytes(p), SLOT);
    int32_t a[BLOCKS], b[BLOCKS];
    memset(a, 0xff, sizeof a);
    memset(b, 0xff, sizeof b);
    /* one reader may take every slot when the other reads nothing */
    for (uint64_t k = 0; k < 4; k++)
        fill(dk_block_pool_take(p, a, k), 0, k);
    assert_int_equal(held(a), 4);
    for (uint64_t k = 0; k < 4; k++)
        expect_content(dk_block_pool_get(p, a, k), 0, k);
    /* all four were read since: the clock clears them all, then takes the slot at its hand
     * (block 0's) from reader a for reader b */
    fill(dk_block_pool_take(p, b, 7), 1, 7);
    assert_int_equal(a[0], -1);
    assert_int_equal(held(a), 3);
    expect_content(dk_block_pool_get(p, b, 7), 1, 7);
    /* block 1 is read again: its second chance spares it, block 2 goes */
    dk_block_pool_get(p, a, 1);
    fill(dk_block_pool_take(p, b, 8), 1, 8);
    assert_true(a[1] >= 0);
    assert_int_equal(a[2], -1);
    expect_content(dk_block_pool_get(p, a, 1), 0, 1);
    expect_content(dk_block_pool_get(p, a, 3), 0, 3);
    /* a released slot is handed out before any held block is taken */
    dk_block_pool_release(p, a, 3);
    assert_int_equal(a[3], -1);
    dk_block_pool_release(p, a, 3); /* not held: nothing happens */
    fill(dk_block_pool_take(p, b, 9), 1, 9);
    assert_true(a[1] >= 0);
    assert_int_equal(held(b), 3);
    expect_content(dk_block_pool_get(p, a, 1), 0, 1);
    for (uint64_t k = 7; k <= 9; k++)
        expect_content(dk_block_pool_get(p, b, k), 1, k);
    dk_block_pool_free(p);
}

static void test_idle_and_reuse(void **state)
{
    (void)state;
    dk_block_pool *p = dk_block_pool_new(8 * SLOT, SLOT);
    int32_t a[BLOCKS];
    memset(a, 0xff, sizeof a);
    for (uint64_t round = 0; round < 3; round++) {
        /* a cyclic sweep larger than the pool: every block read is the one asked for */
        for (uint64_t k = 0; k < BLOCKS; k++) {
            uint64_t blk = (k * 7) % BLOCKS;
            if (a[blk] >= 0)
                expect_content(dk_block_pool_get(p, a, blk), 0, blk);
            else
                fill(dk_block_pool_take(p, a, blk), 0, blk);
            assert_true(held(a) <= 8);
        }
        for (uint64_t k = 0; k < BLOCKS; k++)
            dk_block_pool_release(p, a, k);
        assert_int_equal(held(a), 0);
        dk_block_pool_idle(p, 0);
    }
    /* after idling, slots come back in order and hold what is written */
    fill(dk_block_pool_take(p, a, 5), 0, 5);
    expect_content(dk_block_pool_get(p, a, 5), 0, 5);
    dk_block_pool_release(p, a, 5);
    dk_block_pool_free(p);
}

/* Slots of a page each: what idling gives back reads as zero, what it keeps as written. */
static void test_bound_and_keep(void **state)
{
    (void)state;
    enum { PAGE = 4096 };
    dk_block_pool *p = dk_block_pool_new(8 * PAGE, PAGE);
    assert_non_null(p);
    int32_t a[BLOCKS];
    memset(a, 0xff, sizeof a);
    uint8_t *first = dk_block_pool_take(p, a, 0), *most = first;
    dk_block_pool_release(p, a, 0);
    /* bound to 3 slots: a sweep over every block holds 3 at most, all among the first 3 */
    dk_block_pool_bound(p, 3 * PAGE + PAGE / 2);
    for (uint64_t round = 0; round < 2; round++)
        for (uint64_t k = 0; k < BLOCKS; k++) {
            uint8_t *m = dk_block_pool_take(p, a, k);
            assert_true(m >= first && m < first + 3 * PAGE);
            memset(m, (int)(k + 1), PAGE);
            assert_true(held(a) <= 3);
        }
    for (uint64_t k = 0; k < BLOCKS; k++)
        dk_block_pool_release(p, a, k);
    /* unbound: all 8 again */
    dk_block_pool_bound(p, 0);
    for (uint64_t k = 0; k < 8; k++) {
        uint8_t *m = dk_block_pool_take(p, a, k);
        most = m > most ? m : most;
        memset(m, (int)(k + 1), PAGE);
    }
    assert_int_equal(held(a), 8);
    assert_ptr_equal(most, first + 7 * PAGE);
    for (uint64_t k = 0; k < 8; k++)
        dk_block_pool_release(p, a, k);
    /* idle keeping 2 slots' bytes: slots come back from the first, 0 and 1 as they were, the
     * others zero */
    dk_block_pool_idle(p, 2 * PAGE);
    for (uint64_t k = 0; k < 8; k++) {
        const uint8_t *m = dk_block_pool_take(p, a, k);
        assert_ptr_equal(m, first + k * PAGE);
        assert_int_equal(m[0], k < 2 ? (uint8_t)(k + 1) : 0);
        assert_int_equal(m[PAGE - 1], k < 2 ? (uint8_t)(k + 1) : 0);
    }
    for (uint64_t k = 0; k < 8; k++)
        dk_block_pool_release(p, a, k);
    dk_block_pool_free(p);
}

/* A limit set while blocks are held: those within stay as written, those beyond are taken
 * from their reader and their pages read as zero once handed out again. */
static void test_limit_while_held(void **state)
{
    (void)state;
    enum { PAGE = 4096 };
    dk_block_pool *p = dk_block_pool_new(8 * PAGE, PAGE);
    assert_non_null(p);
    assert_int_equal(dk_block_pool_slots(p), 8);
    int32_t a[BLOCKS];
    memset(a, 0xff, sizeof a);
    uint8_t *first = dk_block_pool_take(p, a, 0);
    memset(first, 1, PAGE);
    for (uint64_t k = 1; k < 6; k++)
        memset(dk_block_pool_take(p, a, k), (int)(k + 1), PAGE);
    dk_block_pool_release(p, a, 1); /* a free slot within the limit, kept free */
    dk_block_pool_limit(p, 3 * PAGE + PAGE / 2);
    assert_int_equal(held(a), 2);
    assert_true(a[0] == 0 && a[2] == 2 && a[1] < 0 && a[3] < 0 && a[5] < 0);
    assert_int_equal(dk_block_pool_get(p, a, 2)[PAGE - 1], 3);
    /* a sweep within the limit: the free slot first, then the clock among the first 3 */
    for (uint64_t k = 6; k < BLOCKS; k++) {
        uint8_t *m = dk_block_pool_take(p, a, k);
        assert_true(m >= first && m < first + 3 * PAGE);
        assert_true(held(a) <= 3);
    }
    /* a limit of more than the pool: all 8, the slots given back read as zero */
    dk_block_pool_limit(p, 100 * PAGE);
    for (uint64_t k = 0; k < BLOCKS; k++)
        dk_block_pool_release(p, a, k);
    for (uint64_t k = 0; k < 8; k++) {
        const uint8_t *m = dk_block_pool_take(p, a, k);
        if (m >= first + 3 * PAGE)
            assert_int_equal(m[0], 0);
    }
    assert_int_equal(held(a), 8);
    dk_block_pool_limit(p, 0); /* at least one slot */
    assert_int_equal(held(a), 1);
    dk_block_pool_free(p);
}

static void test_tiny_pool(void **state)
{
    (void)state;
    /* less than a slot's bytes: still one slot, taken in turn */
    dk_block_pool *p = dk_block_pool_new(1, SLOT);
    int32_t a[BLOCKS];
    memset(a, 0xff, sizeof a);
    for (uint64_t k = 0; k < 5; k++) {
        fill(dk_block_pool_take(p, a, k), 0, k);
        assert_int_equal(held(a), 1);
        expect_content(dk_block_pool_get(p, a, k), 0, k);
    }
    dk_block_pool_release(p, a, 4);
    dk_block_pool_free(p);
    dk_block_pool_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_between_readers),
        cmocka_unit_test(test_idle_and_reuse),
        cmocka_unit_test(test_bound_and_keep),
        cmocka_unit_test(test_limit_while_held),
        cmocka_unit_test(test_tiny_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
