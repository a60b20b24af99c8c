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
    "verify", cmd_verify, "[--variant V] [--threads T] [--quiet] DIR", "check every table of a directory",
    "Checks every table of DIR: every byte (the whole file's CRC, each block's checksum), each WLD\n"
    "table against its DTW table, and every value by an independent forward pass (a position's\n"
    "value must be the best its moves lead to), each table's .stats file against its files, and\n"
    "DIR/manifest.json against the .stats files (it lists every table of every variant).\n"
    "One line a table, then the count; a failure names the table (and a position) on stderr with\n"
    "the damka gen command that makes it again, and the exit status is 1 (2: no tables in DIR).\n",
    "  --variant V            only that variant's tables (default: every variant DIR holds)\n"
    "  --threads T            threads, 1 to 64 (default: the processors online)\n"
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
    const char *dir = NULL, *threads = NULL;
    bool quiet = false;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_variant_option(argc, argv, &i, &v, &status) ||
            cli_option_value(argc, argv, &i, "--threads", &threads, &status)) {
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
    int tables = 0, failed = 0;
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const dk_variant *var = dk_variant_get((dk_variant_id)id);
        if (v && v != var)
            continue;
        dk_verify_summary sum;
        dk_verify_dir(dir, var, (int)nthreads, quiet ? NULL : stdout, print_failure, NULL, &sum);
        tables += sum.tables;
        failed += sum.failed;
    }
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
    if (!quiet)
        printf("%d tables, %d failed\n", tables, failed);
    return failed ? 1 : 0;
}
