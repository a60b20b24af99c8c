/* Tables replaced while an engine probes them: a newer generation renamed over the files a
 * handle has open. Threads probe a sample of positions again and again, with a cache far
 * smaller than the tables (so blocks are read from the files all the time), one on a handle
 * opened before any replacement, one on handles opened afresh; meanwhile every table file is
 * replaced, by rename, with an identical copy and with a copy that has a damaged block. No probe
 * may ever give a wrong value: the old handle keeps reading the files it opened, a new handle
 * reads the new ones and says DAMAGED where they are.
 * The second test changes one table file in place under a thread probing through an open
 * handle (truncated, rewritten with the same or other bytes, deleted): the process lives on,
 * that table answers right or DAMAGED (DAMAGED for good once a read has seen the change),
 * every other material answers right.
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
#include <time.h>
#include <unistd.h>

#include "../index/perfect.h"
#include "../rules/movegen.h"

#include "../query/damka.h"
#include "support.h"

enum { SAMPLE = 4000, ROUNDS = 3 };

static char copy_dir[] = "/tmp/damka-test-replace-XXXXXX";
static damka_position sample[SAMPLE];
static damka_value expected[SAMPLE];
static const char VICTIM[] = "brazilian-1m2k-0m1k.dtw"; /* the file the second test changes */
static bool of_victim[SAMPLE]; /* the sample position is read from the victim (its material, no capture) */
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

/* --- one file changed in place under a probing thread --- */

static atomic_long other_wrong, victim_damaged;

/* Whether a probe's answer is right: the expected value, or DAMAGED for the victim's file. */
static bool answer_ok(int i, damka_status st, const damka_value *v)
{
    if (st == DAMKA_DAMAGED)
        return of_victim[i] && strstr(damka_last_error(), VICTIM) != NULL;
    return st == DAMKA_OK && v->wdl == expected[i].wdl && v->dtw == expected[i].dtw;
}

static void *probe_until_stopped(void *arg)
{
    damka_tb *tb = arg;
    while (!atomic_load(&stop))
        for (int i = 0; i < SAMPLE && !atomic_load(&stop); i++) {
            damka_value v;
            damka_status st = damka_probe_dtw(tb, &sample[i], &v);
            if (!answer_ok(i, st, &v))
                atomic_fetch_add(&other_wrong, 1);
            else if (st == DAMKA_DAMAGED)
                atomic_fetch_add(&victim_damaged, 1);
        }
    return NULL;
}

static void truncate_half(const char *path, const char *orig_dir)
{
    (void)orig_dir;
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fclose(f);
    assert_int_equal(truncate(path, len / 2), 0);
}

/* Rewritten in place (`cp new old`: the same inode, cut to nothing, then written) with the
 * very bytes it had, or with another table's. */
static void rewrite_same(const char *path, const char *orig_dir)
{
    char from[4096];
    snprintf(from, sizeof from, "%s/%s", orig_dir, VICTIM);
    copy_file(from, path);
}

static void rewrite_other(const char *path, const char *orig_dir)
{
    char from[4096];
    snprintf(from, sizeof from, "%s/brazilian-2m1k-0m1k.dtw", orig_dir);
    copy_file(from, path);
}

static void delete_file(const char *path, const char *orig_dir)
{
    (void)orig_dir;
    assert_int_equal(unlink(path), 0);
}

/* Probes the victim's positions until one says DAMAGED (the thread beside evicts its blocks
 * from the small cache, so reads of the file come); false if none does within 20 s. */
static bool victim_seen_damaged(damka_tb *tb)
{
    time_t until = time(NULL) + 20;
    while (time(NULL) < until)
        for (int i = 0; i < SAMPLE; i++) {
            damka_value v;
            if (of_victim[i] && damka_probe_dtw(tb, &sample[i], &v) == DAMKA_DAMAGED)
                return true;
        }
    return false;
}

/* Changes the victim's file of a fresh copy with `change` while a thread probes through a
 * handle that has it open; damaged: whether the change must make the victim DAMAGED. */
