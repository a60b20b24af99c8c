/* damka stats: the statistics of every table in a directory. */
#include <stdio.h>
#include <string.h>

#include "../gen/manifest.h"
#include "cli.h"

int cmd_stats(int argc, char **argv)
{
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
        } else if (cli_is_option(argv[i]) || dir) {
            return cli_error("stats: unexpected '%s' (usage: stats [--variant V] [--json] DIR)", argv[i]);
        } else {
            dir = argv[i];
        }
    }
    if (!dir)
        return cli_error("stats: missing DIR (usage: stats [--variant V] [--json] DIR)");
    if (dk_manifest_print(dir, v, json, stdout) == 0) {
        fprintf(stderr, "damka: stats: no tables in %s\n", dir);
        return 1;
    }
    return 0;
}
