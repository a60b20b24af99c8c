#include "transport.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../rules/check.h"
#include "../../rules/errors.h"
#include "../finish/parttasks.h"
#include "../store/testhooks.h"
#include "tasktimes.h"

/* --- the wire: the messages between rank 0's scheduler and the workers (every rank runs this
 * same executable, so a struct goes as its bytes) --- */

enum { TAG_REPORT = 1, TAG_TASK = 2, TAG_GROUP = 3 /* making a group's communicator */ };

/* What a rank reports after each order: a dk_rank_report (rank0.h), as its bytes. An order: its
 * kind (rank0.h: a graph task's, DK_ORDER_STOP or DK_ORDER_SPLIT) and id; for DK_ORDER_SPLIT,
 * `group` ranks other than 0 solve unit `id` (their ranks follow in a second message, lowest
 * first), or every rank of the run (group 0). */
typedef struct task {
    int32_t kind, id, group;
} task;

/* Rank 0 computes in a thread of its own; the scheduler (the main thread, the only one that
 * calls MPI) talks to it through this mailbox. */
typedef struct mailbox {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool has_report, has_task;
    dk_rank_report rep;
    task job;
} mailbox;

struct dk_local_worker {
    dk_worker w;
    mailbox box;
};

static void run_task(dk_worker *w, const task *t, dk_rank_report *r)
{
    r->kind = t->kind;
    r->id = t->id;
    r->err[0] = 0;
    dk_task_clock start = dk_task_clock_start();
    if (t->kind == DK_WG_UNIT)
        r->status = dk_task_unit(w, (uint32_t)t->id, r->err, sizeof r->err);
    else if (t->kind == DK_WG_SCAN)
        r->status = dk_task_scan_part(w, (uint32_t)t->id, r->err, sizeof r->err);
    else if (t->kind == DK_WG_PACK)
        r->status = dk_task_pack_part(w, (uint32_t)t->id, r->err, sizeof r->err);
    else
        r->status = dk_task_finish_pair(w, (uint32_t)t->id, r->err, sizeof r->err);
    if (r->status == DK_OK)
        dk_task_times_record(w->g, (dk_wg_task){(dk_wg_kind)t->kind, (uint32_t)t->id}, 1, start);
}

/* The main function of rank 0's worker thread (arg: its dk_local_worker): reports, then carries
 * out what its mailbox brings until DK_ORDER_STOP. */
static void *local_main(void *arg)
{
    dk_local_worker *lw = arg;
    mailbox *b = &lw->box;
    dk_rank_report r = {DK_ORDER_NONE, 0, 0, ""};
    for (;;) {
        pthread_mutex_lock(&b->lock);
        b->rep = r;
        b->has_report = true;
        while (!b->has_task)
            pthread_cond_wait(&b->cond, &b->lock);
        task t = b->job;
        b->has_task = false;
        pthread_mutex_unlock(&b->lock);
        if (t.kind == DK_ORDER_STOP)
            return NULL;
        run_task(&lw->w, &t, &r);
    }
}

dk_local_worker *dk_transport_local_new(void) { return calloc(1, sizeof(dk_local_worker)); }

dk_worker *dk_transport_local_worker(dk_local_worker *lw) { return &lw->w; }

int dk_transport_local_start(dk_local_worker *lw, pthread_t *th)
{
    pthread_mutex_init(&lw->box.lock, NULL);
    pthread_cond_init(&lw->box.cond, NULL);
    int e = pthread_create(th, NULL, local_main, lw);
    if (e != 0) { /* no thread: the mailbox is not polled */
        pthread_cond_destroy(&lw->box.cond);
        pthread_mutex_destroy(&lw->box.lock);
    }
    return e;
}

void dk_transport_local_join(dk_local_worker *lw, pthread_t th)
{
    pthread_join(th, NULL);
    pthread_cond_destroy(&lw->box.cond);
    pthread_mutex_destroy(&lw->box.lock);
}

/* --- a split unit, solved by its ranks at once (solve.h): every rank over MPI_COMM_WORLD, or a
 * group of ranks over a communicator of their own --- */

/* Rank 0's sends (dk_rank0_sends.ctx): its bookkeeping, whose progress line a split of every
 * rank moves, its worker, and the split unit of every rank it solves. */
typedef struct rank0_link {
    dk_rank0 *s;
    dk_local_worker *local;
    uint32_t split;
} rank0_link;

/* What the calls of a split's dk_split_comm need: its ranks' communicator, and rank 0's link
 * whose progress line it moves (rank 0 in a split of every rank; else NULL). */
