#include "generate.h"

#include <errno.h>
#include <malloc.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../rules/errors.h"
#include "budget.h"
#include "dirlock.h"
#include "manifest.h"
#include "progress.h"
#include "restart.h"
#include "scheduler.h"
#include "setup.h"
#include "tasks.h"
#include "testhooks.h"

enum { TAG_REPORT = 1, TAG_TASK = 2 };
/* A task's kind on the wire: a graph task's own kind (DK_WG_UNIT, DK_WG_FINISH), or one of these. */
enum { TASK_NONE = 0, TASK_STOP = DK_WG_FINISH + 1, TASK_SPLIT = DK_WG_FINISH + 2 };
enum { ERR_MAX = 1024 };

/* What a worker sends after each task (kind TASK_NONE for the first request). */
typedef struct report {
    int32_t kind, id, status;
    char err[ERR_MAX];
} report;

typedef struct task {
    int32_t kind, id;
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

typedef struct local_worker {
    dk_worker w;
    mailbox box;
} local_worker;

static void run_task(dk_worker *w, const task *t, report *r)
{
    r->kind = t->kind;
    r->id = t->id;
    r->err[0] = 0;
    if (t->kind == DK_WG_UNIT)
        r->status = dk_task_unit(w, (uint32_t)t->id, r->err, sizeof r->err);
    else
        r->status = dk_task_finish_pair(w, (uint32_t)t->id, r->err, sizeof r->err);
}

static void *local_main(void *arg)
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
static bool all_ok(bool ok)
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
    if (!all_ok(hd && ci)) {
        free(hd);
        free(ci);
        memset(recv_counts, 0, (size_t)n * sizeof *recv_counts);
        return -1;
    }
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
    if (!all_ok(ok)) {
        free(hd);
        free(ci);
        memset(recv_counts, 0, (size_t)n * sizeof *recv_counts);
        return -1;
    }
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
    free(hd);
    free(ci);
    return 0;
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
static void remote_worker(dk_worker *w, const char *why_not)
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

typedef struct sched {
    const dk_gen_options *o;
    dk_workgraph *g;
    int nranks;
    dk_sched core;
    int stopped;          /* workers sent TASK_STOP */
    char err[ERR_MAX];
    dk_progress pr;
    local_worker *local;
    uint32_t split;       /* the split unit running (split_progress) */
    uint32_t splits;      /* split units solved */
    double *since;        /* when each rank began to wait for a task (while it waits) */
    double waited;        /* seconds the ranks spent waiting for a task, summed */
    double ran;           /* seconds the scheduler ran */
} sched;

/* Rank r, which waited for a task since s->since[r], got one. */
static void stop_waiting(sched *s, int r) { s->waited += dk_now() - s->since[r]; }

static bool all_done(const sched *s) { return dk_workgraph_all_finished(s->g); }

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
    } else {
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

static void schedule(sched *s)
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
static void stop_workers(int nranks)
{
    for (int r = 1; r < nranks; r++) {
        report rep;
        MPI_Recv(&rep, sizeof rep, MPI_BYTE, r, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        task t = {TASK_STOP, 0};
        MPI_Send(&t, sizeof t, MPI_BYTE, r, TAG_TASK, MPI_COMM_WORLD);
    }
}

/* Removes from dir the files of damka's whose names contain `part` (".tmp.": what a killed
 * run left half-written; "": everything, for the work directory of a finished run). */
static void remove_files(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *n = e->d_name;
        bool ours = strncmp(n, "brazilian-", 10) == 0 || strncmp(n, "international-", 14) == 0 ||
                    strncmp(n, "manifest.json", 13) == 0;
        if (!ours || !strstr(n, part))
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%.3800s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    closedir(d);
}

/* A directory holds tables of one draw rule: extending it with another would mix them. */
static int check_rule(const dk_gen_options *o, char *err, size_t errlen)
{
    unsigned found;
    char which[DK_MATERIAL_NAME_MAX];
    if (!dk_dir_rule_differs(o->dir, o->v, o->rule_limit, &found, which, sizeof which))
        return 0;
    if (found)
        return dk_statusf(DK_REFUSED, err, errlen, "%.900s holds tables made with --draw-rule %u (%s), not %u: "
                          "use the same rule or another directory", o->dir, found / 2, which, o->rule_limit / 2);
    return dk_statusf(DK_REFUSED, err, errlen, "%.900s holds tables made with --draw-rule 0 (%s): use --draw-rule 0 "
                      "or another directory", o->dir, which);
}

/* Creates DIR and takes its lock (dirlock.h); only then are the temporary files of a killed run
 * removed, never those of a live one. */
static int make_dirs(const dk_gen_options *o, dk_dirlock *lock, char *err, size_t errlen)
{
    char work[4096], note[1024];
    snprintf(work, sizeof work, "%s/work", o->dir);
    if (mkdir(o->dir, 0755) != 0 && errno != EEXIST)
        return dk_errorf(err, errlen, "cannot create %.900s: %s", o->dir, strerror(errno));
    if (dk_dirlock_take(lock, o->dir, note, sizeof note, err, errlen) != 0)
        return -1;
    if (note[0] && !o->quiet)
        fprintf(stderr, "%s\n", note);
    remove_files(o->dir, ".tmp.");
    remove_files(work, ".tmp.");
    return 0;
}

/* Creates DIR/work, for the units: only when there is work, so that a finished directory is
 * left as it is. */
static int make_work(const dk_gen_options *o, char *err, size_t errlen)
{
    char work[4096];
    snprintf(work, sizeof work, "%s/work", o->dir);
    if (mkdir(work, 0755) != 0 && errno != EEXIST)
        return dk_errorf(err, errlen, "cannot create %.900s: %s", work, strerror(errno));
    return 0;
}

/* Rank 0: runs its own worker and schedules every rank's tasks until the run is done or has
 * failed. Returns a dk_status, with one line in err on a failure. */
static int run_scheduler(const dk_gen_options *o, dk_workgraph *g, int nranks, const dk_budget *b, char *err,
                         size_t errlen)
{
    sched s = {o, g, nranks, {0}, 0, "", {0}, NULL, 0, 0, NULL, 0, 0};
    s.since = calloc((size_t)nranks, sizeof *s.since);
    if (!s.since || dk_sched_init(&s.core, g, (uint32_t)nranks, false) != 0) {
        free(s.since);
        stop_workers(nranks);
        return dk_errorf(err, errlen, "out of memory for the scheduler of %d ranks", nranks);
    }
    s.local = calloc(1, sizeof *s.local);
    int status = DK_FAILED;
    uint64_t done_pos = 0, total_pos = 0;
    uint32_t done_mat = 0, total_mat = 0;
    dk_dirlock lock = {-1, ""};
    /* the local worker's memory first: a worker that cannot start leaves nothing in DIR */
    const char *why_not = "out of memory";
    bool local_ok = s.local &&
                    dk_worker_init(&s.local->w, g, o->dir, o->keep_work, o->dictionary, o->rule_limit, b) == 0;
    if (!local_ok)
        snprintf(s.err, sizeof s.err, "rank 0: its worker cannot start: out of memory");
    bool refused = local_ok && check_rule(o, s.err, sizeof s.err) == DK_REFUSED;
    if (!local_ok || refused || make_dirs(o, &lock, s.err, sizeof s.err) != 0 || dk_restart_scan(g, o->dir, o->rule_limit, &done_pos, &done_mat) != 0) {
        if (!s.err[0])
            snprintf(s.err, sizeof s.err, "out of memory");
        dk_sched_fail(&s.core);
    }
    if (!s.core.failed && !all_done(&s) && make_work(o, s.err, sizeof s.err) != 0)
        dk_sched_fail(&s.core);
    for (uint32_t p = 0; p < g->npairs; p++) {
        total_pos += g->pairs[p].positions;
        total_mat += g->pairs[p].self_twin ? 1 : 2;
    }
    if (!s.core.failed) {
        if (all_done(&s) && !o->quiet)
            fprintf(stderr, "gen: all %u materials are already finished in %s: nothing to do\n",
                    total_mat, o->dir);
        else if (!o->quiet && done_mat + done_pos > 0)
            fprintf(stderr, "gen: resuming: %u materials and %.3g positions already finished\n",
                    done_mat, (double)done_pos);
    }
    dk_progress_start(&s.pr, o->quiet, total_pos, total_mat);
    s.pr.done_positions = s.pr.start_positions = done_pos;
    s.pr.done_materials = done_mat;
    /* the local worker always runs, so that the stop protocol is the same for every rank */
    pthread_t th;
    if (local_ok) {
        pthread_mutex_init(&s.local->box.lock, NULL);
        pthread_cond_init(&s.local->box.cond, NULL);
        int e = pthread_create(&th, NULL, local_main, s.local);
        local_ok = e == 0;
        why_not = strerror(e);
    }
    if (!local_ok) {
        if (!s.core.failed)
            snprintf(s.err, sizeof s.err, "rank 0: its worker cannot start: %s", why_not);
        dk_sched_fail(&s.core);
        s.stopped = 1; /* rank 0's worker does not exist */
    }
    bool nothing_to_do = s.core.failed || all_done(&s); /* no progress line to finish */
    schedule(&s);
    if (local_ok)
        pthread_join(th, NULL);
    if (!nothing_to_do) {
        dk_progress_update(&s.pr, true);
        dk_progress_end(&s.pr);
    }
    if (!nothing_to_do && !o->quiet && local_ok) {
        dk_finished_counters c = dk_finished_get_counters(s.local->w.finished);
        fprintf(stderr, "gen: rank 0 decoded %llu blocks of finished tables, %.3g positions (%llu dropped "
                "to stay within %.0f MiB, at most %.0f MiB held), resolved %llu capture positions\n",
                (unsigned long long)c.loads, (double)c.positions, (unsigned long long)c.evictions,
                b->cache_bytes / 1048576.0, c.peak_bytes / 1048576.0, (unsigned long long)c.resolved);
        if (s.splits)
            fprintf(stderr, "gen: %u units above the bound of %llu positions were split, each solved by all %d "
                    "ranks together\n", s.splits, (unsigned long long)g->max_positions, nranks);
        if (s.ran > 0)
            fprintf(stderr, "gen: the ranks waited for a task %.1f%% of the run (%.0f of %.0f rank-seconds): "
                    "work not ready yet, or none left\n", 100 * s.waited / (s.ran * nranks), s.waited,
                    s.ran * nranks);
    }
    if (!s.core.failed) {
        if (dk_manifest_write(o->dir, s.err, sizeof s.err) == 0) {
            char work[4096];
            snprintf(work, sizeof work, "%s/work", o->dir);
            /* the work of this run, not what an earlier one kept (--keep-work) */
            if (!o->keep_work && !nothing_to_do)
                remove_files(work, "");
            if (!o->keep_work)
                rmdir(work); /* if empty */
            status = DK_OK;
        }
    }
    if (status != DK_OK)
        status = dk_statusf(refused ? DK_REFUSED : DK_FAILED, err, errlen, "%s",
                            s.err[0] ? s.err : "a rank failed without saying why");
    if (s.local && local_ok)
        dk_worker_free(&s.local->w);
    free(s.local);
    free(s.since);
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
    dk_budget b;
    /* a budget beyond a node's memory would fail late, out of memory: refused here */
    uint64_t node = dk_budget_node_share(1), most = o->memory_per_rank && node && o->memory_per_rank > node ? node : 0;
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (most)
        return dk_statusf(DK_REFUSED, err, errlen, "--memory-per-rank: a rank may hold at most its node's memory, "
                          "%llu MiB, got %llu MiB", (unsigned long long)(most >> 20),
                          (unsigned long long)(o->memory_per_rank >> 20));
    bool refused;
    char why[ERR_MAX];
    dk_workgraph *g = dk_setup_run(o, least_memory(o), nranks, &b, &refused, why, sizeof why);
    if (!all_ok(g != NULL)) {
        dk_workgraph_free(g);
        return dk_statusf(refused ? DK_REFUSED : DK_FAILED, err, errlen, "%s%s", refused ? "--memory-per-rank: " : "",
                          g ? "another rank ran out of memory" : why);
    }
    int status = DK_OK;
    if (rank == 0) {
        status = run_scheduler(o, g, nranks, &b, err, errlen);
    } else {
        dk_worker w;
        bool ok = !dk_hook_fail_init() &&
                  dk_worker_init(&w, g, o->dir, o->keep_work, o->dictionary, o->rule_limit, &b) == 0;
        remote_worker(ok ? &w : NULL, "its worker cannot start: out of memory");
        if (ok)
            dk_worker_free(&w);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    dk_workgraph_free(g);
    return status;
}
