#include "generate.h"

#include <malloc.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/errors.h"
#include "../plan/budget.h"
#include "../finish/manifest.h"
#include "report.h"
#include "restart.h"
#include "rundir.h"
#include "setup.h"
#include "../store/testhooks.h"
#include "transport.h"

/* Rank 0: runs its own worker and schedules every rank's tasks until the run is done or has
 * failed. Returns a dk_status, with one line in err on a failure. */
static int run_scheduler(const dk_gen_options *o, dk_workgraph *g, int nranks, const dk_budget *b, char *err,
                         size_t errlen)
{
    dk_rank0 s = {.g = g, .nranks = nranks};
    s.since = calloc((size_t)nranks, sizeof *s.since);
    if (!s.since || dk_sched_init(&s.core, g, (uint32_t)nranks, false, dk_hook_group_ranks()) != 0) {
        free(s.since);
        dk_transport_stop_workers(nranks);
        return dk_errorf(err, errlen, "out of memory for the scheduler of %d ranks", nranks);
    }
    dk_hook_fail fail = dk_hook_fail_init();
    dk_local_worker *lw = fail == DK_HOOK_FAIL_ALLOC ? NULL : dk_transport_local_new();
    int status = DK_FAILED;
    uint64_t done_pos = 0, total_pos = 0;
    uint32_t done_mat = 0, total_mat = 0;
    dk_dirlock lock = {-1, ""};
    /* the local worker's memory first: a worker that cannot start leaves nothing in DIR */
    const char *why_not = "out of memory";
    bool local_ok = lw && fail == DK_HOOK_FAIL_NONE &&
                    dk_worker_init(dk_transport_local_worker(lw), g, o->dir, o->keep_work, o->dictionary, o->rule_limit, b) == 0;
    if (!local_ok) {
        snprintf(s.err, sizeof s.err, "rank 0: its worker cannot start: out of memory");
        free(lw); /* no worker: the transport polls no mailbox */
        lw = NULL;
    }
    bool refused = local_ok && dk_rundir_check_rule(o, s.err, sizeof s.err) == DK_REFUSED;
    int made = local_ok && !refused ? dk_rundir_make(o, &lock, s.err, sizeof s.err) : DK_FAILED;
    refused |= made == DK_REFUSED;
    if (made != DK_OK || dk_restart_scan(g, o->dir, o->rule_limit, &done_pos, &done_mat) != 0) {
        if (!s.err[0])
            snprintf(s.err, sizeof s.err, "out of memory");
        dk_sched_fail(&s.core);
    }
    if (!s.core.failed && !dk_workgraph_all_finished(g) && dk_rundir_make_work(o, s.err, sizeof s.err) != 0)
        dk_sched_fail(&s.core);
    for (uint32_t p = 0; p < g->npairs; p++) {
        total_pos += g->pairs[p].positions;
        total_mat += g->pairs[p].self_twin ? 1 : 2;
    }
    if (!s.core.failed && !o->quiet)
        dk_report_start(o->dir, dk_workgraph_all_finished(g), total_mat, done_mat, done_pos);
    dk_progress_start(&s.pr, o->quiet, total_pos, total_mat);
    s.pr.done_positions = s.pr.start_positions = done_pos;
    s.pr.done_materials = done_mat;
    /* the local worker always runs, so that the stop protocol is the same for every rank */
    pthread_t th;
    if (local_ok) {
        int e = dk_transport_local_start(lw, &th);
        local_ok = e == 0;
        why_not = strerror(e);
    }
    if (!local_ok) {
        if (!s.core.failed)
            snprintf(s.err, sizeof s.err, "rank 0: its worker cannot start: %s", why_not);
        dk_sched_fail(&s.core);
        s.stopped = 1; /* rank 0's worker does not exist */
        if (lw) { /* its thread did not start: the mailbox is not polled */
            dk_worker_free(dk_transport_local_worker(lw));
            free(lw);
            lw = NULL;
        }
    }
    bool nothing_to_do = s.core.failed || dk_workgraph_all_finished(g); /* no progress line to finish */
    dk_transport_schedule(&s, lw);
    if (local_ok)
        dk_transport_local_join(lw, th);
    if (!nothing_to_do) {
        dk_progress_update(&s.pr, true);
        dk_progress_end(&s.pr);
    }
    if (!nothing_to_do && !o->quiet && local_ok) {
        const dk_worker *w0 = dk_transport_local_worker(lw);
        dk_report_end(w0->finished, w0->check, b, g, nranks, &s.run);
    }
    if (!s.core.failed) {
        if (dk_manifest_write(o->dir, s.err, sizeof s.err) == 0) {
            dk_rundir_clean_work(o, !nothing_to_do);
            status = DK_OK;
        }
    }
    if (status != DK_OK)
        status = dk_statusf(refused ? DK_REFUSED : DK_FAILED, err, errlen, "%s",
                            s.err[0] ? s.err : "a rank failed without saying why");
    if (lw)
        dk_worker_free(dk_transport_local_worker(lw));
    free(lw);
    free(s.since);
    free(s.groups); /* none runs once every rank is stopped */
    dk_sched_free(&s.core);
    dk_dirlock_release(&lock);
    return status;
}

