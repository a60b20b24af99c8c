#include "transport.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../rules/errors.h"
#include "finishpart.h"

static void run_task(dk_worker *w, const task *t, report *r)
{
    r->kind = t->kind;
    r->id = t->id;
    r->err[0] = 0;
    if (t->kind == DK_WG_UNIT)
        r->status = dk_task_unit(w, (uint32_t)t->id, r->err, sizeof r->err);
    else if (t->kind == DK_WG_SCAN)
        r->status = dk_task_scan_part(w, (uint32_t)t->id, r->err, sizeof r->err);
    else if (t->kind == DK_WG_PACK)
        r->status = dk_task_pack_part(w, (uint32_t)t->id, r->err, sizeof r->err);
    else
        r->status = dk_task_finish_pair(w, (uint32_t)t->id, r->err, sizeof r->err);
}

void *dk_transport_local_main(void *arg)
{
    local_worker *lw = arg;
    mailbox *b = &lw->box;
    report r = {TASK_NONE, 0, 0, ""};
    for (;;) {
        pthread_mutex_lock(&b->lock);
        b->rep = r;
        b->has_report = true;
        while (!b->has_task)
            pthread_cond_wait(&b->cond, &b->lock);
        task t = b->job;
        b->has_task = false;
        pthread_mutex_unlock(&b->lock);
        if (t.kind == TASK_STOP)
            return NULL;
        run_task(&lw->w, &t, &r);
    }
}

/* --- a split unit, solved by every rank at once over MPI_COMM_WORLD (solve.h) --- */

/* Whether every rank is ok: a rank that cannot go on tells the others before a collective they
 * could not complete with it. */
bool dk_transport_all_ok(bool ok)
{
    int mine = ok, all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all != 0;
}

/* One all-to-all of headers (each rank's count for the receiver and its flags, plus whether
 * it sends anything at all), then, if any rank sends, one all-to-all of the data. Returns 0, or
 * -1 on every rank when one has no memory for its buffers or would receive more than MPI's
 * int counts carry (dk_split_comm.exchange). */
static int mpi_exchange(void *ctx, const void *send, const size_t *counts, void **recv, size_t *cap,
                        size_t *recv_counts, int64_t *flags, int nflags)
{
    (void)ctx;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const int w = nflags + 2; /* count, nothing sent, flags */
    int64_t *hd = malloc(2 * (size_t)n * (size_t)w * sizeof *hd);
    int *ci = malloc(4 * (size_t)n * sizeof *ci);
    int rc = -1;
    if (!dk_transport_all_ok(hd && ci))
        goto out;
    int64_t sent = 0;
    for (int r = 0; r < n; r++)
        sent += (int64_t)counts[r];
    for (int r = 0; r < n; r++) {
        int64_t *h = hd + (size_t)r * (size_t)w;
        h[0] = counts[r] <= INT32_MAX ? (int64_t)counts[r] : -1;
        h[1] = sent ? 0 : 1;
        memcpy(h + 2, flags, (size_t)nflags * sizeof *flags);
    }
    int64_t *in = hd + (size_t)n * (size_t)w;
    MPI_Alltoall(hd, w, MPI_INT64_T, in, w, MPI_INT64_T, MPI_COMM_WORLD);
    bool anyone = false, fits = true;
    uint64_t total = 0;
    for (int r = 0; r < n; r++) {
        const int64_t *h = in + (size_t)r * (size_t)w;
        anyone |= h[1] == 0;
        fits &= h[0] >= 0;
        recv_counts[r] = h[0] >= 0 ? (size_t)h[0] : 0;
        total += recv_counts[r];
        for (int k = 0; k < nflags; k++)
            if (h[2 + k] < flags[k])
                flags[k] = h[2 + k];
    }
    bool ok = fits && total <= INT32_MAX; /* MPI counts are ints; the buffers keep far below */
    if (ok && anyone && (total > *cap || !*recv)) {
        void *a = realloc(*recv, total ? total : 1);
        ok = a != NULL;
        if (a) {
            *recv = a;
            *cap = total ? total : 1;
        }
    }
    if (!dk_transport_all_ok(ok))
        goto out;
    if (anyone) {
        int *sd = ci + n, *rcnt = ci + 2 * n, *rd = ci + 3 * n;
        for (int r = 0, sa = 0, ra = 0; r < n; r++) {
            ci[r] = (int)counts[r];
            sd[r] = sa;
            rcnt[r] = (int)recv_counts[r];
            rd[r] = ra;
            sa += ci[r];
            ra += rcnt[r];
        }
        MPI_Alltoallv(send, ci, sd, MPI_BYTE, *recv, rcnt, rd, MPI_BYTE, MPI_COMM_WORLD);
    }
    rc = 0;
out:
    if (rc != 0) /* nothing received */
        memset(recv_counts, 0, (size_t)n * sizeof *recv_counts);
    free(hd);
    free(ci);
    return rc;
}

