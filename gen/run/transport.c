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
/* A task's kind on the wire: a graph task's own kind (DK_WG_UNIT, DK_WG_FINISH, DK_WG_SCAN,
 * DK_WG_PACK), or one of these. */
enum { TASK_NONE = 0, TASK_STOP = DK_WG_PACK + 1, TASK_SPLIT = DK_WG_PACK + 2 };

/* What a worker sends after each task (kind TASK_NONE for the first request). */
typedef struct report {
    int32_t kind, id, status;
    char err[DK_TRANSPORT_ERR_MAX];
} report;

/* A task; for TASK_SPLIT, `group` ranks other than 0 solve unit `id` (their ranks follow in a
 * second message, lowest first), or every rank of the run (group 0). */
typedef struct task {
    int32_t kind, id, group;
} task;

/* Rank 0 computes in a thread of its own; the scheduler (the main thread, the only one that
 * calls MPI) talks to it through this mailbox. */
typedef struct mailbox {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool has_report, has_task;
    report rep;
    task job;
} mailbox;

struct dk_local_worker {
    dk_worker w;
    mailbox box;
};

/* A split unit solved by a group of ranks other than 0, and its ranks that have not reported
 * it done yet: they wait for a task again only once every one of them has, as the simulation
 * frees them (forecast.c). */
typedef struct dk_split_group {
    uint32_t unit, n, left;
    int32_t *ranks;
} split_group;

static void run_task(dk_worker *w, const task *t, report *r)
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
 * out what its mailbox brings until TASK_STOP. */