/* The memory every rank may hold: the smallest share of any rank, so that all build the same
 * work graph. */
static uint64_t least_memory(const dk_gen_options *o)
{
    MPI_Comm node;
    int here = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &here);
        MPI_Comm_free(&node);
    }
    uint64_t mine = o->memory_per_rank ? o->memory_per_rank : dk_budget_node_share(here), least;
    MPI_Allreduce(&mine, &least, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    return least;
}

int dk_generate(const dk_gen_options *o, char *err, size_t errlen)
{
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
#ifdef M_ARENA_MAX
    /* Rank 0's worker thread would get a malloc arena of its own beside the scheduler's, whose
     * freed memory neither gives back to the other, over the budget. One arena: the scheduler
     * allocates little, so the lock costs nothing (docs/measurements.md). */
    mallopt(M_ARENA_MAX, 1);
#endif
#ifdef M_MMAP_THRESHOLD
    /* Decoded tables and a unit's buffers come and go by the hundred: left to glibc, the
     * threshold above which it maps a block apart rises to 32 MiB after the first free, and
     * the freed tables below that stay in the heap between live ones, resident, over the
     * budget (docs/measurements.md). A fixed 1 MiB. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    /* every rank finds the same: all return before any collective */
    if (dk_rundir_check_path(o, err, errlen) != DK_OK)
        return DK_REFUSED;
    dk_budget b;
    /* a budget beyond a node's memory would fail late, out of memory: refused here */
    uint64_t node = dk_budget_node_share(1), most = o->memory_per_rank && node && o->memory_per_rank > node ? node : 0;
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (most)
        return dk_statusf(DK_REFUSED, err, errlen, "--memory-per-rank: a rank may hold at most its node's memory, "
                          "%llu MiB, got %llu MiB", (unsigned long long)(most >> 20),
                          (unsigned long long)(o->memory_per_rank >> 20));
    bool refused;
    char why[DK_REPORT_ERR_MAX];
    dk_workgraph *g = dk_setup_run(o, least_memory(o), nranks, &b, &refused, why, sizeof why);
    if (!dk_transport_all_ok(g != NULL)) {
        dk_workgraph_free(g);
        return dk_statusf(refused ? DK_REFUSED : DK_FAILED, err, errlen, "%s%s", refused ? "--memory-per-rank: " : "",
                          g ? "another rank ran out of memory" : why);
    }
    int status = DK_OK;
    if (rank == 0) {
        status = run_scheduler(o, g, nranks, &b, err, errlen);
    } else {
        dk_worker w;
        bool ok = dk_hook_fail_init() == DK_HOOK_FAIL_NONE &&
                  dk_worker_init(&w, g, o->dir, o->keep_work, o->dictionary, o->rule_limit, &b) == 0;
        dk_transport_remote_worker(ok ? &w : NULL, "its worker cannot start: out of memory");
        if (ok)
            dk_worker_free(&w);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    dk_workgraph_free(g);
    return status;
}
