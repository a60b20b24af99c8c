#include "launcher.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../rules/check.h"

int cli_launcher_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *s = getenv(names[i]);
        if (s && *s)
            return atoi(s);
    }
    return -1;
}

static int kept_stderr = STDERR_FILENO; /* the stderr the process started with */

int cli_rank_quiet(int rank)
{
    if (kept_stderr != STDERR_FILENO || rank <= 0)
        return 0;
    int keep = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    fflush(stderr);
    if (!freopen("/dev/null", "w", stderr)) {
        if (keep >= 0)
            close(keep);
        return -1;
    }
    if (keep >= 0) {
        kept_stderr = keep;
        dk_check_set_fd(keep); /* a broken invariant is said where the user sees it */
    }
    return 0;
}

void cli_rank_say(const char *line)
{
    if (write(kept_stderr, line, strlen(line)) < 0) {
        /* nobody to tell */
    }
}

static pid_t parent; /* set before the thread starts, read by it only */

static void *watch(void *arg)
{
    (void)arg;
    const struct timespec every = {0, 100 * 1000 * 1000};
    while (getppid() == parent)
        nanosleep(&every, NULL);
    /* write(2), not stdio: another thread may hold stderr's lock; a stderr that was a pipe to
     * the dead launcher ends the process with SIGPIPE, just as well */
    cli_rank_say("damka: gen: the job's launcher is gone (mpirun killed?): this rank stops\n");
    _exit(1);
    return NULL;
}

int cli_watch_launcher(void)
{
    if (cli_launcher_rank() < 0)
        return 0;
    parent = getppid();
    pthread_attr_t a;
    pthread_t th;
    if (pthread_attr_init(&a) != 0)
        return -1;
    /* a small stack: the thread only sleeps and asks for its parent */
    int rc = pthread_attr_setstacksize(&a, 64 * 1024) == 0 &&
                     pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0 &&
                     pthread_create(&th, &a, watch, NULL) == 0
                 ? 0
                 : -1;
    pthread_attr_destroy(&a);
    return rc;
}
