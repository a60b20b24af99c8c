/* damka verify: check every table of a directory, byte by byte and value by value. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../gen/finish/manifest.h"
#include "../gen/run/verify_dir.h"
#include "../rules/errors.h"
#include "cli.h"

static int cmd_verify(int argc, char **argv);

const cli_command cli_verify = {
    "verify", cmd_verify, "[--variant V] [--threads T] [--journal FILE] [--quiet] DIR",
    "check every table of a directory",
    "Checks every table of DIR: every byte (the whole file's CRC, each block's checksum), each WLD\n"
    "table against its DTW table, and every value by an independent forward pass (a position's\n"
    "value must be the best its moves lead to), each table's .stats file against its files, and\n"
    "DIR/manifest.json against the .stats files (it lists every table of every variant).\n"
    "One line a table, then the count; a failure names the table (and a position) on stderr with\n"
    "the damka gen command that makes it again, and the exit status is 1 (2: no tables in DIR).\n",
    "  --variant V            only that variant's tables (default: every variant DIR holds)\n"
    "  --threads T            threads, 1 to 64 (default: the processors online)\n"
    "  --journal FILE         record each table that passes in FILE; run again with the same\n"
    "                         FILE, verify does not check again the values of a table recorded\n"
    "                         there whose files are unchanged (a stopped verify goes on). For a\n"
    "                         finished set (DIR/manifest.json): a journal of another state of\n"
    "                         the set is started again\n"
    "  --quiet                no line a table and no count: failures on stderr and the exit\n"
    "                         status only\n",
};

/* One failed table (dk_verify_failure_fn): its line on stderr, the way every error is. */
static void print_failure(void *ctx, const char *line)
{
    (void)ctx;
    cli_fail("verify: %s", line);
}

static int cmd_verify(int argc, char **argv)
{
    char q[DK_QUOTE_MAX];
    const dk_variant *v = NULL;
    const char *dir = NULL, *threads = NULL, *journal_path = NULL;
    bool quiet = false;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_variant_option(argc, argv, &i, &v, &status) ||
            cli_option_value(argc, argv, &i, "--threads", &threads, &status) ||
            cli_option_value(argc, argv, &i, "--journal", &journal_path, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = true;
        } else if (cli_is_option(argv[i])) {
            return cli_unknown_option(&cli_verify, argv[i]);
        } else if (dir) {
            return cli_usage_error(&cli_verify, "unexpected argument '%s'", cli_quote(argv[i], q, sizeof q));
        } else {
            dir = argv[i];
        }
    }
    if (!dir)
        return cli_usage_error(&cli_verify, "missing DIR");
    long nthreads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads && !cli_parse_int(threads, 1, 64, &nthreads))
        return cli_error("verify: --threads must be a whole number from 1 to 64");
    if (!cli_readable_dir("verify", dir))
        return CLI_BAD_INPUT;
    dk_verify_journal *journal = NULL;
    if (journal_path) {
        char why[8192];
        bool restarted;
        dk_status st = dk_verify_journal_open(journal_path, dir, &journal, &restarted, why, sizeof why);
        if (st == DK_REFUSED)
            return cli_error("verify: %s", why);
        if (st != DK_OK)
            return cli_fail("verify: %s", why);
        if (restarted && !quiet)
            printf("note: %s was the journal of another state of %s (its manifest.json has changed): every "
                   "table is checked again\n",
                   journal_path, dir);
    }
    int tables = 0, failed = 0, before = 0;
    bool journal_failed = false;
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const dk_variant *var = dk_variant_get((dk_variant_id)id);
        if (v && v != var)
            continue;
        dk_verify_summary sum;
        dk_verify_dir(dir, var, (int)nthreads, journal_failed ? NULL : journal, quiet ? NULL : stdout,
                      print_failure, NULL, &sum);
        tables += sum.tables;
        failed += sum.failed;
        before += sum.passed_before;
        journal_failed |= sum.journal_failed;
    }
    dk_verify_journal_close(journal);
    if (!tables && !failed)
        return cli_error("verify: no tables in %s", dir);
    /* the manifest lists every table of the directory, whichever variants were asked for */
    char err[4096];
    int manifest = failed ? DK_MANIFEST_CURRENT : dk_manifest_check(dir, err, sizeof err); /* after the tables pass */
    if (manifest == DK_MANIFEST_OLD_FORMAT && !quiet)
        printf("note: %s\n", err); /* tables made before it: not a failure */
    else if (manifest != DK_MANIFEST_CURRENT && manifest != DK_MANIFEST_OLD_FORMAT) {
        cli_fail("verify: %s", err);
        failed++;
    }
    if (!quiet) {
        printf("%d tables, %d failed", tables, failed);
        if (journal_path)
            printf(" (%d passed before, by the journal%s)", before,
                   journal_failed ? "; the journal could not be written" : "");
        printf("\n");
    }
    return failed || journal_failed ? 1 : 0;
}
