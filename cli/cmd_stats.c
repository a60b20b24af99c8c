/* damka stats: the statistics of every table in a directory. */
#include <stdio.h>
#include <string.h>

#include "../gen/finish/manifest.h"
#include "../rules/errors.h"
#include "cli.h"

static int cmd_stats(int argc, char **argv);

const cli_command cli_stats = {
    "stats", cmd_stats, "[--variant V] [--json] DIR", "the statistics of every table in a directory",
    "Prints, for every table of DIR (White to move), its positions, the shares of wins, losses and\n"
    "draws and the longest win with its FEN; with the draw rule, the five categories under it and\n"
    "the longest distance to conversion. Read from the .stats files gen writes beside the tables.\n",
    "  --variant V            only that variant's tables (default: every variant DIR holds)\n"
    "  --json                 one JSON document, as DIR/manifest.json holds it: an object a\n"
    "                         variant under \"variants\" (the histograms too)\n",
};

static int cmd_stats(int argc, char **argv)
{
    char q[DK_QUOTE_MAX];
    const dk_variant *v = NULL;
    const char *dir = NULL;
    bool json = false;
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_variant_option(argc, argv, &i, &v, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (cli_is_option(argv[i])) {
            return cli_unknown_option(&cli_stats, argv[i]);
        } else if (dir) {
            return cli_usage_error(&cli_stats, "unexpected argument '%s'", cli_quote(argv[i], q, sizeof q));
        } else {
            dir = argv[i];
        }
    }
    if (!dir)
        return cli_usage_error(&cli_stats, "missing DIR");
    if (!cli_readable_dir("stats", dir))
        return CLI_BAD_INPUT;
    char err[4096];
    int found = dk_manifest_print(dir, v, json, stdout, err, sizeof err);
    if (found < 0)
        return cli_fail("stats: %s", err);
    if (found == 0)
        return cli_error("stats: no tables in %s", dir);
    return 0;
}
