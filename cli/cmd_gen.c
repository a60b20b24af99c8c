/* damka gen: generate every table up to N pieces; one process or `mpirun -np K damka gen`. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "../gen/generate.h"
#include "cli.h"
#include "runopts.h"

static const char USAGE[] =
    "usage: gen [--variant V] (--pieces N [--per-side K] | --materials LIST) --out DIR "
    "[--draw-rule MOVES] [--memory-per-rank SIZE] [--unit-positions P] [--quiet] [--keep-work] [--dictionary]";

static int parse_args(int argc, char **argv, dk_gen_options *o, dk_material *mats, int cap)
{
    cli_run_args a = {0};
    int status = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_run_option(argc, argv, &i, &a, o, &status) ||
            cli_option_value(argc, argv, &i, "--out", &o->dir, &status)) {
            if (status)
                return status;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            o->quiet = true;
        } else if (strcmp(argv[i], "--keep-work") == 0) {
            o->keep_work = true;
        } else if (strcmp(argv[i], "--dictionary") == 0) {
            o->dictionary = true;
        } else {
            return cli_error("gen: unexpected argument '%s' (%s)", argv[i], USAGE);
        }
    }
    if (!o->dir || !*o->dir)
        return cli_error("gen: --out DIR is required (%s)", USAGE);
    return cli_run_finish("gen", &a, o, mats, cap);
}

int cmd_gen(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0 && !freopen("/dev/null", "w", stderr)) /* rank 0 speaks for the job */
        return 1;
    dk_gen_options o = {dk_variant_get(DK_BRAZILIAN), 0, 0, NULL, 0, NULL, 0, 0,
                        false, false, false, 0};
    dk_material mats[256];
    int status = parse_args(argc, argv, &o, mats, 256);
    if (status == 0 && provided < MPI_THREAD_FUNNELED)
        status = cli_error("gen: this MPI library does not support threads (MPI_THREAD_FUNNELED)");
    if (status == 0)
        status = dk_generate(&o);
    MPI_Finalize();
    return status;
}