static void mpi_min(void *ctx, int64_t *v, int n)
{
    (void)ctx;
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
}

/* The progress of a split unit on rank 0 (dk_split_comm.progress): its stage in the progress
 * line's note, the line printed when it is time to. ctx: the scheduler. */
static void split_progress(void *ctx, const char *stage, uint64_t done, uint64_t total, uint64_t rounds);

static int run_split(dk_worker *w, uint32_t u, void *progress_ctx, char *err, size_t errlen)
{
    dk_split_comm comm = {0, 1, progress_ctx, mpi_exchange, mpi_min, progress_ctx ? split_progress : NULL};
    MPI_Comm_rank(MPI_COMM_WORLD, &comm.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &comm.nranks);
    return dk_task_split(w, u, &comm, err, errlen);
}

/* A rank other than 0: asks for tasks and carries them out until told to stop. A rank whose
 * worker could not start (w NULL) says why in its first report, so that rank 0 stops the run
 * with that message (its own stderr goes nowhere). */
void dk_transport_remote_worker(dk_worker *w, const char *why_not)
{
    report r = {TASK_NONE, 0, w ? DK_OK : DK_FAILED, ""};
    if (!w)
        snprintf(r.err, sizeof r.err, "%s", why_not);
    for (;;) {
        MPI_Send(&r, sizeof r, MPI_BYTE, 0, TAG_REPORT, MPI_COMM_WORLD);
        task t;
        MPI_Recv(&t, sizeof t, MPI_BYTE, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (t.kind == TASK_STOP || !w)
            return;
        if (t.kind == TASK_SPLIT) {
            r = (report){TASK_SPLIT, t.id, 0, ""};
            r.status = run_split(w, (uint32_t)t.id, NULL, r.err, sizeof r.err);
        } else {
            run_task(w, &t, &r);
        }
    }
}

/* --- the transport of the scheduler, rank 0: reports in, what the core hands out (scheduler.h)
 * sent --- */

/* Rank r, which waited for a task since s->since[r], got one. */
static void stop_waiting(sched *s, int r) { s->waited += dk_now() - s->since[r]; }

/* Records what rank `rank` reports, and that it waits for a task; the first failure stops the
 * run, with the rank named when it is not rank 0 (whose messages are the job's own). */
static void take_report(sched *s, int rank, const report *r)
{
    dk_sched_waits(&s->core, (uint32_t)rank);
    s->since[rank] = dk_now();
    if (r->status != 0) {
        /* the first message of a rank that failed itself (not a split's other ranks) */
        if (!s->err[0] && r->status != DK_PEER_FAILED && rank != 0)
            snprintf(s->err, sizeof s->err, "rank %d: %.900s", rank, r->err);
        else if (!s->err[0] && r->status != DK_PEER_FAILED)
            snprintf(s->err, sizeof s->err, "%s", r->err);
        dk_sched_fail(&s->core);
        return;
    }
    if (r->kind == TASK_NONE || r->kind == TASK_SPLIT) /* rank 0 records a split done */
        return;
    if (r->kind == DK_WG_UNIT) {
        s->pr.done_positions += s->g->units[r->id].positions;
        dk_sched_done(&s->core, (dk_wg_task){DK_WG_UNIT, (uint32_t)r->id});
    } else if (r->kind == DK_WG_SCAN || r->kind == DK_WG_PACK) {
        s->parts++;
        dk_sched_done(&s->core, (dk_wg_task){(dk_wg_kind)r->kind, (uint32_t)r->id});
    } else {
        s->joins += s->g->pairs[r->id].nparts > 0;
        s->pr.done_materials += s->g->pairs[r->id].self_twin ? 1 : 2;
        dk_sched_done(&s->core, (dk_wg_task){DK_WG_FINISH, (uint32_t)r->id});
    }
    dk_progress_update(&s->pr, false);
}

/* Sends worker `rank` task t (rank 0's through its mailbox). */
static void send_task(sched *s, int rank, task t)
{
    if (rank == 0) {
        mailbox *b = &s->local->box;
        pthread_mutex_lock(&b->lock);
        b->job = t;
        b->has_task = true;
        pthread_cond_signal(&b->cond);
        pthread_mutex_unlock(&b->lock);
    } else {
        MPI_Send(&t, sizeof t, MPI_BYTE, rank, TAG_TASK, MPI_COMM_WORLD);
    }
}

/* Every rank is free: all of them solve split unit u, rank 0 on this thread (its worker's
 * thread waits for a task meanwhile, so the worker is this thread's to use). */
static void start_split(sched *s, uint32_t u)
{
    task t = {TASK_SPLIT, (int32_t)u};
    uint32_t r;
    while (dk_sched_take_rank(&s->core, &r) > 0) { /* every rank, 0 first */
        if (r != 0)
            MPI_Send(&t, sizeof t, MPI_BYTE, (int)r, TAG_TASK, MPI_COMM_WORLD);
        stop_waiting(s, (int)r);
    }
    s->split = u;
    report rep = {TASK_SPLIT, t.id, 0, ""};
    rep.status = run_split(&s->local->w, u, s, rep.err, sizeof rep.err);
    s->pr.note[0] = 0;
    if (rep.status != 0) {
        take_report(s, 0, &rep);
        return;
    }
    s->splits++;
    s->pr.done_positions += s->g->units[u].positions;
    dk_sched_done(&s->core, (dk_wg_task){DK_WG_UNIT, u});
    dk_sched_waits(&s->core, 0); /* rank 0's worker waits again */
    s->since[0] = dk_now();
    dk_progress_update(&s->pr, false);
}

static void split_progress(void *ctx, const char *stage, uint64_t done, uint64_t total, uint64_t rounds)
{
    sched *s = ctx;
    const dk_unit *un = &s->g->units[s->split];
    char name[DK_MATERIAL_NAME_MAX], where[96];
    dk_material_name(s->g->pairs[un->pair].m, name, sizeof name);
    if (total)
        snprintf(where, sizeof where, "%s, %.0f%% of rank 0's share", stage, 100.0 * (double)done / (double)total);
    else
        snprintf(where, sizeof where, "%s, distance %llu, round %llu", stage, (unsigned long long)done,
                 (unsigned long long)rounds);
    snprintf(s->pr.note, sizeof s->pr.note, "split unit of %s (level %d, %.3g positions on %d ranks): %s", name,
             un->level, (double)un->positions, s->nranks, where);
    dk_progress_update(&s->pr, false);
}

/* Sends what the core hands out until it has nothing more. */
static void hand_out(sched *s)
{
    for (;;) {
        dk_sched_grant a = dk_sched_next(&s->core);
        switch (a.kind) {
        case DK_SCHED_TASK:
            send_task(s, (int)a.rank, (task){(int32_t)a.task.kind, (int32_t)a.task.id});
            stop_waiting(s, (int)a.rank);
            break;
        case DK_SCHED_STOP:
            send_task(s, (int)a.rank, (task){TASK_STOP, 0});
            stop_waiting(s, (int)a.rank);
            s->stopped++;
            break;
        case DK_SCHED_SPLIT:
            start_split(s, a.task.id);
            break;
        case DK_SCHED_STUCK:
            snprintf(s->err, sizeof s->err, "internal error: no work is ready but tables are missing");
            break;
        default: /* DK_SCHED_WAIT; no rank is made on demand, so never DK_SCHED_NOMEM */
            return;
        }
    }
}

void dk_transport_schedule(sched *s)
{
    double start = dk_now();
    while (s->stopped < s->nranks) {
        bool got = false;
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            report r;
            MPI_Recv(&r, sizeof r, MPI_BYTE, st.MPI_SOURCE, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            take_report(s, st.MPI_SOURCE, &r);
            got = true;
        }
        mailbox *b = &s->local->box;
        pthread_mutex_lock(&b->lock);
        if (b->has_report) {
            report r = b->rep;
            b->has_report = false;
            pthread_mutex_unlock(&b->lock);
            take_report(s, 0, &r);
            got = true;
        } else {
            pthread_mutex_unlock(&b->lock);
        }
        hand_out(s);
        if (!got) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            dk_progress_update(&s->pr, false);
        }
    }
    s->ran = dk_now() - start;
}

/* Stops ranks 1 .. nranks - 1 before any task, when rank 0 cannot schedule: each one's first
 * report is answered with TASK_STOP. */
void dk_transport_stop_workers(int nranks)
{
    for (int r = 1; r < nranks; r++) {
        report rep;
        MPI_Recv(&rep, sizeof rep, MPI_BYTE, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        task t = {TASK_STOP, 0};
        MPI_Send(&t, sizeof t, MPI_BYTE, r, TAG_TASK, MPI_COMM_WORLD);
    }
}
