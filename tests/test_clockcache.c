/* The clock of `damka plan`'s rank caches (gen/store/clockcache.h) against a plain model of the same
 * clock: a byte of state a key, found by scanning the ring. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../gen/store/clockcache.h"

enum { KEYS = 3 * DK_CLOCK_PAGE + 17, STEPS = 200000 };

/* The plain model: state[key] 0 (not held), 1 (held), 2 (held, read since the hand passed). */
typedef struct plain {
    uint8_t state[KEYS];
    uint32_t ring[KEYS];
    uint64_t bytes[KEYS];
    size_t n, hand;
    uint64_t held;
} plain;

static bool plain_read(plain *p, uint32_t key)
{
    if (!p->state[key])
        return false;
    p->state[key] = 2;
    return true;
}

static void plain_add(plain *p, uint32_t key, uint64_t bytes, uint64_t limit)
{
    while (p->held + bytes > limit && p->n) {
        if (p->hand >= p->n)
            p->hand = 0;
        uint32_t k = p->ring[p->hand];
        if (p->state[k] == 2) {
            p->state[k] = 1;
            p->hand++;
            continue;
        }
        p->state[k] = 0;
        p->held -= p->bytes[k];
        p->ring[p->hand] = p->ring[--p->n];
    }
    p->ring[p->n++] = key;
    p->bytes[key] = bytes;
    p->state[key] = 2;
    p->held += bytes;
}

/* Reads of keys, mostly near the last one (as a unit reads its chunks), of sizes by key, under
 * a limit that holds a few dozen: both agree on every read and on the bytes held. */
static void test_same_as_plain(void **state)
{
    (void)state;
    static plain p;
    dk_clock c;
    assert_int_equal(dk_clock_init(&c, KEYS), 0);
    srand(7);
    uint32_t key = 0;
    for (int i = 0; i < STEPS; i++) {
        key = rand() % 4 ? (key + (uint32_t)(rand() % 9)) % KEYS : (uint32_t)(rand() % KEYS);
        uint64_t bytes = 1 + key % 13, limit = 400;
        int held = dk_clock_read(&c, key);
        assert_int_equal(held, plain_read(&p, key));
        if (!held) {
            assert_int_equal(dk_clock_add(&c, key, bytes, limit), 0);
            plain_add(&p, key, bytes, limit);
        }
        assert_int_equal(c.held, p.held);
        assert_int_equal(c.n, p.n);
    }
    for (size_t i = 0; i < p.n; i++)
        assert_int_equal(c.ring[i].key, p.ring[i]);
    dk_clock_free(&c);
}

/* An entry larger than the limit empties the cache and is held alone. */
static void test_too_large(void **state)
{
    (void)state;
    dk_clock c;
    assert_int_equal(dk_clock_init(&c, KEYS), 0);
    for (uint32_t k = 0; k < 10; k++) {
        assert_int_equal(dk_clock_read(&c, k), 0);
        assert_int_equal(dk_clock_add(&c, k, 10, 100), 0);
    }
    assert_int_equal(c.held, 100);
    assert_int_equal(dk_clock_read(&c, KEYS - 1), 0);
    assert_int_equal(dk_clock_add(&c, KEYS - 1, 1000, 100), 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.held, 1000);
    assert_int_equal(dk_clock_read(&c, 3), 0);
    assert_int_equal(dk_clock_read(&c, KEYS - 1), 1);
    dk_clock_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_plain),
        cmocka_unit_test(test_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