static void change_under_probe(const char *orig, const char *what,
                               void (*change)(const char *path, const char *orig_dir), bool damaged)
{
    char cmd[8192], path[4096];
    assert_non_null(mkdtemp(strcpy(copy_dir, "/tmp/damka-test-replace-XXXXXX")));
    snprintf(cmd, sizeof cmd, "cp %s/*.wld %s/*.dtw %s/*.dtc %s/", orig, orig, orig, copy_dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/%s", copy_dir, VICTIM);
    damka_status st;
    damka_tb *tb = damka_open(copy_dir, "brazilian", 1, &st); /* 1 MiB: blocks come and go */
    assert_non_null(tb);
    for (int i = 0; i < SAMPLE; i++) { /* every file open, every answer right */
        damka_value v;
        assert_true(answer_ok(i, damka_probe_dtw(tb, &sample[i], &v), &v));
    }
    atomic_store(&stop, 0);
    atomic_store(&other_wrong, 0);
    atomic_store(&victim_damaged, 0);
    pthread_t a;
    assert_int_equal(pthread_create(&a, NULL, probe_until_stopped, tb), 0);
    usleep(100000);
    change(path, orig);
    bool seen = damaged && victim_seen_damaged(tb);
    usleep(300000); /* the thread probes on, the victim's cached blocks too */
    atomic_store(&stop, 1);
    pthread_join(a, NULL);
    print_message("%s under a probing thread: %ld answers DAMAGED (all of %s), %ld wrong\n", what,
                  atomic_load(&victim_damaged), VICTIM, atomic_load(&other_wrong));
    assert_int_equal(atomic_load(&other_wrong), 0);
    /* afterwards: the victim DAMAGED for good (or right, when it must stay readable), every
     * other material right */
    long victim = 0, victim_bad = 0;
    for (int i = 0; i < SAMPLE; i++) {
        damka_value v;
        st = damka_probe_dtw(tb, &sample[i], &v);
        if (!answer_ok(i, st, &v))
            fail_msg("%s: position %d of %s: %s (%s)", what, i, of_victim[i] ? "the victim" : "another material",
                     damka_status_text(st), damka_last_error());
        victim += of_victim[i];
        victim_bad += st == DAMKA_DAMAGED;
    }
    assert_true(victim > 0);
    if (damaged) {
        assert_true(seen);
        assert_true(atomic_load(&victim_damaged) > 0);
        assert_int_equal(victim_bad, victim);
    } else {
        assert_int_equal(victim_bad, 0);
    }
    damka_close(tb);
    /* a new handle reads the file as it is now */
    tb = damka_open(copy_dir, "brazilian", 1, &st);
    damka_value v;
    for (int i = 0; i < SAMPLE; i++)
        if (of_victim[i]) {
            st = damka_probe_dtw(tb, &sample[i], &v);
            if (change == rewrite_same)
                assert_true(answer_ok(i, st, &v) && st == DAMKA_OK);
            else
                assert_true(st == (change == delete_file ? DAMKA_NOT_IN_TABLES : DAMKA_DAMAGED));
            break;
        }
    damka_close(tb);
    snprintf(cmd, sizeof cmd, "rm -rf %s", copy_dir);
    assert_int_equal(system(cmd), 0);
}

static void test_changed_in_place_while_probing(void **state)
{
    (void)state;
    const char *orig = getenv("DK_TABLES");
    if (!orig || !*orig) {
        print_message("DK_TABLES is not set: skipped (tests/probe.sh sets it)\n");
        skip();
    }
    change_under_probe(orig, "truncated to half", truncate_half, true);
    change_under_probe(orig, "rewritten in place with its own bytes", rewrite_same, true);
    change_under_probe(orig, "rewritten in place with another table", rewrite_other, true);
    /* deleted: the open file stays whole and the handle keeps reading it */
    change_under_probe(orig, "deleted", delete_file, false);
}

/* The sample: random positions with pieces of both sides, their values from the tables as
 * generated, and which are the victim's. */
static int setup(void **state)
{
    (void)state;
    const char *orig = getenv("DK_TABLES");
    if (!orig || !*orig)
        return 0; /* the tests skip */
    damka_status st;
    damka_tb *ref = damka_open(orig, "brazilian", 64, &st);
    if (!ref)
        return -1;
    const dk_variant *v = dk_variant_get(DK_BRAZILIAN);
    dk_material victim;
    if (dk_material_parse("1m2k-0m1k", &victim) != 0)
        return -1;
    test_rng r = {2026};
    for (int i = 0; i < SAMPLE;) {
        dk_pos p = test_random_pos(v, &r, 2 + (int)test_rand_below(&r, 3), 50);
        sample[i] = (damka_position){p.pieces[DK_WHITE], p.pieces[DK_BLACK], p.kings, p.side == DK_BLACK};
        if (p.pieces[DK_WHITE] && p.pieces[DK_BLACK]) {
            if (damka_probe_dtw(ref, &sample[i], &expected[i]) != DAMKA_OK)
                return -1;
            dk_pos n = dk_normal_form(v, &p);
            of_victim[i] = dk_material_equal(dk_material_of(&n), victim) && !dk_can_capture(v, &n, DK_WHITE);
            i++;
        }
    }
    damka_close(ref);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_replaced_while_probing),
                                       cmocka_unit_test(test_changed_in_place_while_probing)};
    return cmocka_run_group_tests(tests, setup, NULL);
}