typedef struct split_ctx {
    MPI_Comm comm;
    rank0_link *link;
} split_ctx;

/* Whether every rank of comm is ok: a rank that cannot go on tells the others before a
 * collective they could not complete with it. */
static bool all_ok_on(MPI_Comm comm, bool ok)
{
    int mine = ok, all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    return all != 0;
}

bool dk_transport_all_ok(bool ok) { return all_ok_on(MPI_COMM_WORLD, ok); }

/* One all-to-all of headers (each rank's count for the receiver and its flags, plus whether
 * it sends anything at all), then, if any rank sends, one all-to-all of the data. Returns 0, or
 * -1 on every rank when one has no memory for its buffers or would receive more than MPI's
 * int counts carry (dk_split_comm.exchange). */
static int mpi_exchange(void *ctx, const void *send, const size_t *counts, void **recv, size_t *cap,
                        size_t *recv_counts, int64_t *flags, int nflags)
{
    MPI_Comm comm = ((const split_ctx *)ctx)->comm;
    int n;
    MPI_Comm_size(comm, &n);
    const int w = nflags + 2; /* count, nothing sent, flags */
    int64_t *hd = malloc(2 * (size_t)n * (size_t)w * sizeof *hd);
    int *ci = malloc(4 * (size_t)n * sizeof *ci);
    int rc = -1;
    if (!all_ok_on(comm, hd && ci))
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
    MPI_Alltoall(hd, w, MPI_INT64_T, in, w, MPI_INT64_T, comm);
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
    if (!all_ok_on(comm, ok))
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
        MPI_Alltoallv(send, ci, sd, MPI_BYTE, *recv, rcnt, rd, MPI_BYTE, comm);
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
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MIN, ((const split_ctx *)ctx)->comm);
}

/* The progress of a split unit of every rank on rank 0 (dk_split_comm.progress): its stage in
 * the progress line's note, the line printed when it is time to. ctx: a split_ctx. */
static void split_progress(void *ctx, const char *stage, uint64_t done, uint64_t total, uint64_t rounds);

/* Solves split unit u with the other ranks of comm; progress (rank 0's link, or NULL) is told
 * where it stands. */
static int run_split(dk_worker *w, uint32_t u, MPI_Comm comm, rank0_link *progress, char *err, size_t errlen)
{
    split_ctx ctx = {comm, progress};
    dk_split_comm c = {0, 1, &ctx, mpi_exchange, mpi_min, progress ? split_progress : NULL};
    MPI_Comm_rank(comm, &c.rank);
    MPI_Comm_size(comm, &c.nranks);
    dk_task_clock start = dk_task_clock_start();
    int rc = dk_task_split(w, u, &c, err, errlen);
    if (rc == DK_OK)
        dk_task_times_record(w->g, (dk_wg_task){DK_WG_UNIT, u}, c.nranks, start);
    return rc;
}

/* This rank's part in a group's split unit t: the group's ranks from rank 0 (into `ranks`,
 * room for every rank of the run, allocated before any task so that nothing can fail between
 * the messages and the communicator's making, which the group's other ranks wait for), a
 * communicator of them (collective over the group only, so that the other ranks go on), the
 * unit solved. */
static int run_group_split(dk_worker *w, const task *t, int32_t *ranks, char *err, size_t errlen)
{
    MPI_Recv(ranks, t->group, MPI_INT32_T, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Group world, members;
    MPI_Comm comm;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, t->group, ranks, &members);
    MPI_Comm_create_group(MPI_COMM_WORLD, members, TAG_GROUP, &comm);
    MPI_Group_free(&members);
    MPI_Group_free(&world);
    int rc = run_split(w, (uint32_t)t->id, comm, NULL, err, errlen);
    MPI_Comm_free(&comm);
    return rc;
}

/* A rank other than 0: asks for tasks and carries them out until told to stop. A rank whose
 * worker could not start (w NULL), or that has no memory for a group's list of ranks, says why
 * in its first report, so that rank 0 stops the run with that message (its own stderr goes
 * nowhere). */
