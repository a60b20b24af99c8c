/* Tables replaced while an engine probes them: a newer generation renamed over the files a
 * handle has open. Threads probe a sample of positions again and again, with a cache far
 * smaller than the tables (so blocks are read from the files all the time), one on a handle
 * opened before any replacement, one on handles opened afresh; meanwhile every table file is
 * replaced, by rename, with an identical copy and with a copy that has a damaged block. No probe
 * may ever give a wrong value: the old handle keeps reading the files it opened, a new handle
 * reads the new ones and says DAMAGED where they are.
 * Needs DK_TABLES (Brazilian up to 4 pieces); tests/probe.sh sets it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../query/damka.h"
#include "support.h"

enum { SAMPLE = 4000, ROUNDS = 3 };

static char copy_dir[] = "/tmp/damka-test-replace-XXXXXX";
static damka_position sample[SAMPLE];
static damka_value expected[SAMPLE];
static atomic_int stop;
static atomic_long wrong, damaged, probes;

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* Probes the sample once through tb; counts what it sees. */
static void probe_sample(damka_tb *tb)
{
    for (int i = 0; i < SAMPLE && !atomic_load(&stop); i++) {
        damka_value v;
        damka_status st = damka_probe_dtw(tb, &sample[i], &v);
        atomic_fetch_add(&probes, 1);
        if (st == DAMKA_DAMAGED || st == DAMKA_NOT_IN_TABLES)
            atomic_fetch_add(&damaged, 1);
        else if (st != DAMKA_OK || v.wdl != expected[i].wdl || v.dtw != expected[i].dtw)
            atomic_fetch_add(&wrong, 1);
    }
}

static void *old_handle(void *arg)
{
    damka_tb *tb = arg;
    while (!atomic_load(&stop))
        probe_sample(tb);
    return NULL;
}

static void *fresh_handles(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        damka_status st;
        damka_tb *tb = damka_open(copy_dir, "brazilian", 1, &st);
        if (tb)
            probe_sample(tb);
        damka_close(tb);
    }
    return NULL;
}

/* Every table file of dir, replaced by rename: with the original's bytes, or with a byte of its
 * middle flipped (a damaged block). */
static void replace_all(const char *orig, bool damage)
{
    DIR *d = opendir(copy_dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 4 || (strcmp(e->d_name + n - 4, ".dtw") != 0 && strcmp(e->d_name + n - 4, ".wld") != 0))
            continue;
        char from[4096], tmp[4096], to[4096];
        snprintf(from, sizeof from, "%s/%s", orig, e->d_name);
        snprintf(tmp, sizeof tmp, "%s/%s.new", copy_dir, e->d_name);
        snprintf(to, sizeof to, "%s/%s", copy_dir, e->d_name);
        copy_file(from, tmp);
        if (damage) {
            FILE *f = fopen(tmp, "r+b");
            fseek(f, 0, SEEK_END);
            long len = ftell(f);
            fseek(f, len / 2, SEEK_SET);
            int c = fgetc(f);
            fseek(f, len / 2, SEEK_SET);
            fputc(c ^ 0x20, f);
            fclose(f);
        }
        assert_int_equal(rename(tmp, to), 0);
    }
    closedir(d);
}

static void test_replaced_while_probing(void **state)
{
    (void)state;
    const char *orig = getenv("DK_TABLES");
    if (!orig || !*orig) {
        print_message("DK_TABLES is not set: skipped (tests/probe.sh sets it)\n");
        skip();
    }
    assert_non_null(mkdtemp(copy_dir));
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cp %s/*.wld %s/*.dtw %s/*.dtc %s/", orig, orig, orig, copy_dir);
    assert_int_equal(system(cmd), 0);

    damka_status st;
    damka_tb *ref = damka_open(orig, "brazilian", 64, &st);
    assert_non_null(ref);
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    test_rng r = {2026};
    for (int i = 0; i < SAMPLE;) { /* positions with pieces of both sides */
        dk_pos p = test_random_pos(v, &r, 2 + (int)test_rand_below(&r, 3), 50);
        sample[i] = (damka_position){p.pieces[DK_WHITE], p.pieces[DK_BLACK], p.kings, p.side == DK_BLACK};
        if (p.pieces[DK_WHITE] && p.pieces[DK_BLACK]) {
            assert_int_equal(damka_probe_dtw(ref, &sample[i], &expected[i]), DAMKA_OK);
            i++;
        }
    }
    damka_close(ref);

    damka_tb *old = damka_open(copy_dir, "brazilian", 1, &st); /* 1 MiB: blocks come and go */
    assert_non_null(old);
    probe_sample(old); /* every file it needs is open before the first replacement */
    pthread_t a, b;
    assert_int_equal(pthread_create(&a, NULL, old_handle, old), 0);
    assert_int_equal(pthread_create(&b, NULL, fresh_handles, NULL), 0);
    for (int round = 0; round < ROUNDS; round++) {
        replace_all(orig, false);
        usleep(200000);
        replace_all(orig, true);
        usleep(200000);
    }
    replace_all(orig, false);
    usleep(200000);
    atomic_store(&stop, 1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    damka_close(old);
    print_message("%ld probes while every table was replaced %d times: %ld wrong, %ld DAMAGED\n",
                  atomic_load(&probes), 2 * ROUNDS + 1, atomic_load(&wrong), atomic_load(&damaged));
    assert_int_equal(atomic_load(&wrong), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", copy_dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_replaced_while_probing)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
