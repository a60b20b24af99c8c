/* damka gen: generate every table up to N pieces; one process or `mpirun -np K damka gen`. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "../gen/run/generate.h"
#include "../rules/errors.h"
#include "cli.h"
#include "launcher.h"
#include "runopts.h"

static int cmd_gen(int argc, char **argv);

const cli_command cli_gen = {
    "gen", cmd_gen,
    "[--variant V] (--pieces N [--per-side K] | --materials LIST) --out DIR\n"
    "[--draw-rule MOVES] [--memory-per-rank SIZE] [--unit-positions P] [--split-positions P]\n"
    "[--finish-positions P] "
    "[--quiet] [--keep-work] [--dictionary]",
    "generate tables (mpirun -np K damka gen ...: on K ranks)",
    "Generates every table of the materials asked for into DIR, both sides to move: WLD, DTW and,\n"
    "with the draw rule, DTC tables, each with a .stats file, and DIR/manifest.json. Each value is\n"
    "verified by an independent forward pass before its table is written. Run it under mpirun to\n"
    "spread the work over ranks (the files are the same); the same command resumes an\n"
    "interrupted run, and on a finished directory does nothing.\n",
    VARIANT_HELP RUN_OPTIONS_HELP
    "  --out DIR              where the tables go (required)\n"
    "  --quiet                no progress on stderr\n"
    "  --keep-work            keep DIR/work, and every finished table uncompressed too\n"
    "                         (DIR/work/*.raw), for tests and analysis\n"
    "  --dictionary           try a zstd dictionary for each table file (kept where it pays)\n",
};

static int parse_args(int argc, char **argv, dk_gen_options *o, dk_material *mats, int cap)
{
    char q[DK_QUOTE_MAX];
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
            return cli_is_option(argv[i]) ? cli_unknown_option(&cli_gen, argv[i])
                                           : cli_usage_error(&cli_gen, "unexpected argument '%s'", cli_quote(argv[i], q, sizeof q));
        }
    }
    if (!o->dir || !*o->dir)
        return cli_usage_error(&cli_gen, "--out DIR is required");
    return cli_run_finish("gen", &a, o, mats, cap);
}

/* MPI's error handler of every communicator of the run (each inherits MPI_COMM_WORLD's): a
 * failing MPI call is not returned to the code that made it, whose ranks could not go on in
 * step, but said on the user's terminal from whichever rank, before the job ends; the same
 * command then resumes it. */
static void mpi_failed(MPI_Comm *comm, int *code, ...)
{
    char what[MPI_MAX_ERROR_STRING] = "", line[MPI_MAX_ERROR_STRING + 64];
    int len = 0, rank = -1;
    MPI_Error_string(*code, what, &len);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(line, sizeof line, "damka: gen: rank %d: MPI failed: %s\n", rank, what);
    cli_rank_say(line);
    (void)comm;
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int cmd_gen(int argc, char **argv)
{
    /* rank 0 speaks for the job */
    if (cli_rank_quiet(cli_launcher_rank()) != 0)
        return 1;
    /* before MPI_Init, which a launcher that died meanwhile would leave waiting */
    if (cli_watch_launcher() != 0)
        fprintf(stderr, "damka: gen: cannot watch the job's launcher: this rank may outlive it\n");
    /* bad usage is found before MPI starts (every rank finds the same): at once, and without a
     * working MPI */
    dk_gen_options o = {.v = dk_variant_get(DK_BRAZILIAN)};
    dk_material mats[256];
    int status = parse_args(argc, argv, &o, mats, 256);
    if (status)
        return status;
    int provided, rank;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return cli_fail("gen: MPI cannot start");
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(mpi_failed, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Errhandler_free(&eh); /* it stays with the communicators that use it */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (cli_rank_quiet(rank) != 0)
        return 1;
    if (provided < MPI_THREAD_FUNNELED)
        status = cli_error("gen: this MPI library does not support threads (MPI_THREAD_FUNNELED)");
    if (status == 0) {
        char err[1024] = "";
        int rc = dk_generate(&o, err, sizeof err);
        if (rc == DK_REFUSED)
            status = cli_error("gen: %s", err);
        else if (rc != DK_OK)
            status = cli_fail("gen: %s", err);
    }
    MPI_Finalize();
    return status;
}