void dk_transport_remote_worker(dk_worker *w, const char *why_not)
{
    int nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int32_t *ranks = w ? malloc((size_t)nranks * sizeof *ranks) : NULL;
    dk_rank_report r = {DK_ORDER_NONE, 0, ranks ? DK_OK : DK_FAILED, ""};
    if (!ranks)
        snprintf(r.err, sizeof r.err, "%s", w ? "its worker cannot start: out of memory" : why_not);
    if (dk_hook_mpi_fail())
        MPI_Send(&r, sizeof r, MPI_BYTE, nranks, TAG_REPORT, MPI_COMM_WORLD);
    DK_ASSERT(!dk_hook_broken_invariant());
    for (;;) {
        MPI_Send(&r, sizeof r, MPI_BYTE, 0, TAG_REPORT, MPI_COMM_WORLD);
        task t;
        MPI_Recv(&t, sizeof t, MPI_BYTE, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (t.kind == DK_ORDER_STOP || !ranks)
            break;
        if (t.kind == DK_ORDER_SPLIT) {
            r = (dk_rank_report){DK_ORDER_SPLIT, t.id, 0, ""};
            r.status = t.group ? run_group_split(w, &t, ranks, r.err, sizeof r.err)
                               : run_split(w, (uint32_t)t.id, MPI_COMM_WORLD, NULL, r.err, sizeof r.err);
        } else {
            run_task(w, &t, &r);
        }
    }
    free(ranks);
}

/* --- the transport of the scheduler, rank 0: reports in, to rank 0's bookkeeping (rank0.h),
 * its orders sent --- */

/* Sends rank `rank` an order (dk_rank0_sends.send; ctx: a rank0_link): rank 0's through its
 * mailbox, a group's ranks after it for a split unit of a group. */
static void send_order(void *ctx, uint32_t rank, int32_t kind, uint32_t id, const int32_t *group, uint32_t n)
{
    task t = {kind, (int32_t)id, group ? (int32_t)n : 0};
    if (rank == 0) {
        mailbox *b = &((rank0_link *)ctx)->local->box;
        pthread_mutex_lock(&b->lock);
        b->job = t;
        b->has_task = true;
        pthread_cond_signal(&b->cond);
        pthread_mutex_unlock(&b->lock);
        return;
    }
    MPI_Send(&t, sizeof t, MPI_BYTE, (int)rank, TAG_TASK, MPI_COMM_WORLD);
    if (group)
        MPI_Send(group, (int)n, MPI_INT32_T, (int)rank, TAG_TASK, MPI_COMM_WORLD);
}

/* Rank 0's part of split unit u of every rank (dk_rank0_sends.solve; ctx: a rank0_link), on this
 * thread: its worker's thread waits for a task meanwhile, so the worker is this thread's to use. */
static int solve_every(void *ctx, uint32_t u, char *err, size_t errlen)
{
    rank0_link *link = ctx;
    link->split = u;
    int rc = run_split(&link->local->w, u, MPI_COMM_WORLD, link, err, errlen);
    link->s->pr.note[0] = 0;
    return rc;
}

static void split_progress(void *ctx, const char *stage, uint64_t done, uint64_t total, uint64_t rounds)
{
    const rank0_link *link = ((split_ctx *)ctx)->link;
    dk_rank0 *s = link->s;
    const dk_unit *un = &s->g->units[link->split];
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

void dk_transport_schedule(dk_rank0 *s, dk_local_worker *local)
{
    rank0_link link = {s, local, 0};
    s->sends = (dk_rank0_sends){&link, send_order, solve_every};
    double start = dk_now();
    while (s->stopped < s->nranks) {
        bool got = false;
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            dk_rank_report r;
            MPI_Recv(&r, sizeof r, MPI_BYTE, st.MPI_SOURCE, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            dk_rank0_report(s, (uint32_t)st.MPI_SOURCE, &r);
            got = true;
        }
        mailbox *b = local ? &local->box : NULL; /* NULL: rank 0's worker never started */
        if (b)
            pthread_mutex_lock(&b->lock);
        if (b && b->has_report) {
            dk_rank_report r = b->rep;
            b->has_report = false;
            pthread_mutex_unlock(&b->lock);
            dk_rank0_report(s, 0, &r);
            got = true;
        } else if (b) {
            pthread_mutex_unlock(&b->lock);
        }
        dk_rank0_hand_out(s);
        if (!got) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            dk_progress_update(&s->pr, false);
        }
    }
    s->run.ran = dk_now() - start;
    s->sends = (dk_rank0_sends){NULL, NULL, NULL}; /* the link ends here */
}

/* Stops ranks 1 .. nranks - 1 before any task, when rank 0 cannot schedule: each one's first
 * report is answered with DK_ORDER_STOP. */
void dk_transport_stop_workers(int nranks)
{
    for (int r = 1; r < nranks; r++) {
        dk_rank_report rep;
        MPI_Recv(&rep, sizeof rep, MPI_BYTE, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        task t = {DK_ORDER_STOP, 0, 0};
        MPI_Send(&t, sizeof t, MPI_BYTE, r, TAG_TASK, MPI_COMM_WORLD);
    }
}