static void *local_main(void *arg)
{
    dk_local_worker *lw = arg;
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

/* What the calls of a split's dk_split_comm need: its ranks' communicator, and the scheduler
 * whose progress line it moves (rank 0 in a split of every rank; else NULL). */
typedef struct split_ctx {
    MPI_Comm comm;
    dk_rank0 *s;
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

/* Solves split unit u with the other ranks of comm; progress (rank 0's scheduler, or NULL) is
 * told where it stands. */
static int run_split(dk_worker *w, uint32_t u, MPI_Comm comm, dk_rank0 *progress, char *err, size_t errlen)
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
    report r = {TASK_NONE, 0, ranks ? DK_OK : DK_FAILED, ""};
    if (!ranks)
        snprintf(r.err, sizeof r.err, "%s", w ? "its worker cannot start: out of memory" : why_not);
    if (dk_hook_mpi_fail())
        MPI_Send(&r, sizeof r, MPI_BYTE, nranks, TAG_REPORT, MPI_COMM_WORLD);
    DK_ASSERT(!dk_hook_broken_invariant());
    for (;;) {
        MPI_Send(&r, sizeof r, MPI_BYTE, 0, TAG_REPORT, MPI_COMM_WORLD);
        task t;
        MPI_Recv(&t, sizeof t, MPI_BYTE, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (t.kind == TASK_STOP || !ranks)
            break;
        if (t.kind == TASK_SPLIT) {
            r = (report){TASK_SPLIT, t.id, 0, ""};
            r.status = t.group ? run_group_split(w, &t, ranks, r.err, sizeof r.err)
                               : run_split(w, (uint32_t)t.id, MPI_COMM_WORLD, NULL, r.err, sizeof r.err);
        } else {
            run_task(w, &t, &r);
        }
    }
    free(ranks);
}

/* --- the transport of the scheduler, rank 0: reports in, what the core hands out (scheduler.h)
 * sent --- */

/* Rank r, which waited for a task since s->since[r], got one now. */
static void stop_waiting(dk_rank0 *s, int r)
{
    double now = dk_now();
    s->run.waited += now - s->since[r];
    s->since[r] = now;
}

/* Rank r reports a task of this kind (a TASK_ kind), handed to it at s->since[r], done. */
static void ran_task(dk_rank0 *s, int r, int32_t kind, int32_t id)
{
    if (kind == TASK_NONE)
        return;
    dk_forecast_link k = kind == TASK_SPLIT ? DK_LINK_SPLIT : dk_forecast_link_of(s->g, (dk_wg_task){kind, (uint32_t)id});
    s->run.busy[k] += dk_now() - s->since[r];
}

/* Rank r waits for a task again. */
static void waits_again(dk_rank0 *s, int r)
{
    dk_sched_waits(&s->core, (uint32_t)r);
    s->since[r] = dk_now();
}

/* The group running split unit u, or NULL (a split of every rank). */
static split_group *group_of(dk_rank0 *s, int32_t u)
{
    for (uint32_t i = 0; i < s->ngroups; i++)
        if ((int32_t)s->groups[i].unit == u)
            return &s->groups[i];
    return NULL;
}

/* Group i's ranks that reported wait again (every rank once all have), and it is forgotten. */
static void release_group(dk_rank0 *s, uint32_t i)
{
    split_group *gr = &s->groups[i];
    for (uint32_t k = 0; k < gr->n; k++)
        if (gr->ranks[k] < 0)
            waits_again(s, -1 - gr->ranks[k]);
    free(gr->ranks);
    *gr = s->groups[--s->ngroups];
}

/* A rank of group gr reported its part done: once every one has, the unit is done and they all
 * wait again. */
static void group_member_done(dk_rank0 *s, split_group *gr, int rank)
{
    for (uint32_t k = 0; k < gr->n; k++)
        if (gr->ranks[k] == rank)
            gr->ranks[k] = -1 - rank; /* reported */
    if (--gr->left > 0)
        return;
    uint32_t u = gr->unit, n = gr->n;
    s->run.splits.groups++;
    s->run.splits.least = !s->run.splits.least || n < s->run.splits.least ? n : s->run.splits.least;
    s->run.splits.most = n > s->run.splits.most ? n : s->run.splits.most;
    s->pr.done_positions += s->g->units[u].counted;
    dk_sched_done(&s->core, (dk_wg_task){DK_WG_UNIT, u});
    release_group(s, (uint32_t)(gr - s->groups));
}

static void group_note(dk_rank0 *s);

/* Records what rank `rank` reports, and that it waits for a task (a group's ranks once all of
 * them have reported); the first failure stops the run, with the rank named when it is not
 * rank 0 (whose messages are the job's own). */
static void take_report(dk_rank0 *s, int rank, const report *r)
{
    ran_task(s, rank, r->kind, r->id);
    split_group *gr = r->kind == TASK_SPLIT ? group_of(s, r->id) : NULL;
    if (gr && r->status == 0) { /* no group runs once the run has failed */
        group_member_done(s, gr, rank);
        group_note(s);
        dk_progress_update(&s->pr, false);
        return;
    }
    waits_again(s, rank);
    if (r->status != 0) {
        /* the first message of a rank that failed itself (not a split's other ranks) */
        if (!s->err[0] && r->status != DK_PEER_FAILED && rank != 0)
            snprintf(s->err, sizeof s->err, "rank %d: %.900s", rank, r->err);
        else if (!s->err[0] && r->status != DK_PEER_FAILED)
            snprintf(s->err, sizeof s->err, "%s", r->err);
        dk_sched_fail(&s->core);
    }
    if (s->core.failed) {
        /* the groups' ranks that reported wait, to be stopped; the others will report */
        while (s->ngroups)
            release_group(s, s->ngroups - 1);
        group_note(s);
        return;
    }
    if (r->kind == TASK_NONE || r->kind == TASK_SPLIT) /* rank 0 records a split of every rank done */
        return;
    if (r->kind == DK_WG_UNIT) {
        s->pr.done_positions += s->g->units[r->id].counted;
        dk_sched_done(&s->core, (dk_wg_task){DK_WG_UNIT, (uint32_t)r->id});
    } else if (r->kind == DK_WG_SCAN || r->kind == DK_WG_PACK) {
        s->run.parts++;
        dk_sched_done(&s->core, (dk_wg_task){(dk_wg_kind)r->kind, (uint32_t)r->id});
    } else {
        s->run.joins += s->g->pairs[r->id].nparts > 0;
        s->pr.done_materials += s->g->pairs[r->id].self_twin ? 1 : 2;
        dk_sched_done(&s->core, (dk_wg_task){DK_WG_FINISH, (uint32_t)r->id});
    }
    dk_progress_update(&s->pr, false);
}

/* Sends worker `rank` task t (rank 0's through its mailbox). */
static void send_task(dk_rank0 *s, int rank, task t)
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
static void start_split(dk_rank0 *s, uint32_t u)
{
    task t = {TASK_SPLIT, (int32_t)u, 0};
    uint32_t r;
    while (dk_sched_take_rank(&s->core, &r) > 0) { /* every rank, 0 first */
        if (r != 0)
            MPI_Send(&t, sizeof t, MPI_BYTE, (int)r, TAG_TASK, MPI_COMM_WORLD);
        stop_waiting(s, (int)r);
    }
    s->split = u;
    report rep = {TASK_SPLIT, t.id, 0, ""};
    rep.status = run_split(&s->local->w, u, MPI_COMM_WORLD, s, rep.err, sizeof rep.err);
    s->pr.note[0] = 0;
    if (rep.status != 0) {
        take_report(s, 0, &rep);
        return;
    }
    ran_task(s, 0, TASK_SPLIT, t.id);
    s->run.splits.every++;
    s->pr.done_positions += s->g->units[u].counted;
    dk_sched_done(&s->core, (dk_wg_task){DK_WG_UNIT, u});
    waits_again(s, 0); /* rank 0's worker */
    dk_progress_update(&s->pr, false);
}

static void split_progress(void *ctx, const char *stage, uint64_t done, uint64_t total, uint64_t rounds)
{
    dk_rank0 *s = ((split_ctx *)ctx)->s;
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

/* The progress line's note while groups solve split units (rank 0 is in none: it knows what
 * runs, not where each stands). */
static void group_note(dk_rank0 *s)
{
    uint32_t ranks = 0;
    for (uint32_t i = 0; i < s->ngroups; i++)
        ranks += s->groups[i].n;
    if (s->ngroups == 1) {
        const dk_unit *un = &s->g->units[s->groups[0].unit];
        char name[DK_MATERIAL_NAME_MAX];
        dk_material_name(s->g->pairs[un->pair].m, name, sizeof name);
        snprintf(s->pr.note, sizeof s->pr.note, "split unit of %s (level %d, %.3g positions) on a group of %u ranks",
                 name, un->level, (double)un->positions, ranks);
    } else if (s->ngroups) {
        snprintf(s->pr.note, sizeof s->pr.note, "%u split units on groups of %u ranks in all", s->ngroups, ranks);
    } else {
        s->pr.note[0] = 0;
    }
}

/* Split unit a.task.id starts on a group of a.ranks ranks other than 0: each is sent the task,
 * then the group's ranks; they report one by one (take_report). When out of memory, or when
 * the core has not the ranks it granted (an internal error: rank 0 would wait for a group that
 * never runs), the run fails with a message, every rank taken waiting again to be stopped. */
static void start_group(dk_rank0 *s, dk_sched_grant a)
{
    if (s->ngroups == s->groups_cap) {
        uint32_t cap = s->groups_cap ? 2 * s->groups_cap : 8;
        split_group *more = realloc(s->groups, cap * sizeof *more);
        if (more) {
            s->groups = more;
            s->groups_cap = cap;
        }
    }
    split_group gr = {a.task.id, a.ranks, a.ranks, NULL};
    if (s->ngroups == s->groups_cap || !(gr.ranks = malloc((size_t)a.ranks * sizeof(int32_t)))) {
        snprintf(s->err, sizeof s->err, "rank 0: out of memory for a group of %u ranks", a.ranks);
        dk_sched_fail(&s->core);
        return;
    }
    for (uint32_t k = 0; k < a.ranks; k++) {
        uint32_t r = 0;
        int got = dk_sched_take_rank(&s->core, &r);
        if (got == 1 && r != 0) {
            gr.ranks[k] = (int32_t)r;
            stop_waiting(s, (int)r);
            continue;
        }
        snprintf(s->err, sizeof s->err, "internal error: the scheduler granted a group of %u ranks but has %u of "
                 "them", a.ranks, k);
        if (got == 1) /* rank 0 is in no group's split */
            gr.ranks[k++] = 0;
        while (k > 0)
            waits_again(s, gr.ranks[--k]);
        free(gr.ranks);
        dk_sched_fail(&s->core);
        return;
    }
    task t = {TASK_SPLIT, (int32_t)a.task.id, (int32_t)a.ranks};
    for (uint32_t k = 0; k < a.ranks; k++) {
        MPI_Send(&t, sizeof t, MPI_BYTE, gr.ranks[k], TAG_TASK, MPI_COMM_WORLD);
        MPI_Send(gr.ranks, (int)a.ranks, MPI_INT32_T, gr.ranks[k], TAG_TASK, MPI_COMM_WORLD);
    }
    s->groups[s->ngroups++] = gr;
    group_note(s);
    dk_progress_update(&s->pr, false);
}

/* Sends what the core hands out until it has nothing more. */
static void hand_out(dk_rank0 *s)
{
    for (;;) {
        dk_sched_grant a = dk_sched_next(&s->core);
        switch (a.kind) {
        case DK_SCHED_TASK:
            send_task(s, (int)a.rank, (task){(int32_t)a.task.kind, (int32_t)a.task.id, 0});
            stop_waiting(s, (int)a.rank);
            break;
        case DK_SCHED_STOP:
            send_task(s, (int)a.rank, (task){TASK_STOP, 0, 0});
            stop_waiting(s, (int)a.rank);
            s->stopped++;
            break;
        case DK_SCHED_SPLIT:
            if (a.every)
                start_split(s, a.task.id);
            else
                start_group(s, a);
            break;
        case DK_SCHED_STUCK:
            snprintf(s->err, sizeof s->err, "internal error: no work is ready but tables are missing");
            break;
        default: /* DK_SCHED_WAIT; no rank is made on demand, so never DK_SCHED_NOMEM */
            return;
        }
    }
}

void dk_transport_schedule(dk_rank0 *s)
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
        mailbox *b = s->local ? &s->local->box : NULL; /* NULL: rank 0's worker never started */
        if (b)
            pthread_mutex_lock(&b->lock);
        if (b && b->has_report) {
            report r = b->rep;
            b->has_report = false;
            pthread_mutex_unlock(&b->lock);
            take_report(s, 0, &r);
            got = true;
        } else if (b) {
            pthread_mutex_unlock(&b->lock);
        }
        hand_out(s);
        if (!got) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            dk_progress_update(&s->pr, false);
        }
    }
    s->run.ran = dk_now() - start;
}

/* Stops ranks 1 .. nranks - 1 before any task, when rank 0 cannot schedule: each one's first
 * report is answered with TASK_STOP. */
void dk_transport_stop_workers(int nranks)
{
    for (int r = 1; r < nranks; r++) {
        report rep;
        MPI_Recv(&rep, sizeof rep, MPI_BYTE, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        task t = {TASK_STOP, 0, 0};
        MPI_Send(&t, sizeof t, MPI_BYTE, r, TAG_TASK, MPI_COMM_WORLD);
    }
}
